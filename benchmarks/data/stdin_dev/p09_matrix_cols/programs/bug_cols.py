n, m = map(int, input().split())
a = [list(map(int, input().split())) for _ in range(n)]
cols = []
for j in range(m):
    cols.append(sum(a[j][i] for i in range(n)))
print(*cols)
