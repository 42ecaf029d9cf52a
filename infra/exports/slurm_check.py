"""Checks of Slurm topology files, written from Slurm's documented rules.

Block rules (``src/plugins/topology/block/block_record.c``, ``topology.conf(5)``):
at least one ``BlockName``; names unique; ``BlockSizes`` base first, every later size
a multiple of the base by a power of two, increasing, at most 15 doublings
(``MAX_BLOCK_LEVELS 16``); a node in at most one block; names known to ``slurm.conf``.
Aggregates are positional (blocks 0-1, 2-3, ... form level 1), so when the exporter
says which fabric group each block belongs to, every aggregate no larger than a group
must stay inside one group.

Tree rules (``topology.conf(5)``): ``SwitchName`` at most 64 characters and unique;
every switch lists ``Nodes`` or ``Switches``; children exist; no loops; a node under at
most one leaf.

Examples
--------
>>> check_block_conf("BlockName=b1 Nodes=n[1-4]\\nBlockSizes=4,12\\n", ["n1", "n2", "n3", "n4"])
Traceback (most recent call last):
...
infra.exports.common.ExportError: slurm topology.conf: BlockSizes=4,12: 12 is not the 4-node base block size times a power of two (Slurm: fatal "Invalid BlockSizes value")
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from infra.exports.common import ExportError
from infra.exports.hostlist import expand

MAX_NAME = 64
MAX_DOUBLINGS = 15


def _fail(msg: str) -> ExportError:
    return ExportError(f"slurm topology.conf: {msg}")


def parse_conf(text: str) -> list[tuple[int, dict[str, str]]]:
    """(line number, {key: value}) per non-comment line of a ``topology.conf``."""
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        fields = {}
        for tok in line.split():
            key, eq, val = tok.partition("=")
            if not eq:
                raise _fail(f"line {i}: {tok!r} is not Key=Value")
            fields[key] = val
        out.append((i, fields))
    return out


def check_block_sizes(sizes: Sequence[int]) -> None:
    """Slurm's BlockSizes rules (raise on the first broken one)."""
    text = "BlockSizes=" + ",".join(str(s) for s in sizes)
    if not sizes or sizes[0] <= 0:
        raise _fail(f"{text}: the base block size must be a positive node count")
    base = sizes[0]
    prev = 0
    for s in sizes:
        q, r = divmod(s, base)
        if r or q & (q - 1):
            raise _fail(f"{text}: {s} is not the {base}-node base block size times a power of "
                        'two (Slurm: fatal "Invalid BlockSizes value")')
        if s <= prev:
            raise _fail(f"{text}: sizes must increase")
        if q.bit_length() - 1 > MAX_DOUBLINGS:
            raise _fail(f"{text}: {s} is 2^{q.bit_length() - 1} x base; Slurm allows at most "
                        f"2^{MAX_DOUBLINGS}")
        prev = s


def check_block_conf(text: str, names: Sequence[str] | None = None,
                     groups: Mapping[str, str] | None = None) -> None:
    """Check a ``topology/block`` file; ``groups`` maps block -> fabric group."""
    blocks: list[tuple[str, list[str]]] = []
    defined: set[str] = set()
    sizes: list[int] | None = None
    for line, f in parse_conf(text):
        if "BlockName" in f:
            name = f["BlockName"]
            if not name or len(name) > MAX_NAME:
                raise _fail(f"line {line}: block name {name!r} must be 1-{MAX_NAME} characters")
            if name in defined:
                raise _fail(f'line {line}: block {name!r} is defined twice (Slurm: fatal "Block '
                            f'({name}) has already been defined")')
            defined.add(name)
            blocks.append((name, expand(f["Nodes"]) if f.get("Nodes") else []))
        elif "BlockSizes" in f:
            try:
                sizes = [int(x) for x in f["BlockSizes"].split(",")]
            except ValueError:
                raise _fail(f"line {line}: BlockSizes={f['BlockSizes']} is not a list of "
                            "integers") from None
        else:
            raise _fail(f"line {line}: expected BlockName= or BlockSizes=, got {sorted(f)}")
    if not blocks:
        raise _fail('no BlockName lines (Slurm: fatal "No blocks configured")')
    base = len(blocks[0][1]) if sizes is None else sizes[0]
    check_block_sizes(sizes or [base << k for k in range(4)])
    _check_nodes(((b, n) for b, n in blocks), names, "block")
    if groups:
        _check_aggregates([b for b, _ in blocks], sizes or [base], groups)


def _check_nodes(units, names: Sequence[str] | None, what: str) -> None:
    seen: dict[str, str] = {}
    known = set(names) if names is not None else None
    for unit, nodes in units:
        for n in nodes:
            if n in seen:
                raise _fail(f"node {n} is in {what} {seen[n]} and in {what} {unit}")
            if known is not None and n not in known:
                raise _fail(f"{what} {unit}: node {n} is not a node of the design "
                            '(Slurm: "Invalid hostnames")')
            seen[n] = unit


def _check_aggregates(order: list[str], sizes: list[int], groups: Mapping[str, str]) -> None:
    per_group: dict[str, int] = {}
    for b in order:
        per_group[groups[b]] = per_group.get(groups[b], 0) + 1
    smallest = min(per_group.values())
    for s in sizes[1:]:
        k = s // sizes[0]
        if k > smallest:
            break
        for i in range(0, len(order), k):
            agg = order[i:i + k]
            if len({groups[b] for b in agg}) > 1:
                raise _fail(f"the {s}-node aggregate of blocks {agg[0]}..{agg[-1]} spans fabric "
                            f"groups {sorted({groups[b] for b in agg})}: blocks are out of "
                            "fabric order")


def check_tree_conf(text: str, names: Sequence[str] | None = None) -> None:
    """Check a ``topology/tree`` file."""
    switches: dict[str, tuple[list[str], list[str]]] = {}
    for line, f in parse_conf(text):
        name = f.get("SwitchName")
        if name is None:
            raise _fail(f"line {line}: expected SwitchName=, got {sorted(f)}")
        if not name or len(name) > MAX_NAME:
            raise _fail(f"line {line}: switch name {name!r} must be 1-{MAX_NAME} characters")
        if name in switches:
            raise _fail(f"line {line}: switch {name!r} is defined twice")
        nodes = expand(f["Nodes"]) if f.get("Nodes") else []
        kids = expand(f["Switches"]) if f.get("Switches") else []
        if not nodes and not kids:
            raise _fail(f"line {line}: switch {name!r} has neither Nodes= nor Switches=")
        switches[name] = (nodes, kids)
    if not switches:
        raise _fail("no SwitchName lines")
    for name, (_, kids) in switches.items():
        for k in kids:
            if k not in switches:
                raise _fail(f"switch {name!r} lists unknown child switch {k!r}")
    _no_loops(switches)
    _check_nodes(((s, n) for s, (n, _) in switches.items()), names, "leaf switch")


def _no_loops(switches: dict[str, tuple[list[str], list[str]]]) -> None:
    state: dict[str, int] = {}

    def visit(s: str, path: list[str]) -> None:
        if state.get(s) == 1:
            raise _fail("switch loop: " + " -> ".join(path + [s]))
        if state.get(s) == 2:
            return
        state[s] = 1
        for k in switches[s][1]:
            visit(k, path + [s])
        state[s] = 2

    for s in switches:
        visit(s, [])
