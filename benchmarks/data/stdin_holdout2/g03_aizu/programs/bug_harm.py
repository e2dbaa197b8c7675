n = int(input())
x = list(map(int, input().split()))
print(n / sum(1 / v for v in x))
