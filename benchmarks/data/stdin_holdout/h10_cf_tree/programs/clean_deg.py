n = int(input())
deg = [0] * (n + 1)
for _ in range(n - 1):
    x, y = map(int, input().split())
    deg[x] += 1
    deg[y] += 1
print(max(deg))
