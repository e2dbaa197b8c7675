"""Shared test settings."""
import os

import pytest

# `make asan` sets this: AddressSanitizer reserves terabytes of shadow address
# space, so an RLIMIT_AS memory cap cannot be tested under it.
UNDER_ASAN = bool(os.environ.get("LX_UNDER_ASAN"))

needs_address_space_limit = pytest.mark.skipif(
    UNDER_ASAN, reason="RLIMIT_AS cannot be enforced under AddressSanitizer")
