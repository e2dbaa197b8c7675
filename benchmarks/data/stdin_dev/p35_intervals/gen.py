"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n = rng.randint(1, 4)
    rows = []
    for _ in range(n):
        l = rng.randint(1, 20)
        rows.append(f"{l} {rng.choice([l, rng.randint(l, 30)])}")
    return f"{n}\n" + "\n".join(rows) + "\n"
