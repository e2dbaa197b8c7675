"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n = rng.randint(1, 5)
    return f"{n}\n" + " ".join("".join(rng.choice("ab") for _ in range(rng.randint(1, 3))) for _ in range(n)) + "\n"
