h, w = map(int, input().split())
g = [input() for _ in range(h)]
print(sum(row.count('1') for row in g))
