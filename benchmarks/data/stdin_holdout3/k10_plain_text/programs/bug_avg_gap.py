words = input().split()
print(len(words[0]) / (len(words) - 1))
