"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n = rng.choice([1, rng.randint(1, 6)])
    return f"{n}\n" + " ".join(f"{rng.uniform(0, 100):.2f}" for _ in range(n)) + "\n"
