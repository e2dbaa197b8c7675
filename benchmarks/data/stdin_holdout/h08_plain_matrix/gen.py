"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    r, c = rng.randint(1, 3), rng.randint(1, 3)
    return f"{r} {c}\n" + "\n".join(" ".join(str(rng.randint(-5, 5)) for _ in range(c)) for _ in range(r)) + "\n"
