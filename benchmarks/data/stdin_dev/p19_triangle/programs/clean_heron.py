import math
a, b, c = map(int, input().split())
p = (a + b + c) / 2
v = p * (p - a) * (p - b) * (p - c)
print(f"{math.sqrt(v):.6f}" if v > 0 else "0.000000")
