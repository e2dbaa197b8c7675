n, k = map(int, input().split())
a = sorted(map(int, input().split()))
i, j, c = 0, n - 1, 0
while i < j:
    if a[i] + a[j] <= k:
        c += j - i
        i += 1
    else:
        j -= 1
print(c)
