n = int(input())
a = list(map(int, input().split()))
lo, hi = min(a), max(a)
if hi == lo:
    print(" ".join("0.000" for _ in a))
else:
    print(" ".join(f"{(x - lo) / (hi - lo):.3f}" for x in a))
