words = input().split()
print(words[1].upper())
