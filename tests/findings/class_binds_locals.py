class C:
    locals = dict
    if True:
        a = 1
    b = a
print(C.b)
