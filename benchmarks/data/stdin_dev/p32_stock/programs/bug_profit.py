n = int(input())
p = list(map(int, input().split()))
best = max(p[j] - p[i] for i in range(n) for j in range(i + 1, n))
print(max(best, 0))
