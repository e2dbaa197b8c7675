n, l, r = map(int, input().split())
print(n // (r - l))
