s = input()
first_two = s[0] + s[1]
print(first_two, len(s))
