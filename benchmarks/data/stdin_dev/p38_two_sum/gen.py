"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n = rng.randint(1, 6)
    return f"{n} {rng.randint(1, 20)}\n" + " ".join(str(rng.randint(1, 10)) for _ in range(n)) + "\n"
