n, x = map(int, input().split())
w = list(map(int, input().split()))
print([x * v // sum(w) for v in w])
