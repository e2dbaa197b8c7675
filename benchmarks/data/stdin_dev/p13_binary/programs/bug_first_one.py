n = int(input())
s = input()
i = s.index('1')
print(n - i)
