n, k = map(int, input().split())
c = sorted(map(int, input().split()))
print(sum(c[:k]))
