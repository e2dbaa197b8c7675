n, x = map(int, input().split())
w = list(map(int, input().split()))
s = sum(w)
print([x * v // s for v in w] if s else [0] * n)
