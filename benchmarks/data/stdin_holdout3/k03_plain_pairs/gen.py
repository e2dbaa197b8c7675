"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n, m = rng.randint(2, 5), rng.choice([0, rng.randint(0, 5)])
    rows = []
    for _ in range(m):
        a = rng.randint(1, n)
        b = rng.choice([x for x in range(1, n + 1) if x != a])
        rows.append(f"{a} {b}")
    return f"{n} {m}\n" + "".join(r + "\n" for r in rows)
