"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n, m = rng.randint(1, 3), rng.randint(1, 3)
    return f"{n} {m}\n" + "\n".join("".join(rng.choice("0123456789") for _ in range(m)) for _ in range(n)) + "\n"
