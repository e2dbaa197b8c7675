n = int(input())
a = list(map(int, input().split()))
r = 1000
for x in a:
    if x:
        r %= x
print(r)
