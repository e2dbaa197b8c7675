t = int(input())
for _ in range(t):
    s = input()
    print(s.count('R'), s.count('G'), s.count('B'))
