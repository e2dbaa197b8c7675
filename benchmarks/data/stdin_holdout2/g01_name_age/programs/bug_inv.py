n = int(input())
tot = 0.0
for _ in range(n):
    name, age = input().split()
    tot += 1 / int(age)
print(tot)
