"""gpu_cluster: a dask.distributed LocalCluster with one single-threaded worker process
per GPU, each pinned to its adapter through WGPRIM_ADAPTER=<index into list_adapters()>.

One thread per worker because a worker's GPU runs one wgprim call at a time anyway, and
one process per GPU because wgprim opens one device per process. On several machines, start
the same workers by hand: `WGPRIM_ADAPTER=0 dask worker tcp://scheduler:8786 --nthreads 1`
(one per GPU, index 0, 1, ...), then `Client("tcp://scheduler:8786")`; the functions of
wgprim.dask do not care which.
"""
from __future__ import annotations

import copy

import wgprim


def gpu_adapters() -> list[int]:
    """Indices (into wgprim.list_adapters()) of one adapter per device: GPUs before CPU
    (software) adapters, native backends (Vulkan, Metal, D3D12) before OpenGL, which lists
    the same devices again."""
    summaries = wgprim.list_adapters()
    native = [i for i, s in enumerate(summaries) if "opengl" not in s.lower()] or list(range(len(summaries)))
    gpus = [i for i in native if "(cpu)" not in summaries[i].lower()]
    return gpus or native


def gpu_cluster(n_workers: int | None = None, adapters=None, **kwargs):
    """Start a LocalCluster with one worker process per adapter of `gpu_adapters()` (or
    `n_workers`, sharing the adapters round-robin), threads_per_worker=1, each worker's
    WGPRIM_ADAPTER set to its adapter's index. Other keywords go to LocalCluster. Returns
    the cluster; `cluster.get_client()` (or `Client(cluster)`) connects to it."""
    from distributed import LocalCluster

    adapters = gpu_adapters() if adapters is None else [int(a) for a in adapters]
    if not adapters:
        raise wgprim.NoAdapterError("no WebGPU adapter found for the workers (see `wgprim info`)")
    n = len(adapters) if n_workers is None else int(n_workers)
    if kwargs.pop("processes", True) is not True:
        raise ValueError("gpu_cluster needs worker processes (one device per process)")
    kwargs.setdefault("threads_per_worker", 1)
    kwargs.setdefault("dashboard_address", None)
    cluster = LocalCluster(n_workers=0, processes=True, **kwargs)
    for i in range(n):
        spec = copy.deepcopy(cluster.new_spec)
        options = spec.setdefault("options", {})
        options["env"] = {**options.get("env", {}), "WGPRIM_ADAPTER": str(adapters[i % len(adapters)])}
        cluster.worker_spec[i] = spec
    cluster.scale(n)
    cluster.wait_for_workers(n)
    return cluster
