"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    k = rng.choice([0, 1, rng.randint(0, 6)])
    return f"{k}\n" + " ".join(str(rng.randint(1, 5)) for _ in range(k)) + "\n"
