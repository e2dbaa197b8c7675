"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    return f"{rng.randint(0, 10**9)} {rng.choice([0, rng.randint(0, 10**9)])} {rng.choice([1, rng.randint(1, 10**9)])}\n"
