s = input()
low = [c for c in s if c.islower()]
print(low[0], len(s))
