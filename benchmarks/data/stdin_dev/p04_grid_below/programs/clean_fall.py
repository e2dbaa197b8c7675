n, m = map(int, input().split())
g = [input() for _ in range(n)]
falling = 0
for i in range(n - 1):
    for j in range(m):
        if g[i][j] == '#' and g[i + 1][j] == '.':
            falling += 1
print(falling)
