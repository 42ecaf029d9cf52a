"""What a scheduler needs to know about a design: NVLink blocks and the switch tree.

Computed here once; the Slurm and Kubernetes exports only format it.

Blocks (Slurm ``topology/block``)
---------------------------------
- One base block per scale-up domain, in build order (= fabric order: the design's
  leaf groups hold consecutive domains). A domain over ``R`` racks, ``R`` a power of
  two, gives one base block per rack and the domain is the first aggregate
  (NVL36x2: ``BlockSizes=9,18``, topograph #415).
- Slurm aggregates blocks by their position in the file (``block_record.c``), so every
  fabric group is padded with empty placeholder blocks up to the largest group's slot
  count, rounded up to a power of two when there are several groups: aggregates then
  never straddle a group boundary and a smaller SU keeps its neighbours aligned.
- ``BlockSizes`` = base x 2^k for k = 0..K, K = floor(log2(blocks incl. placeholders)),
  at most 15 (topograph's ``[D, 2D, ..., 2^k D]`` rule).
- Domains of one node (an HGX server) give no block topology.

Tree (Slurm ``topology/tree``, topograph tiers)
-----------------------------------------------
- First-tier switches whose node sets overlap are merged into one logical switch (a
  rail-optimized SU's rail leaves carry the same nodes; so do a rack's in-rack ToRs), as
  topograph's merger does. A rail-optimized SU of up to ``d`` nodes is one logical leaf
  (named after the SU); larger SUs give one per leaf index (``su0.leaf1``).
- Two tiers: every leaf reaches every spine, so the spines collapse to one ``spine``
  switch. Three tiers: spines reaching overlapping logical leaves merge per leaf group,
  under one ``core``.

Examples
--------
>>> from infra.models.resolve import load_design
>>> from infra.analysis.layout.identity import node_identities
>>> rd = load_design("designs/gb200_nvl72_576.yaml")
>>> b = block_topology(rd, node_identities(rd))
>>> b.sizes, len(b.blocks), b.blocks[0].name, len(b.blocks[0].nodes)
((18, 36, 72, 144), 8, 'su0.r0', 18)
>>> t = tree_topology(rd, node_identities(rd))
>>> [(s.name, len(s.nodes), s.switches) for s in t.switches][-2:]
[('su0.leaf4', 16, ()), ('spine', 0, ('su0.leaf0', 'su0.leaf1', 'su0.leaf2', 'su0.leaf3', 'su0.leaf4'))]
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from infra.analysis.layout.identity import NodeIdentity
from infra.models.resolve import ResolvedDesign

MAX_BLOCK_LEVELS = 16  # Slurm block_record.h: sizes 2^0 .. 2^15 of the base


@dataclass(frozen=True)
class Block:
    """One base block; ``domain`` None marks an empty placeholder."""

    name: str
    nodes: tuple[str, ...]  # host names
    domain: str | None  # design NVLink domain id
    group: str
    rack: str | None = None  # the rack, when a block is one rack of a multi-rack domain


@dataclass(frozen=True)
class BlockTopology:
    blocks: tuple[Block, ...]
    sizes: tuple[int, ...]  # BlockSizes: base first
    basis: str  # how the base was chosen, for the file's comment


@dataclass(frozen=True)
class TreeSwitch:
    name: str
    tier: int  # 0 = closest to the nodes
    nodes: tuple[str, ...]  # host names (leaves only)
    switches: tuple[str, ...]  # children (upper tiers only)
    members: tuple[str, ...]  # the design switches merged into this logical one


@dataclass(frozen=True)
class TreeTopology:
    fabric: str
    switches: tuple[TreeSwitch, ...]  # leaves first, root last

    def tiers_of(self, host: str) -> tuple[str, ...]:
        """Logical switch names above ``host``, closest first."""
        return self._tiers.get(host, ())

    @cached_property
    def _tiers(self) -> dict[str, tuple[str, ...]]:
        # built once (a scan of every switch per host made the k8s export O(nodes x switches));
        # a host under several leaves keeps the first, as the scan did
        up = {c: s.name for s in self.switches for c in s.switches}
        chains: dict[str, tuple[str, ...]] = {}
        out: dict[str, tuple[str, ...]] = {}
        for s in self.switches:
            if not s.nodes:
                continue
            chain = chains.get(s.name)
            if chain is None:
                names, leaf = [], s.name
                while leaf is not None:
                    names.append(leaf)
                    leaf = up.get(leaf)
                chain = chains[s.name] = tuple(names)
            for h in s.nodes:
                out.setdefault(h, chain)
        return out


def natural_key(name: str) -> list:
    """Sort key that puts ``spine2`` before ``spine10``."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def unit_name(path: str) -> str:
    """Scheduler-safe name of a design path: ``su0/r3`` -> ``su0.r3``."""
    return path.replace("/", ".")


def block_topology(rd: ResolvedDesign, ids: Sequence[NodeIdentity]) -> BlockTopology | None:
    """NVLink domains as Slurm base blocks (None when every domain is one node)."""
    domains: dict[str, list[NodeIdentity]] = {}
    for n in ids:
        domains.setdefault(n.domain, []).append(n)
    if all(len(v) == 1 for v in domains.values()):
        return None
    racks_per = {len({n.sub_domain for n in v}) for v in domains.values()}
    r = max(racks_per)
    two_level = (len(racks_per) == 1 and r > 1 and r & (r - 1) == 0
                 and all(n.sub_domain for n in ids))
    units: list[tuple[str, str, list[NodeIdentity]]] = []  # (unit id, group, nodes)
    dom_of: dict[str, str] = {}
    for did, nodes in domains.items():
        group = _group(rd, nodes[0])
        if two_level:
            racks: dict[str, list[NodeIdentity]] = {}
            for n in nodes:
                racks.setdefault(n.sub_domain or did, []).append(n)
            units += [(r, group, v) for r, v in racks.items()]
            dom_of.update({r: did for r in racks})
        else:
            units.append((did, group, nodes))
    base = max(len(v) for _, _, v in units)
    by_group: dict[str, list] = {}
    for u in units:
        by_group.setdefault(u[1], []).append(u)
    slots = max(len(v) for v in by_group.values())
    if len(by_group) > 1:
        slots = 1 << (slots - 1).bit_length()
    blocks: list[Block] = []
    for group, us in by_group.items():
        blocks += [Block(unit_name(uid), tuple(n.name for n in v), dom_of.get(uid, uid), group,
                         uid if uid in dom_of else None) for uid, _, v in us]
        blocks += [Block(f"{unit_name(group)}.absent{k}", (), None, group)
                   for k in range(len(us), slots)]
    levels = min(int(math.log2(len(blocks))), MAX_BLOCK_LEVELS - 1)
    sizes = tuple(base << k for k in range(levels + 1))
    per = "rack (the domain spans racks)" if two_level else "NVLink domain"
    basis = f"base block = one {per} of {base} nodes; {len(blocks)} blocks"
    if len(by_group) > 1:
        basis += f"; {slots} slots per fabric group {sorted(by_group)}"
    return BlockTopology(tuple(blocks), sizes, basis)


def _group(rd: ResolvedDesign, n: NodeIdentity) -> str:
    return n.groups[0][1] if n.groups else "cluster"


def tree_topology(rd: ResolvedDesign, ids: Sequence[NodeIdentity],
                  fabric: str | None = None) -> TreeTopology | None:
    """The logical switch tree of ``fabric`` (default: the first scale-out fabric)."""
    from infra.analysis.network.attach import spine_of
    from infra.analysis.network.fabric import design_fabrics

    fabrics = {f.name: f for f in design_fabrics(rd)}
    if not fabrics:
        return None
    if fabric is None:
        fabric = next((f.name for f in fabrics.values() if "scale_out" in f.spec.networks),
                      next(iter(fabrics)))
    f = fabrics[fabric]
    leaf_nodes: dict[str, list[str]] = {}
    for n in ids:
        for name, leaves in n.leaves:
            if name == fabric:
                for leaf in leaves:
                    leaf_nodes.setdefault(leaf, []).append(n.name)
    groups = _merge({k: set(v) for k, v in leaf_nodes.items()})
    hosts = {n.name: n for n in ids}
    order = {n.name: n.index for n in ids}
    logical = _name_leaves(f, groups, leaf_nodes, hosts, order)
    switches = [TreeSwitch(name, 0, tuple(sorted({h for m in mem for h in leaf_nodes[m]},
                                                 key=order.get)), (), tuple(sorted(mem, key=natural_key)))
                for name, mem in logical]
    if len(f.tree.tiers) == 2:
        switches.append(TreeSwitch("spine", 1, (), tuple(s.name for s in switches),
                                   tuple(sorted({u[2] for u in spine_of(f, sorted(leaf_nodes))},
                                                key=natural_key))))
    elif len(f.tree.tiers) == 3:
        switches += _spine_groups(f, switches, sorted(leaf_nodes))
    return TreeTopology(fabric, tuple(switches))


def _merge(sets: dict[str, set]) -> list[list[str]]:
    """Keys whose sets overlap, merged (union-find), in first-key order."""
    parent = {k: k for k in sets}

    def find(k):
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    owner: dict = {}
    for k, s in sets.items():
        for x in s:
            if x in owner:
                parent[find(k)] = find(owner[x])
            else:
                owner[x] = k
    out: dict[str, list[str]] = {}
    for k in sets:
        out.setdefault(find(k), []).append(k)
    return list(out.values())


def _name_leaves(f, groups, leaf_nodes, hosts, order) -> list[tuple[str, list[str]]]:
    keyed = []
    for mem in groups:
        first = min((h for m in mem for h in leaf_nodes[m]), key=order.get)
        keyed.append((order[first], mem, hosts[first]))
    keyed.sort(key=lambda x: x[0])
    per_group: dict[str, int] = {}
    for _, _, n in keyed:
        g = dict(n.groups).get(f.name, "cluster")
        per_group[g] = per_group.get(g, 0) + 1
    out, seen = [], {}
    for _, mem, n in keyed:
        g = dict(n.groups).get(f.name, "cluster")
        if f.spec.tiers[0].switches_per_rack:
            name = unit_name(n.rack)
        elif per_group[g] == 1:
            name = unit_name(g)
        else:
            name = f"{unit_name(g)}.leaf{seen.get(g, 0)}"
        seen[g] = seen.get(g, 0) + 1
        out.append((name, mem))
    return out


def _spine_groups(f, leaves: list[TreeSwitch], leaf_names: list[str]) -> list[TreeSwitch]:
    from infra.analysis.network.attach import spine_of

    logical_of = {m: s.name for s in leaves for m in s.members}
    position: dict[str, int] = {}
    for i, s in enumerate(leaves):
        position.setdefault(s.name, i)
    reach: dict[str, set] = {}
    for leaf, _, spine, _ in spine_of(f, leaf_names):
        reach.setdefault(spine, set()).add(logical_of[leaf])
    out = []
    for i, mem in enumerate(_merge(reach)):
        kids = sorted({c for m in mem for c in reach[m]}, key=position.__getitem__)
        out.append(TreeSwitch(f"spine{i}", 1, (), tuple(kids), tuple(sorted(mem, key=natural_key))))
    out.append(TreeSwitch("core", 2, (), tuple(s.name for s in out), ()))
    return out
