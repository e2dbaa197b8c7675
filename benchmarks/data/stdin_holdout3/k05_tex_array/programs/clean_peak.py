n = int(input())
h = list(map(int, input().split()))
print(sum(1 for i in range(1, n - 1) if h[i] > h[i - 1] and h[i] > h[i + 1]))
