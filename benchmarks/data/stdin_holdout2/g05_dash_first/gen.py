"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n = rng.randint(1, 6)
    return f"{n}\n" + " ".join(str(rng.randint(1, 9)) for _ in range(n)) + "\n"
