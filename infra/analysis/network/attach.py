"""Which first-tier switch port each node port of a fabric lands on (one rule, shared).

Used by the cabling plan, node identities (a node's leaves) and the scheduler
topologies, so all three agree. Rules (stated so a cabling vendor can follow them):

- Node ports are numbered ``p1..pP`` in NIC order; with several planes, plane *q* takes
  ports ``q*P/planes + 1 ..``; switch names get a ``plane<q>.`` prefix.
- Every fabric after the design's first prefixes its switch names with ``<fabric>.``
  (``inband.spine0``), so no two fabrics name a switch alike.
- Rail-optimized: node *i* of its group, rail *r* -> leaf ``<group>.rail<r>.leaf<i // d>``
  port ``i % d + 1`` (``d`` = leaf down ports).
- Clos: the group's node ports fill leaves ``<group>.leaf<k>`` in order.
- In-rack ToRs: a rack's ports are dealt round-robin over its ToRs
  ``<rack>.tor<j>`` (so one GPU's two ports land on two ToRs).
- Leaf ports are numbered from 1 in the order the node ports arrive.

Examples
--------
>>> from infra.analysis.network.fabric import design_fabrics
>>> from infra.models.resolve import load_design
>>> rd = load_design("designs/dgx_h100_su.yaml")
>>> f = design_fabrics(rd)[0]
>>> ports = leaf_ports(f, [("su0/r0", "su0")] * 2)
>>> ports[1][:2]
(Attachment(port='p1', leaf='su0.rail0.leaf0', leaf_port=2), Attachment(port='p2', leaf='su0.rail1.leaf0', leaf_port=2))
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from infra.analysis.network.fabric import FabricResult


@dataclass(frozen=True)
class Attachment:
    """One node port and the first-tier switch port it is cabled to."""

    port: str  # node port, p1..pP
    leaf: str  # first-tier switch name
    leaf_port: int  # 1-based


def leaf_ports(f: FabricResult, nodes: Sequence[tuple[str, str]]) -> list[tuple[Attachment, ...]]:
    """Attachments of every node port, per node, in the order of ``nodes``.

    Parameters
    ----------
    f : FabricResult
        A sized fabric (:func:`infra.analysis.network.fabric.design_fabrics`).
    nodes : sequence of (rack path, group path)
        The fabric's nodes in build order (:func:`infra.analysis.layout.identity.node_identities`).

    Returns
    -------
    list of tuple of Attachment
        One tuple per node, in port order (all planes).
    """
    return [tuple(Attachment(*a) for a in att) for att in _attach(f, nodes)]


def leaf_names(f: FabricResult, nodes: Sequence[tuple[str, str]]) -> list[tuple[str, ...]]:
    """The first-tier switch of every node port, per node (:func:`leaf_ports`' leaves,
    without building an :class:`Attachment` per port)."""
    return [tuple(a[1] for a in att) for att in _attach(f, nodes)]


def _attach(f: FabricResult, nodes: Sequence[tuple[str, str]]) -> list[list[tuple[str, str, int]]]:
    ports = f.ports_per_node // f.planes
    d = f.tree.tiers[0].down_ports
    per_rack = f.spec.tiers[0].switches_per_rack
    out: list[list[tuple[str, str, int]]] = [[] for _ in nodes]
    for plane in range(f.planes):
        pre = f.prefix + (f"plane{plane}." if f.planes > 1 else "")
        used: dict[str, int] = {}
        by_group: dict[str, int] = {}
        by_rack: dict[str, int] = {}
        for n, (rack, group) in enumerate(nodes):
            i = by_group.get(group, 0)
            by_group[group] = i + 1
            for r in range(ports):
                if per_rack:
                    j = by_rack.get(rack, 0)
                    by_rack[rack] = j + 1
                    leaf = f"{pre}{rack}.tor{j % per_rack}"
                elif f.spec.kind == "rail_optimized":
                    leaf = f"{pre}{group}.rail{r}.leaf{i // d}"
                else:
                    leaf = f"{pre}{group}.leaf{(i * ports + r) // d}"
                used[leaf] = k = used.get(leaf, 0) + 1
                out[n].append((f"p{plane * ports + r + 1}", leaf, k))
    return out


def spine_of(f: FabricResult, leaves: Sequence[str]) -> Iterator[tuple[str, int, str, int]]:
    """Leaf uplinks: (leaf, uplink number, spine, spine port), in leaf order, one at a
    time (a 1M-GPU fabric has millions of uplinks: callers read them once).

    Two tiers: leaf uplink *j* goes to spine ``j mod S`` (every leaf reaches every spine
    evenly). Three tiers: pods of ``d`` leaves (``d`` a spine's down ports), each over its
    own ``u`` spines, leaf uplink *j* to the pod's spine *j* (a k-ary fat tree: every leaf
    reaches ``u`` spines, every spine ``d`` leaves). A spine tier built per
    pod (``group``, ``B`` blocks) takes the leaves in ``B`` equal runs; run *b*'s uplinks
    go round-robin over block *b*'s ``S / B`` spines only, so every leaf reaches every
    spine of its pod and no spine serves two pods (at most ``ceil(links / (S / B))`` per
    spine, within its down ports by the sizing). Spine ports are numbered from 1 in
    arrival order.
    """
    tree = f.tree.tiers
    if len(tree) < 2:
        return
    u = tree[0].up_ports
    spines = tree[1].switches
    blocks = f.blocks[1] if len(f.blocks) > 1 else 1
    per_block_leaves = tree[0].switches // blocks
    per_block_spines = spines // blocks
    index: dict[str, int] = {}  # leaves seen per plane
    per_plane: dict[str, tuple[dict, dict]] = {}  # spine number -> name, -> ports used
    for leaf in leaves:
        rest = leaf[len(f.prefix):]
        pre = f.prefix + (rest.split(".", 1)[0] + "." if rest.startswith("plane") else "")
        li = index.get(pre, 0)
        index[pre] = li + 1
        got = per_plane.get(pre)
        if got is None:
            got = per_plane[pre] = ({}, {})
        names, ports = got
        b, lb = divmod(li, per_block_leaves) if blocks > 1 else (0, li)
        for j in range(u):
            if len(tree) == 2:
                s = j % spines
            elif blocks > 1:  # round-robin over the pod's own spines: each leaf reaches all
                s = b * per_block_spines + (lb * u + j) % per_block_spines
            else:  # pods of d leaves (d: a spine's down ports) over u spines each, as a
                # k-ary fat tree: uplink j of a leaf goes to its pod's spine j (the last,
                # partial pod spreads over the spines left, round-robin)
                first = (li // tree[1].down_ports) * u
                s = first + j % max(1, min(u, spines - first))
            c = ports[s] = ports.get(s, 0) + 1
            name = names.get(s)
            if name is None:
                name = names[s] = f"{pre}spine{s}"
            yield leaf, j + 1, name, c


def core_of(f: FabricResult) -> Iterator[tuple[str, int, str, int]]:
    """Spine uplinks of a three-tier fabric: (spine, uplink, core, core port), one at a time.

    The spines' uplinks go round-robin over the cores (spine *s* uplink *j* -> core
    ``(s * u + j) mod C``, its port the arrivals so far), per plane: each spine reaches
    ``min(u, C)`` distinct cores, every pod (whose spines carry at least ``C`` uplinks)
    reaches every core, and no core takes more than ``ceil(links / C)`` <= its ports.
    """
    tree = f.tree.tiers
    if len(tree) < 3:
        return
    u, n_cores = tree[1].up_ports, max(1, tree[2].switches)
    for plane in range(f.planes):
        pre = f.prefix + (f"plane{plane}." if f.planes > 1 else "")
        cores: dict[int, str] = {}
        for s in range(tree[1].switches):
            spine = f"{pre}spine{s}"
            for j in range(u):
                # round-robin: the n-th uplink is core n mod C's port n // C + 1
                port, c = divmod(s * u + j, n_cores)
                core = cores.get(c)
                if core is None:
                    core = cores[c] = f"{pre}core{c}"
                yield spine, j + 1, core, port + 1
