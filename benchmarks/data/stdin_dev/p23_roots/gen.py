"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n = rng.randint(1, 5)
    return f"{n}\n" + " ".join(str(rng.randint(-20, 100)) for _ in range(n)) + "\n"
