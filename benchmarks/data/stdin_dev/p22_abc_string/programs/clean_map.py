s = input()
val = {'a': 1, 'b': 2, 'c': 3}
print(sum(val[ch] for ch in s))
