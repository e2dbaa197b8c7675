n = int(input())
x = list(map(float, input().split()))
print(f"{sum(x) / n:.4f}")
