"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n = rng.randint(1, 6)
    return f"{n}\n" + " ".join(str(rng.choice([0, rng.randint(0, 1000)])) for _ in range(n)) + "\n"
