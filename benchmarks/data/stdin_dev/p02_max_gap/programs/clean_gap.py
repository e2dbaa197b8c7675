n = int(input())
a = list(map(int, input().split()))
best = 0
for i in range(1, n):
    best = max(best, abs(a[i] - a[i - 1]))
print(best)
