s = input().strip()
bal = 0
ok = True
for ch in s:
    bal += 1 if ch == '(' else -1
    ok = ok and bal >= 0
print("YES" if ok and bal == 0 else "NO")
