"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    return " ".join(str(rng.randint(1, rng.choice([5, 1000]))) for _ in range(3)) + "\n"
