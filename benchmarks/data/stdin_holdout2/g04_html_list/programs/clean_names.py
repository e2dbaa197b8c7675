n = int(input())
c = list(map(int, input().split()))
names = {1: 'A', 11: 'J', 12: 'Q', 13: 'K'}
print(' '.join(names.get(x, str(x)) for x in c))
