from collections import Counter
n = int(input())
votes = Counter(input().strip() for _ in range(n))
print(max(sorted(votes), key=lambda x: votes[x]))
