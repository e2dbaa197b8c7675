A, B = map(int, input().split())
print(A % B, A + B)
