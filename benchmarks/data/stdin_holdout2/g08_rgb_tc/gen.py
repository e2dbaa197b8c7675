"""Independent generator of valid inputs (for labelling only)."""
def gen(rng):
    t = rng.randint(1, 4)
    return f"{t}\n" + "\n".join("".join(rng.choice(rng.choice(["RGB", "R", "GB"])) for _ in range(rng.randint(1, 5))) for _ in range(t)) + "\n"
