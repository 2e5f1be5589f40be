"""Show the adapters wgpu sees, and the backend, limits and features wgprim uses."""
from __future__ import annotations

import argparse
import json


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def describe() -> dict:
    from wgprim.device import get_device, list_adapters
    from wgprim.device import OPTIONAL_FEATURES, RAISED_LIMITS

    dev = get_device()
    limits = {k: dev.limits[k] for k in RAISED_LIMITS + ("min-storage-buffer-offset-alignment",) if k in dev.limits}
    return {
        "adapters": list_adapters(),
        "adapter": dev.summary,
        "backend": dev.backend,
        "limits": limits,
        "features": {f: f in dev.features for f in OPTIONAL_FEATURES},
        "max_binding_bytes": dev.max_binding_bytes,
    }


def run(args) -> int:
    from wgprim.errors import NoAdapterError

    try:
        info = describe()
    except NoAdapterError as error:
        print(f"error: {error}")
        return 1
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    print("adapters wgpu sees:")
    for a in info["adapters"]:
        print(f"  {a}")
    print(f"wgprim uses: {info['adapter']} (backend {info['backend']})")
    print("  choose another with WGPRIM_ADAPTER=<part of its name> or wgprim.use_adapter(name)")
    print("limits:")
    for k, v in info["limits"].items():
        print(f"  {k:40s} {v:>16,}")
    print("optional features:")
    for k, v in info["features"].items():
        print(f"  {k:40s} {'yes' if v else 'no'}")
    return 0
