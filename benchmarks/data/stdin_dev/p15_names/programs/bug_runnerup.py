n = int(input())
votes = [input() for _ in range(n)]
names = sorted(set(votes), key=lambda x: -votes.count(x))
print(names[0], names[1])
