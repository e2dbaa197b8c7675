"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    t = rng.randint(1, 3)
    out = [str(t)]
    for _ in range(t):
        n = rng.choice([1, 2, rng.randint(1, 6)])
        out += [str(n), " ".join(str(rng.randint(1, 9)) for _ in range(n))]
    return "\n".join(out) + "\n"
