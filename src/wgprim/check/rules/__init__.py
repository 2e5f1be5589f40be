"""The rules of `wgprim check`, one module each.

Every rule module defines `ID` (stable, used by --select/--ignore and suppressions),
`SUMMARY` (one line), `SEVERITY`, `HINT` (what to write instead, in one line), `DOC`
(markdown: what it flags, why it is wrong, what to write instead) and
`check(entries) -> iterable of Finding`.
"""
from __future__ import annotations

from . import flag_publish, global_barrier, lookback_depth, nonuniform_barrier, same_dispatch_read, spin_wait

ALL = [spin_wait, flag_publish, global_barrier, same_dispatch_read, nonuniform_barrier, lookback_depth]
BY_ID = {rule.ID: rule for rule in ALL}
