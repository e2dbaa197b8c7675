n = int(input())
p = list(map(float, input().split()))
print(sum(x / (1 - x) for x in p))
