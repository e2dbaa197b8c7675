s = input()
cnt = {}
for ch in s:
    cnt[ch] = cnt.get(ch, 0) + 1
print(cnt['z'] * 2)
