"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    l = rng.randint(1, 10)
    return f"{rng.randint(1, 100)} {l} {rng.choice([l, rng.randint(l, 20)])}\n"
