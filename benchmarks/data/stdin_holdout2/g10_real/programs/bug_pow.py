r, k = input().split()
r, k = float(r), int(k)
print(r ** k / k)
