"""The hostile-input suite (make security); see test_probes.py."""
