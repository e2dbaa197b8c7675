s = input()
cnt = [0] * 26
for ch in s:
    cnt[ord(ch) - ord('A')] += 1
print(max(cnt))
