s = input()
cnt = {c: 0 for c in "aeiou"}
for ch in s:
    cnt[ch] += 1
print(max(cnt.values()))
