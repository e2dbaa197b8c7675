q = int(input())
words = [input() for _ in range(q)]
pals = [w for w in words if w == w[::-1]]
print(pals[0])
