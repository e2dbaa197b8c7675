n = int(input())
tot = 0.0
for _ in range(n):
    l, r = map(int, input().split())
    tot += 1 / (r - l)
print(f"{tot:.3f}")
