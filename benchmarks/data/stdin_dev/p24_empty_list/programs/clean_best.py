k = int(input())
b = list(map(int, input().split()))
print(max(b) if b else 0, k)
