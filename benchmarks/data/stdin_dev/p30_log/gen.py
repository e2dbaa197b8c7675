"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    return str(rng.choice([1, 2, rng.randint(1, 10**6)])) + "\n"
