n = int(input())
x = list(map(float, input().split()))
mean = sum(x) / n
var = sum((v - mean) ** 2 for v in x) / (n - 1)
print(f"{var ** 0.5:.4f}")
