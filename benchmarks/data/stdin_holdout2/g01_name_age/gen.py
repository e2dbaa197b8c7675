"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n = rng.randint(1, 4)
    return f"{n}\n" + "\n".join(f"{''.join(rng.choice('ab') for _ in range(rng.randint(1, 3)))} {rng.choice([0, rng.randint(0, 120)])}" for _ in range(n)) + "\n"
