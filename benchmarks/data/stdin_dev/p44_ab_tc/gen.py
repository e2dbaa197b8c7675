"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    t = rng.randint(1, 4)
    return f"{t}\n" + "\n".join(f"{rng.choice([0, rng.randint(0, 100)])} {rng.choice([0, rng.randint(0, 100)])}" for _ in range(t)) + "\n"
