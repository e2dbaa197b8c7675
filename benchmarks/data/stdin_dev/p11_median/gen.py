"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n = rng.choice([1, 2, 3, rng.randint(1, 9)])
    return f"{n}\n" + " ".join(str(rng.randint(1, 50)) for _ in range(n)) + "\n"
