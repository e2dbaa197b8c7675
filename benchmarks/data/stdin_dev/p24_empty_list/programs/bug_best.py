k = int(input())
b = list(map(int, input().split()))
print(max(b), k)
