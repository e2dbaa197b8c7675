t = int(input())
for _ in range(t):
    s = input()
    print(s.index('B'))
