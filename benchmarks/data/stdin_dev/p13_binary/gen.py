"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n = rng.randint(1, 8)
    p = rng.choice([0.0, 0.5, 1.0, 0.2])
    return f"{n}\n" + "".join("1" if rng.random() < p else "0" for _ in range(n)) + "\n"
