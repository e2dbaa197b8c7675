n = int(input())
tot = 0
for _ in range(n):
    l, r = map(int, input().split())
    tot += r - l + 1
print(tot)
