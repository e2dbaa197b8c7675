"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    k = rng.choice([1, 1, 2, rng.randint(1, 6)])
    return " ".join("".join(rng.choice("abcxyz") for _ in range(rng.randint(1, 5))) for _ in range(k)) + "\n"
