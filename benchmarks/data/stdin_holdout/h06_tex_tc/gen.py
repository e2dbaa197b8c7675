"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    t = rng.randint(1, 4)
    return f"{t}\n" + "\n".join(" ".join(str(rng.choice([0, rng.randint(0, 10)])) for _ in range(3)) for _ in range(t)) + "\n"
