x = int(input())
c = 0
while x % 2 == 0:
    x //= 2
    c += 1
print(c)
