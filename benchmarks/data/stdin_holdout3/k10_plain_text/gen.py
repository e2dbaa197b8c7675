"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    return " ".join("".join(rng.choice("abc") for _ in range(rng.randint(1, 4))) for _ in range(rng.choice([1, rng.randint(1, 5)]))) + "\n"
