"""Independent generator of valid inputs (for labelling only)."""
import string
def gen(rng):
    return "".join(rng.choice(rng.choice([string.ascii_letters, string.ascii_uppercase, "ab"])) for _ in range(rng.randint(1, 6))) + "\n"
