n = input().strip()
print(int(n[1]) + int(n[0]))
