best = a[0]
for i in range(1, n + 1):
    if a[i] > best:
        best = a[i]
print(best)
