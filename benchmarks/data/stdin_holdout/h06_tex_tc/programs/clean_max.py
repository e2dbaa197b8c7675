T = int(input())
for _ in range(T):
    print(max(map(int, input().split())))
