import sys


def read_ints():
    return list(map(int, sys.stdin.readline().split()))


n = int(sys.stdin.readline())
a = read_ints()
best = a[0]
for i in range(1, n + 1):
    if a[i] > best:
        best = a[i]
print(best)
