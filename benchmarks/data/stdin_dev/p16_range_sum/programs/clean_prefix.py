import sys
data = sys.stdin.read().split()
n, q = int(data[0]), int(data[1])
a = list(map(int, data[2:2 + n]))
p = [0] * (n + 1)
for i in range(n):
    p[i + 1] = p[i] + a[i]
out = []
for k in range(q):
    l, r = int(data[2 + n + 2 * k]), int(data[3 + n + 2 * k])
    out.append(p[r] - p[l - 1])
print("\n".join(map(str, out)))
