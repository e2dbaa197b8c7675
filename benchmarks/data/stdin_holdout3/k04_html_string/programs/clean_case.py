s = input()
up = sum(1 for c in s if c.isupper())
print(s.upper() if up > len(s) - up else s.lower())
