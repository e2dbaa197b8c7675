t = int(input())
for _ in range(t):
    n = int(input())
    a = list(map(int, input().split()))
    if n == 1:
        prnt(0)
        continue
    print(max(a) - min(a))
