s = input()
cnt = [0] * 26
for ch in s:
    cnt[ord(ch) - ord('a')] += 1
print(max(cnt))
