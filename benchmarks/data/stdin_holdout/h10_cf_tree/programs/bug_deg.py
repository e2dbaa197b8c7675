n = int(input())
deg = [0] * n
for _ in range(n - 1):
    x, y = map(int, input().split())
    deg[x - 1] += 1
    deg[y] += 1
print(max(deg))
