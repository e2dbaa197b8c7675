n, m = map(int, input().split())
deg = [0] * (n + 1)
for _ in range(m):
    a, b = map(int, input().split())
    deg[a] += 1
    deg[b] += 1
print(max(deg) / m)
