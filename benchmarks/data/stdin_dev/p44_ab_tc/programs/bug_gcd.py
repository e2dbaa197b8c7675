from math import gcd
T = int(input())
for _ in range(T):
    x, y = map(int, input().split())
    g = gcd(x, y)
    print(x // g, y // g)
