n = int(input())
p = list(map(float, input().split()))
r = 1.0
for x in p:
    r *= 1 - x
print(1 - r)
