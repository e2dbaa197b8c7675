n = int(input())
c = list(map(int, input().split()))
names = {1: 'A', 11: 'J', 12: 'Q', 13: 'K'}
print(' '.join(names[x] if x > 10 or x == 1 else names[x] for x in c))
