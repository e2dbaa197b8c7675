t = int(input())
for _ in range(t):
    n, k = map(int, input().split())
    s = input()
    print(min(k, s.count('L')))
