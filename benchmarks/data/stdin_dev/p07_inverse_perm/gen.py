"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n = rng.randint(1, 8)
    p = list(range(1, n + 1))
    rng.shuffle(p)
    return f"{n}\n" + " ".join(map(str, p)) + "\n"
