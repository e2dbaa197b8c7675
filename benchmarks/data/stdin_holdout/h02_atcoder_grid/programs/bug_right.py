H, W = map(int, input().split())
S = [input() for _ in range(H)]
c = 0
for i in range(H):
    for j in range(W):
        if S[i][j] == '#' and S[i][j + 1] == '#':
            c += 1
print(c)
