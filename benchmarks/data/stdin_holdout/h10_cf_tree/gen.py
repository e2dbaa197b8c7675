"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n = rng.randint(2, 7)
    rows = [f"{rng.randint(1, i - 1)} {i}" for i in range(2, n + 1)]
    rng.shuffle(rows)
    return f"{n}\n" + "\n".join(rows) + "\n"
