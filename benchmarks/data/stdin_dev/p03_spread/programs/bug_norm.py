n = int(input())
a = list(map(int, input().split()))
lo, hi = min(a), max(a)
norm = [(x - lo) / (hi - lo) for x in a]
print(" ".join(f"{x:.3f}" for x in norm))
