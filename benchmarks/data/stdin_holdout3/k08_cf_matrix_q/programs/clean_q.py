n, m, q = map(int, input().split())
a = [list(map(int, input().split())) for _ in range(n)]
for _ in range(q):
    x, y = map(int, input().split())
    print(a[x - 1][y - 1])
