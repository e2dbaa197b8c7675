t = int(input())
for _ in range(t):
    n = int(input())
    a = list(map(int, input().split()))
    j = a.index(min(a[1:]))
    print("YES" if a == sorted(a) else "NO", j)
