r, k = input().split()
print(float(r) ** int(k))
