n = int(input())
s = sorted(int(input()) for _ in range(n))
print(s[-2])
