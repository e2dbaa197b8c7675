"""The version, in one place: the package (``lexecutor_c.__version__``), the build
(pyproject.toml reads it) and ``lexecutor-c --version``."""
__version__ = "0.1.0"
