n, k = map(int, input().split())
a = list(map(int, input().split()))
seen = {}
cnt = 0
for x in a:
    cnt += seen.get(k - x, 0)
    seen[x] = seen.get(x, 0) + 1
print(cnt)
