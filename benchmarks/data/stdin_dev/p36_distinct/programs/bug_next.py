n = int(input())
a = list(map(int, input().split()))
pos = {v: i for i, v in enumerate(a)}
print(pos[min(a) + 1])
