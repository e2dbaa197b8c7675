q = int(input())
words = [input() for _ in range(q)]
print(sum(1 for w in words if w == w[::-1]))
