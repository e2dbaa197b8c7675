"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    t = rng.randint(1, 3)
    out = [str(t)]
    for _ in range(t):
        n = rng.randint(1, 5)
        out.append(f"{n} {rng.randint(1, 100)}")
        out.append("".join(rng.choice(rng.choice(["LR", "L", "R"])) for _ in range(n)))
    return "\n".join(out) + "\n"
