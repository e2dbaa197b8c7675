"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    h, w = rng.randint(1, 4), rng.randint(1, 4)
    return f"{h} {w}\n" + "\n".join("".join(rng.choice(".#") for _ in range(w)) for _ in range(h)) + "\n"
