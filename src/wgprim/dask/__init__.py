"""wgprim on Dask: the primitives over dask arrays larger than one GPU buffer, one GPU, or
one machine. Every chunk is computed by wgprim on its worker's GPU and the pieces are
combined with dask's own machinery; nothing pulls the whole array into one process.

    import dask.array as da, wgprim.dask as wd
    client = wd.gpu_cluster().get_client()     # one worker process per GPU
    x = da.random.random(2**32, chunks=2**27).astype("float32")
    wd.sum(x).compute(); wd.histogram(x, bins=256, range=(0, 1))[0].compute()

Needs the optional extra: pip install 'wgprim[dask]'.
"""
from wgprim.dask.cluster import gpu_adapters, gpu_cluster
from wgprim.dask.histogram import bincount, histogram
from wgprim.dask.reductions import argmax, argmin, max, min, prod, reduce, sum, sum_error_bound
from wgprim.dask.scan import cumsum, cumsum_error_bound, scan
from wgprim.dask.sort import argsort, sort, topk
from wgprim.dask.unique import unique

__all__ = [
    "gpu_cluster", "gpu_adapters",
    "reduce", "sum", "prod", "min", "max", "argmin", "argmax", "sum_error_bound",
    "scan", "cumsum", "cumsum_error_bound",
    "histogram", "bincount", "unique", "topk", "sort", "argsort",
]
