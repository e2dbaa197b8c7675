"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n, m = rng.randint(2, 6), rng.randint(1, 6)
    rows = []
    for _ in range(m):
        u = rng.randint(1, n)
        v = rng.choice([x for x in range(1, n + 1) if x != u])
        rows.append(f"{u} {v}")
    return f"{n} {m}\n" + "\n".join(rows) + "\n"
