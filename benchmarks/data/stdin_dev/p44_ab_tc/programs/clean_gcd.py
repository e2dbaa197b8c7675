from math import gcd
T = int(input())
for _ in range(T):
    x, y = map(int, input().split())
    print(gcd(x, y))
