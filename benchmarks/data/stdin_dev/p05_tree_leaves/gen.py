"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n = rng.randint(2, 8)
    lines = []
    for i in range(2, n + 1):
        p = rng.randint(1, i - 1)
        lines.append(f"{p} {i}" if rng.random() < 0.5 else f"{i} {p}")
    rng.shuffle(lines)
    return f"{n}\n" + "\n".join(lines) + "\n"
