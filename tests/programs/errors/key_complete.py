from collections import defaultdict

text = "abracadabra"
counts = {}
for ch in text:
    counts[ch] = counts.get(ch, 0) + 1
groups = defaultdict(list)
for ch, c in counts.items():
    groups[c].append(ch)
print(sorted(groups[5]))
print(counts["z"])
