n, m = map(int, input().split())
a = [list(map(int, input().split())) for _ in range(n)]
print(*[sum(a[i][j] for i in range(n)) for j in range(m)])
