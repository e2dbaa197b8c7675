"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    return "".join(rng.choice(rng.choice(["abc", "xyz", "z"])) for _ in range(rng.randint(1, 6))) + "\n"
