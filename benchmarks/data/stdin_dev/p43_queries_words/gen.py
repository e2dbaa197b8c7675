"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    q = rng.randint(1, 5)
    return f"{q}\n" + "\n".join("".join(rng.choice("ab") for _ in range(rng.randint(1, 4))) for _ in range(q)) + "\n"
