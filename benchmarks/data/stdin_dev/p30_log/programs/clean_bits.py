n = int(input())
print(n.bit_length())
