import math
n = int(input())
print(round(n / math.log(n), 3))
