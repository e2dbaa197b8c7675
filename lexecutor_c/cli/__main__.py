"""python -m lexecutor_c.cli"""
import sys

from lexecutor_c.cli import main

sys.exit(main())
