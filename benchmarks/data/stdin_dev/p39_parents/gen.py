"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n = rng.randint(2, 8)
    return f"{n}\n" + " ".join(str(rng.randint(1, i - 1)) for i in range(2, n + 1)) + "\n"
