"""Tuning as values.

Each family of kernels declares its choices (tile shapes, which schedule, spin budgets, the
fault injection that tests use to force a fallback) as one frozen dataclass, its *policy*,
whose defaults are what wgprim ships. A policy whose defaults depend on the device has a
classmethod `for_device(device)`.

Code that records kernels asks `policy(SortPolicy, device)` for the one in force: the
defaults, with any fields that `using(SortPolicy, use_match=False)` changed for the block it
encloses (tests, measurements; this thread or task only, through a context variable).
Functions may also take a policy as an argument and pass it down.

A policy is a value: equal fields, equal policy, same hash. Each family puts the policy it
used in its own cache keys, and `in_force()` is part of every kept recording's key, so a
changed choice never meets a recording or a sorter made for another.
"""
from __future__ import annotations

import contextlib
import contextvars
import dataclasses
from typing import Iterator, TypeVar

P = TypeVar("P")

# ((policy class, ((field, value), ...)), ...): the changes in force, innermost last.
_changes: contextvars.ContextVar[tuple] = contextvars.ContextVar("wgprim_policy_changes", default=())
# Policies are read on every call of a front door: the defaults of a class without
# for_device, and the result of applying changes, are made once (bounded, a few entries).
_plain_defaults: dict = {}
_changed: dict = {}
_CHANGED_KEPT = 256


def defaults(cls: type[P], device=None) -> P:
    """The policy wgprim ships for this device (the class's own defaults where it has no
    `for_device`, or where no device is given)."""
    make = getattr(cls, "for_device", None)
    if make is not None and device is not None:
        return make(device)
    found = _plain_defaults.get(cls)
    if found is None:
        found = _plain_defaults[cls] = cls()
    return found


def policy(cls: type[P], device=None) -> P:
    """The policy in force: the defaults with every change `using` made for this class."""
    found = defaults(cls, device)
    in_effect = _changes.get()
    if not in_effect:
        return found
    changed = {}
    for kind, fields in in_effect:
        if kind is cls:
            changed.update(fields)
    if not changed:
        return found
    try:
        key = (found, tuple(changed.items()))
        made = _changed.get(key)
    except TypeError:  # an unhashable value: made anew each time
        return dataclasses.replace(found, **changed)
    if made is None:
        made = dataclasses.replace(found, **changed)  # raises here for a value the policy refuses
        if len(_changed) >= _CHANGED_KEPT:
            _changed.pop(next(iter(_changed), None), None)
        _changed[key] = made
    return made


@contextlib.contextmanager
def using(cls: type, **changes) -> Iterator[None]:
    """Change fields of a family's policy inside the block: `with using(SortPolicy,
    use_match=False): ...`. Unknown field names raise TypeError here, not later."""
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        raise TypeError(f"using() takes a policy class (a frozen dataclass), not {cls!r}")
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(changes) - names)
    if unknown:
        raise TypeError(f"{cls.__name__} has no field {', '.join(unknown)} (its fields: {', '.join(sorted(names))})")
    token = _changes.set(_changes.get() + ((cls, tuple(sorted(changes.items()))),))
    try:
        yield
    finally:
        _changes.reset(token)


def in_force() -> tuple:
    """The changes in force, as a hashable value (part of every kept recording's key)."""
    return tuple((f"{kind.__module__}.{kind.__qualname__}", fields) for kind, fields in _changes.get())
