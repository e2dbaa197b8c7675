"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    return f"{rng.choice([rng.uniform(0.01, 100), 0.5, 100.0]):.2f} {rng.randint(0, 5)}\n"
