"""The building blocks: recorders, the Python sides of the kernels, and their helpers
(operators, order keys, error bounds, chunking), one module per family. Nothing here
imports wgprim.api (the front doors) and the imports among these modules have no cycle
(tests/test_layers.py)."""
