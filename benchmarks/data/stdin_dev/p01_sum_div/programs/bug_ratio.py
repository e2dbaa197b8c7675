t = int(input())
for _ in range(t):
    a, b = map(int, input().split())
    q = a // b
    print(a + b, q)
