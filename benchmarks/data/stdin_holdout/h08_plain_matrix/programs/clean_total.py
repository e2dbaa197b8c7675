r, c = map(int, input().split())
m = [list(map(int, input().split())) for _ in range(r)]
print(sum(map(sum, m)))
