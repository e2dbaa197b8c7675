n, m = map(int, input().split())
g = [input() for _ in range(n)]
print(sum(100 // int(ch) for row in g for ch in row))
