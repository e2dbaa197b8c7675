n = int(input())
people = [input().split() for _ in range(n)]
print(max(people, key=lambda p: int(p[1]))[0])
