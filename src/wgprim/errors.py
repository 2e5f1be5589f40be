"""wgprim's own error type: wraps what wgpu reports with a message that names the fix."""
from __future__ import annotations


class WgprimError(RuntimeError):
    """A GPU-side failure (no adapter, validation, out of memory, device lost), explained."""


class GPUMemoryError(WgprimError, MemoryError):
    """The GPU ran out of memory: the input (or what is still allocated) is too large."""


class OperatorError(WgprimError, ValueError):
    """A user's Monoid is wrong (its WGSL expression or its identity): the user's fix."""


class NoAdapterError(WgprimError):
    """No WebGPU adapter could be found on this machine."""


NO_ADAPTER_HELP = (
    "wgprim found no WebGPU adapter. On Linux without a GPU, install Mesa's software "
    "Vulkan driver (lavapipe): `apt-get install mesa-vulkan-drivers`. With a GPU, install "
    "its Vulkan driver (or Metal on macOS, D3D12 on Windows). `wgprim info` lists what wgpu sees."
)


def explain_gpu_error(error: Exception, doing: str) -> WgprimError:
    """Turn a wgpu exception raised while `doing` something into a WgprimError with a fix."""
    import wgpu

    text = str(error).strip()
    lowered = text.lower()
    if isinstance(error, wgpu.GPUOutOfMemoryError) or "out of memory" in lowered or "not enough memory" in lowered:
        return GPUMemoryError(
            f"{doing} failed: the GPU ran out of memory ({text})\n-> not a bug: the data does not "
            "fit. Use smaller inputs (or process them in parts), free Arrays you no longer need "
            "(`del a`), release the buffers wgprim keeps for reuse (wgprim.memory_pool().free_all_blocks()), "
            "or pick an adapter with more memory (WGPRIM_ADAPTER)."
        )
    if "destroyed" in lowered:
        fix = ("a buffer was destroyed before the work using it ran: a buffer given to Array.from_buffer "
               "(or an Array's .buffer) must stay alive, not .destroy()ed, while wgprim uses it")
    elif "lost" in text.lower():
        fix = "the GPU device was lost (driver reset or a kernel that ran too long); call wgprim.device.reset() to start again"
    elif isinstance(error, wgpu.GPUValidationError):
        fix = "this is a bug in wgprim or in a user-supplied WGSL expression (a custom reduce/scan operator); please report it with `wgprim info`"
    else:
        fix = "see `wgprim info` for the adapter in use"
    return WgprimError(f"{doing} failed: {text}\n-> {fix}")
