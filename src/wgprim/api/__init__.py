"""The front doors: the numpy-shaped functions and plans, one module per family. Each
validates its arguments and converts its inputs, looks up the building blocks of ops/
(caches.lookup), records them into a Program, runs it and returns the result.
wgprim's package namespace exports them."""
