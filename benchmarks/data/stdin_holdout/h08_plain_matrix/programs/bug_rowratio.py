r, c = map(int, input().split())
m = [list(map(int, input().split())) for _ in range(r)]
print([sum(row) // min(row) for row in m])
