"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n = rng.choice([1, 2, rng.randint(1, 7)])
    return f"{n}\n" + " ".join(str(rng.randint(1, 10**4)) for _ in range(n)) + "\n"
