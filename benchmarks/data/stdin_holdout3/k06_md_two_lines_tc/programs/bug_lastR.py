t = int(input())
for _ in range(t):
    n, k = map(int, input().split())
    s = input()
    print(s.rindex('R') + k)
