import math
n = int(input())
a = list(map(int, input().split()))
print(sum(int(math.sqrt(x)) for x in a))
