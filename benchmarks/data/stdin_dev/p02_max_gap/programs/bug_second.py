n = int(input())
a = sorted(map(int, input().split()))
second = a[-2]
print(a[-1] - second)
