"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n = rng.choice([1, rng.randint(1, 8)])
    return f"{n}\n" + " ".join(str(rng.randint(1, 1000)) for _ in range(n)) + "\n"
