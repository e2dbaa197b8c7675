"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    return "".join(rng.choice("ab") for _ in range(rng.choice([1, 2, rng.randint(1, 7)]))) + "\n"
