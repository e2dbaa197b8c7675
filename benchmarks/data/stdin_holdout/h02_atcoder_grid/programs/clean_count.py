H, W = map(int, input().split())
S = [input() for _ in range(H)]
print(sum(r.count('#') for r in S))
