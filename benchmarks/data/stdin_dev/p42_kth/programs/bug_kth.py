n, k = map(int, input().split())
a = sorted(map(int, input().split()))
print(a[k])
