"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    s = "".join(rng.choice("ab") for _ in range(rng.randint(1, 6)))
    t = "".join(rng.choice("ab") for _ in range(rng.randint(1, 6)))
    return s + "\n" + t + "\n"
