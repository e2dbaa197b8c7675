words = input().split()
print(sum(map(len, words)) / len(words))
