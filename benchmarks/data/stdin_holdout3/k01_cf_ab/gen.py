"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    t = rng.randint(1, 4)
    rows = []
    for _ in range(t):
        a = rng.randint(1, 9)
        rows.append(f"{a} {rng.choice([a, rng.randint(1, 9)])}")
    return f"{t}\n" + "\n".join(rows) + "\n"
