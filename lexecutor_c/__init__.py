from lexecutor_c import _core  # noqa: F401
