"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    s = "".join(rng.choice("abc") for _ in range(rng.randint(1, 6)))
    return s + "\n" + str(rng.randint(1, 8)) + "\n"
