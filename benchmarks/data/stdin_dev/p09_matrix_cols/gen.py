"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n, m = rng.randint(1, 4), rng.randint(1, 4)
    return f"{n} {m}\n" + "\n".join(" ".join(str(rng.randint(0, 1000)) for _ in range(m)) for _ in range(n)) + "\n"
