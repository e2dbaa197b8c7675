"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n, m, q = rng.randint(1, 3), rng.randint(1, 3), rng.randint(1, 3)
    rows = [" ".join(str(rng.randint(0, 9)) for _ in range(m)) for _ in range(n)]
    qs = [f"{rng.randint(1, n)} {rng.randint(1, m)}" for _ in range(q)]
    return f"{n} {m} {q}\n" + "\n".join(rows + qs) + "\n"
