"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    return str(rng.choice([rng.randint(1, 9), rng.randint(10, 99), rng.randint(1, 10**18)])) + "\n"
