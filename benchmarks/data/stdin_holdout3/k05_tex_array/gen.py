"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n = rng.randint(2, 6)
    return f"{n}\n" + " ".join(str(rng.randint(1, 5)) for _ in range(n)) + "\n"
