"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n = rng.randint(1, 6)
    k = rng.choice([1, n, rng.randint(1, n)])
    return f"{n} {k}\n" + " ".join(str(rng.randint(1, 9)) for _ in range(n)) + "\n"
