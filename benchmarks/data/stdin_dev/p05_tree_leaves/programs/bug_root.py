n = int(input())
children = {}
for _ in range(n - 1):
    u, v = map(int, input().split())
    children.setdefault(u, []).append(v)
print(len(children[1]))
