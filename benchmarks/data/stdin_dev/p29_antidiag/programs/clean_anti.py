n = int(input())
a = [list(map(int, input().split())) for _ in range(n)]
print(sum(a[i][n - 1 - i] for i in range(n)))
