"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    t = rng.randint(1, 5)
    rows = [f"{rng.choice([0, rng.randint(-1000, 1000), 1])} {rng.choice([0, rng.randint(-1000, 1000), -1])}" for _ in range(t)]
    return f"{t}\n" + "\n".join(rows) + "\n"
