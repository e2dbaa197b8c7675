n = int(input())
h = list(map(int, input().split()))
peaks = [i for i in range(1, n - 1) if h[i] > h[i - 1] and h[i] > h[i + 1]]
print(peaks[0] + 1)
