n, k = map(int, input().split())
c = list(map(int, input().split()))
m = max(c)
print(k // m if m > 0 else -1)
