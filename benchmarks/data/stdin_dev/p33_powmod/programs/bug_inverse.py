a, b, m = map(int, input().split())
r = pow(a, b, m)
print(r, m // r)
