s = input()
k = int(input())
print(s[k - 1])
