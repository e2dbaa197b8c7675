n = int(input())
p = list(map(int, input().split()))
ch = [0] * n
for x in p:
    ch[x] += 1
print(max(ch))
