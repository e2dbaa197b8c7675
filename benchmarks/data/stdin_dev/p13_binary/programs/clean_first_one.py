n = int(input())
s = input()
i = s.find('1')
print(0 if i < 0 else n - i)
