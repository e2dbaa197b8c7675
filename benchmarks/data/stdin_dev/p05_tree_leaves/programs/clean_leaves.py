n = int(input())
deg = [0] * (n + 1)
for _ in range(n - 1):
    u, v = map(int, input().split())
    deg[u] += 1
    deg[v] += 1
print(sum(1 for d in deg[1:] if d == 1))
