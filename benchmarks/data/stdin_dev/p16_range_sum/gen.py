"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n, q = rng.randint(1, 6), rng.randint(1, 4)
    rows = []
    for _ in range(q):
        l = rng.randint(1, n)
        rows.append(f"{l} {rng.randint(l, n)}")
    return f"{n} {q}\n" + " ".join(str(rng.randint(1, 9)) for _ in range(n)) + "\n" + "\n".join(rows) + "\n"
