n = int(input())
a = list(map(int, input().split()))
best = a[0]
if n > 1:
    for i in xrange(1, n):
        best = max(best, a[i])
print(best)
