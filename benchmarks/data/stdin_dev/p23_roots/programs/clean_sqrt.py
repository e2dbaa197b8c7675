import math
n = int(input())
a = list(map(int, input().split()))
print(sum(math.isqrt(x) for x in a if x >= 0))
