"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    n, q = rng.randint(1, 5), rng.randint(1, 4)
    return f"{n} {q}\n" + " ".join(str(rng.randint(1, 100)) for _ in range(n)) + "\n" + "\n".join(str(rng.randint(1, n)) for _ in range(q)) + "\n"
