def f(xs):
    return *xs, 1


host, *rest = "h", *[]
print(f([0]), host, rest)
