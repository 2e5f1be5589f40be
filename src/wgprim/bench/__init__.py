"""The benchmark harness: wgprim against numpy, CuPy and PyTorch, timed on the GPU."""
