"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n = rng.choice([1, 1, 2, rng.randint(1, 20)])
    return f"{n}\n" + " ".join(str(rng.randint(1, 10**9)) for _ in range(n)) + "\n"
