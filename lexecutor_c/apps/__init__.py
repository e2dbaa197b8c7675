"""Applications built on the engine and the prefix tree: commits, errors, trace."""
