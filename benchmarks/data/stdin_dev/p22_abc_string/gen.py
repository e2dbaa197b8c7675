"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    return "".join(rng.choice(rng.choice(["ab", "abc", "c"])) for _ in range(rng.randint(1, 8))) + "\n"
