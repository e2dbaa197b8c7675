"""Independent generator of valid inputs (for labelling only)."""
import string
def gen(rng):
    return "".join(rng.choice(string.ascii_uppercase) for _ in range(rng.randint(1, 6))) + "\n"
