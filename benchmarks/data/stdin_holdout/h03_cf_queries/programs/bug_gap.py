n, k = map(int, input().split())
c = sorted(map(int, input().split()))
print(c[k] - c[k - 1])
