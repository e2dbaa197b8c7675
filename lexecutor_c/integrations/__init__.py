"""Ways into the engine from other tools: the transparent-mode hook, the pytest plugin and the
IPython magics."""
