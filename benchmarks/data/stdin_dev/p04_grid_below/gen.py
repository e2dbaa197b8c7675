"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n, m = rng.randint(1, 5), rng.randint(1, 5)
    p = rng.random()
    return f"{n} {m}\n" + "\n".join("".join("#" if rng.random() < p else "." for _ in range(m)) for _ in range(n)) + "\n"
