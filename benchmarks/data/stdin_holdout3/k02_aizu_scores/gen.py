"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n = rng.randint(1, 5)
    return f"{n}\n" + "\n".join(str(rng.choice([0, 100, rng.randint(0, 100)])) for _ in range(n)) + "\n"
