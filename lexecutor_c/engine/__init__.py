"""The engine: instrument a source, run it with value injection in the sandbox, return a Result.

instrument (the C instrumenter's Python face), run (lexecutor_c.run), sandbox (confinement),
result, runtime (helpers around the C runtime), record and importhook (recording real runs).
Imports nothing from the other parts of the package; keep this file free of imports (the
recorder loads engine modules inside an interpreter that must stay uninstrumented).
"""
