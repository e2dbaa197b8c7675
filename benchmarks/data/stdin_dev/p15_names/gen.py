"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n = rng.randint(1, 6)
    pool = ["A", "BOB", "ZED"][:rng.randint(1, 3)]
    return f"{n}\n" + "\n".join(rng.choice(pool) for _ in range(n)) + "\n"
