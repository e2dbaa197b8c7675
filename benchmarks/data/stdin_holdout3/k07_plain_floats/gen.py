"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n = rng.randint(1, 4)
    return f"{n}\n" + " ".join(rng.choice(["0", "1", "0.5", f"{rng.random():.3f}"]) for _ in range(n)) + "\n"
