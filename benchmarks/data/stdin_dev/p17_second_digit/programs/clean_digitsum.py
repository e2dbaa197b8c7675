n = input().strip()
print(sum(int(c) for c in n))
