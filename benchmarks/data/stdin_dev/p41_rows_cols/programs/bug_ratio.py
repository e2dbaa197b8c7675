h, w = map(int, input().split())
g = [input() for _ in range(h)]
ones = sum(row.count('1') for row in g)
print(h * w // ones)
