"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n = rng.randint(2, 5)
    return f"{n}\n" + "\n".join(f"{rng.randint(-3, 3)} {rng.randint(-100, 100)}" for _ in range(n)) + "\n"
