"""How many network racks of each content a design needs, counted from its templates.

:func:`infra.analysis.layout.placement.network_placement` names and places every fabric switch
(the cabling plan and the exports need that), at a cost linear in the number of nodes:
25 s for a million GPUs. The design report's rack elevations need only how many
switches each network rack holds. This module counts them from the pod definitions: a
fabric group pod's node count times its instances. The cost follows distinct rack
layouts and pod definitions, never the GPU count. The rules are those of
:mod:`infra.analysis.layout.placement` and :mod:`infra.analysis.network.attach`; a test checks that
both give the same elevations.

- Leaves of one group instance, per plane: ``ports x ceil(n / d)`` rail-optimized,
  ``ceil(n x ports / d)`` Clos (``n`` nodes, ``ports`` per node and plane, ``d`` leaf
  down ports); in-rack ToRs: ``min(switches_per_rack, m x ports)`` per rack of ``m``
  nodes.
- Spines, per plane with ``L`` leaves: ``min(u, S)`` in two tiers (leaf uplink *j* goes
  to spine ``j mod S``), ``ceil(L x u / d2)`` in three (uplinks fill spines in order).
  Cores: ``ceil(S x u2 / d3)`` per plane.

Examples
--------
>>> from infra.models.resolve import load_design
>>> [(f.name, tier, k, n) for f, tier, k, n in
...  network_rack_counts(load_design("designs/dgx_h100_superpod.yaml"))]
[('compute', 0, 8, 1), ('compute', 0, 8, 3), ('compute', 1, 16, 1)]
"""

from __future__ import annotations

import math

from infra.analysis.network.fabric import FabricResult, design_fabrics
from infra.errors import InfeasibleDesignError
from infra.models.resolve import ResolvedDesign

NETWORK_RACK = "generic-42u-air-rack"  # = placement.NETWORK_RACK
BOTTOM_FREE_U = 2  # = placement.BOTTOM_FREE_U


def network_rack_counts(rd: ResolvedDesign) -> list[tuple[FabricResult, int, int, int]]:
    """(fabric, tier, switches in the rack, racks) in the order the placement fills racks.

    A group's leaves fill racks of ``per`` switches; its last rack holds the rest.
    """
    out: list[tuple[FabricResult, int, int, int]] = []
    for f in design_fabrics(rd):
        on: dict[str, bool] = {}  # tray slug -> has a NIC on f: once per tray type
        attached = {name: _attached(rd, lay, f, on) for name, lay in rd.layouts.items()}
        ports = f.ports_per_node // f.planes
        d = f.tree.tiers[0].down_ports
        per_rack = f.spec.tiers[0].switches_per_rack
        per_plane = 0  # first-tier switches in one plane
        if per_rack:
            for name, racks in rd.rack_counts.items():
                if racks and attached[name]:
                    k = min(per_rack, attached[name] * ports)
                    _check_tors(rd, f, name, k)
                    per_plane += racks * k
        else:
            for instances, nodes in _groups(rd, f, attached):
                if f.spec.kind == "rail_optimized":
                    leaves = ports * math.ceil(nodes / d)
                else:
                    leaves = math.ceil(nodes * ports / d)
                out += _chunks(rd, f, 0, f.planes * leaves, instances)
                per_plane += instances * leaves
        tree = f.tree.tiers
        if len(tree) > 1 and per_plane:
            u = tree[0].up_ports
            spines = (min(u, tree[1].switches) if len(tree) == 2
                      else math.ceil(per_plane * u / tree[1].down_ports))
            out += _chunks(rd, f, 1, f.planes * spines, 1)
        if len(tree) > 2:
            cores = math.ceil(tree[1].switches * tree[1].up_ports / tree[2].down_ports)
            out += _chunks(rd, f, 2, f.planes * cores, 1)
    return out


def rack_slots(rd: ResolvedDesign, f: FabricResult, tier: int) -> tuple[int, float, int]:
    """(network rack U height, switch height U, switches per rack) for one tier."""
    rack = rd.part(NETWORK_RACK)
    h = float(rd.part(f.tiers[tier].switch).u_height or 1)  # type: ignore[attr-defined]
    return rack.u_height, h, int((rack.u_height - BOTTOM_FREE_U) // (h + 1))  # type: ignore[attr-defined]


def _chunks(rd, f: FabricResult, tier: int, switches: int, instances: int) -> list:
    if not switches or not instances:
        return []
    per = rack_slots(rd, f, tier)[2]
    full, rest = divmod(switches, per)
    return ([(f, tier, per, full * instances)] if full else []) + (
        [(f, tier, rest, instances)] if rest else [])


def _attached(rd: ResolvedDesign, lay, f: FabricResult, on: dict[str, bool]) -> int:
    """Compute trays of one rack of layout ``lay`` with a NIC on ``f``'s networks (``on``:
    the answer per tray slug, filled as asked)."""
    from infra.analysis.layout.identity import _on_fabric

    n = 0
    for i in lay.items:
        if i.part.kind == "compute_tray":
            slug = i.part.slug
            hit = on.get(slug)
            if hit is None:
                hit = on[slug] = _on_fabric(rd, slug, f)
            if hit:
                n += i.count
    return n


def _groups(rd: ResolvedDesign, f: FabricResult, attached: dict[str, int]) -> list[tuple[int, int]]:
    """(instances, nodes per instance) of each fabric group, in the order its first node
    comes in the build (a group is the innermost pod named in ``group:``, else the
    cluster)."""
    pods = rd.design.pods
    names = {g.strip() for g in (f.spec.group or "").split(",") if g.strip()}
    up: dict[str, int] = {}  # nodes of one instance that no group pod inside it takes

    def inner(p) -> int:
        return (sum(n * nodes_up(s) for s, n in p.pods.items())
                + sum(n * attached[r] for r, n in p.racks.items()))

    def nodes_up(name: str) -> int:  # iterative: pod DAGs may be deep
        stack = [name]
        while stack:
            x = stack[-1]
            if x in up:
                stack.pop()
                continue
            if x not in pods:
                up[x] = attached.get(x, 0)
                continue
            todo = [s for s in pods[x].pods if s not in up]
            if todo:
                stack += todo
                continue
            up[x] = 0 if x in names else inner(pods[x])
            stack.pop()
        return up[name]

    order: dict[str, None] = {}  # group pod names; "" for the cluster
    seen: set[tuple[str, str]] = set()
    stack: list[tuple[bool, str, str]] = [(False, b, "")
                                          for b, n in reversed(rd.design.build.items()) if n]
    while stack:
        emit, name, g = stack.pop()
        if emit:
            order.setdefault(g)
            continue
        if (name, g) in seen:
            continue
        seen.add((name, g))
        if name not in pods:
            if attached.get(name):
                order.setdefault(g)
            continue
        k = name if name in names else g
        if any(n and attached[r] for r, n in pods[name].racks.items()):
            stack.append((True, name, k))
        stack += [(False, s, k) for s, n in reversed(pods[name].pods.items()) if n]
    cluster = sum(n * nodes_up(b) for b, n in rd.design.build.items())
    return [(1, cluster) if g == "" else (rd.pod_counts[g], inner(pods[g]))
            for g in order]


def _check_tors(rd: ResolvedDesign, f: FabricResult, layout: str, k: int) -> None:
    """``k`` in-rack ToRs stack from U1 up; they must end below the layout's lowest unit."""
    from infra.analysis.layout.elevation import unit_positions

    t = f.tiers[0]
    h = float(rd.part(t.switch).u_height or 1)  # type: ignore[attr-defined]
    lay = rd.layouts[layout]
    low = min((pos for _, pos in unit_positions(lay) if pos), default=lay.rack.u_height + 1)
    if int(1 + (k - 1) * h) + h - 1 >= low:
        raise tor_overflow(rd, f, f"rack layout {layout!r}", low, h)


def tor_overflow(rd: ResolvedDesign, f: FabricResult, where: str, low: int,
                 h: float) -> InfeasibleDesignError:
    """The error for in-rack ToRs that do not fit below a rack's lowest unit ``low``."""
    n = f.spec.tiers[0].switches_per_rack
    return InfeasibleDesignError(
        f"fabric {f.name!r}: {where} has {low - 1}U free below its contents, {n} x {h:g}U "
        f"ToRs need {n * h:g}U",
        file=str(rd.file), path=("fabrics", f.name, "tiers", 0, "switches_per_rack"),
        hint="use fewer or smaller ToRs, or list them in the rack's contents")
