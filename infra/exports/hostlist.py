"""Hostlist expressions (``node[01-04,07]``) as Slurm writes and reads them.

Written here rather than taken from python-hostlist (GPL-2.0). Only a trailing number
is ranged: ``r001n01, r001n02`` -> ``r001n[01-02]``; names keep their given order, and a
range only joins names of the same prefix and digit width whose numbers follow on.

Examples
--------
>>> compress(["r001n01", "r001n02", "r001n03", "r001n07", "r002n01", "spare"])
'r001n[01-03,07],r002n01,spare'
>>> expand("r001n[01-03,07],r002n01")
['r001n01', 'r001n02', 'r001n03', 'r001n07', 'r002n01']
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from infra.errors import InfraError

_TAIL = re.compile(r"^(.*?)(\d+)$")
_EXPR = re.compile(r"([^,\[\]]*)(?:\[([^\]]*)\])?")


def compress(names: Sequence[str]) -> str:
    """One hostlist expression for ``names`` (order kept)."""
    items: list = []  # a plain name, or [prefix, width, [[lo, hi], ...]]
    for name in names:
        m = _TAIL.match(name)
        if m is None:
            items.append(name)
            continue
        prefix, digits = m.groups()
        num, width = int(digits), len(digits)
        last = items[-1] if items and isinstance(items[-1], list) else None
        if last and last[0] == prefix and last[1] == width:
            if num == last[2][-1][1] + 1:
                last[2][-1][1] = num
            else:
                last[2].append([num, num])
        else:
            items.append([prefix, width, [[num, num]]])
    return ",".join(x if isinstance(x, str) else _ranged(*x) for x in items)


def _ranged(prefix: str, width: int, ranges: list[list[int]]) -> str:
    parts = [f"{lo:0{width}d}" + ("" if lo == hi else f"-{hi:0{width}d}") for lo, hi in ranges]
    if len(ranges) == 1 and ranges[0][0] == ranges[0][1]:
        return prefix + parts[0]
    return f"{prefix}[{','.join(parts)}]"


def expand(expr: str) -> list[str]:
    """The names of a hostlist expression (one bracket, trailing)."""
    out: list[str] = []
    for m in _EXPR.finditer(expr):
        prefix, body = m.group(1), m.group(2)
        if not prefix and body is None:
            continue
        if body is None:
            out.append(prefix)
            continue
        for part in body.split(","):
            lo, _, hi = part.partition("-")
            if not lo.isdigit() or (hi and not hi.isdigit()):
                raise InfraError(f"bad hostlist range {part!r} in {expr!r}")
            hi = hi or lo
            out += [f"{prefix}{i:0{len(lo)}d}" for i in range(int(lo), int(hi) + 1)]
    return out
