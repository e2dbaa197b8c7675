n = int(input())
best = 0.0
for _ in range(n):
    a, b = map(int, input().split())
    best = max(best, a / (a + b))
print(best)
