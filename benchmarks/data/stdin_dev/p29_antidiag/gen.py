"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n = rng.randint(1, 4)
    return f"{n}\n" + "\n".join(" ".join(str(rng.randint(-100, 100)) for _ in range(n)) for _ in range(n)) + "\n"
