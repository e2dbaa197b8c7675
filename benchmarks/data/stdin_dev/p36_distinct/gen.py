"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n = rng.randint(1, 6)
    return f"{n}\n" + " ".join(map(str, rng.sample(range(1, 12), n))) + "\n"
