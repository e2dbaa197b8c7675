"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n = rng.randint(1, 8)
    if rng.random() < 0.3:
        v = rng.randint(1, 100)
        a = [v] * n
    else:
        a = [rng.randint(1, 100) for _ in range(n)]
    return f"{n}\n" + " ".join(map(str, a)) + "\n"
