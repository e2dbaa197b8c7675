s = input()
t = input()
d = sum(1 for x, y in zip(s, t) if x != y)
print(d + abs(len(s) - len(t)))
