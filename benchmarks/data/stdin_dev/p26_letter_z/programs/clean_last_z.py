s = input()
print(s.count('z') * 2)
