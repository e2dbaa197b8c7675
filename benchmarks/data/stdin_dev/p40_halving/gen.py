"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    return str(rng.choice([0, 1, rng.randint(0, 10**9)])) + "\n"
