n = int(input())
p = list(map(int, input().split()))
lo, best = p[0], 0
for x in p[1:]:
    best = max(best, x - lo)
    lo = min(lo, x)
print(best)
