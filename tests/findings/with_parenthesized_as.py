import contextlib
for _ in range(1):
    with (contextlib.nullcontext() as cm):
        pass
