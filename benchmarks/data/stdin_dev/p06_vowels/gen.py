"""Independent generator of valid inputs (for labelling only)."""
import string
def gen(rng):
    n = rng.randint(1, 10)
    alpha = rng.choice(["aeiou", string.ascii_lowercase, "bcd"])
    return "".join(rng.choice(alpha) for _ in range(n)) + "\n"
