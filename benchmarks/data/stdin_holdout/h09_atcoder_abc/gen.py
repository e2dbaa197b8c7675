"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    return f"{rng.choice([0, rng.randint(0, 100)])} {rng.choice([0, rng.randint(0, 100)])}\n"
