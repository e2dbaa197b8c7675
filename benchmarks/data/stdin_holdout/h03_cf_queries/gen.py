"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n = rng.randint(2, 6)
    k = rng.randint(1, n)
    return f"{n} {k}\n" + " ".join(str(rng.randint(1, 10)) for _ in range(n)) + "\n"
