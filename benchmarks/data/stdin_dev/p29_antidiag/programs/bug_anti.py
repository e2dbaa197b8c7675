n = int(input())
a = [list(map(int, input().split())) for _ in range(n)]
s = 0
for i in range(n):
    s += a[i][n - i]
print(s)
