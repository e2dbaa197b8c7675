n, k = map(int, input().split())
c = list(map(int, input().split()))
print(k // max(c))
