s = input()
val = {'a': 1, 'b': 2}
total = 0
for ch in s:
    total += val[ch]
print(total)
