n = int(input())
w = input().split()
first = {}
for i, x in enumerate(w):
    first.setdefault(x, i)
print(first[w[0][::-1]])
