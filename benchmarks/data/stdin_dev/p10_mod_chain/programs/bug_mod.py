n = int(input())
a = list(map(int, input().split()))
r = 1000
for x in a:
    r = r % x
print(r)
