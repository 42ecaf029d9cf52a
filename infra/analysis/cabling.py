"""Point-to-point cabling plan of a fabric: rack / U / port at both ends.

For fabrics up to ``max_gpus`` GPUs every link gets a row; beyond, one summary row per
link type. Conventions (stated so a cabling vendor can follow them):

- Racks are numbered in build order (``<pod path>/r<k>``); a rack's contents are listed
  top to bottom and take U positions from the top (U1 = lowest slot).
- Node ports are numbered ``p1..pP`` in NIC order; rail *r* is port ``p(r+1)``.
- Rail-optimized: node *i* of a group, rail *r* -> leaf ``<group>.rail<r>.leaf<i // d>``
  port ``i % d + 1``. Clos: node ports fill leaves in order. In-rack ToRs: a rack's ports
  are dealt round-robin over its ToRs (so one GPU's two ports land on two ToRs).
- Uplinks: leaf uplink *j* goes to spine ``j mod S``; spine ports fill in order.
"""

from __future__ import annotations

from dataclasses import dataclass

from infra.analysis.attach import leaf_ports, spine_of
from infra.analysis.elevation import unit_positions
from infra.analysis.fabric import FabricResult
from infra.analysis.identity import node_identities
from infra.models.resolve import ResolvedDesign


def cabling_plan(rd: ResolvedDesign, f: FabricResult, max_gpus: int = 4096) -> list[dict]:
    """Rows of the plan (or the per-link-type summary above ``max_gpus``)."""
    if f.gpus > max_gpus:
        return [{"fabric": f.name, "tier": t.role, "links": t.down_links,
                 "lower_end": t.lower_end or "-", "switch_end": t.switch_end or "-",
                 "cable": t.cable, "cables": t.cables,
                 "note": f"summary: {f.gpus:,} GPUs is above the {max_gpus:,}-GPU plan limit"}
                for t in f.tiers]
    nodes = [n for n in node_identities(rd) if n.group(f.name) is not None]
    atts = leaf_ports(f, [(n.rack, n.group(f.name)) for n in nodes])
    t0 = f.tiers[0]
    media0 = _media(t0)
    rows = []
    leaves: list[str] = []
    for n, att in zip(nodes, atts):
        for a in att:
            rows.append({"fabric": f.name, "tier": t0.role, "from_rack": n.rack,
                         "from_u": n.u, "from_device": n.path, "from_port": a.port,
                         "to_device": a.leaf, "to_port": a.leaf_port, "media": media0})
            leaves.append(a.leaf)
    if len(f.tiers) > 1:
        media = _media(f.tiers[1])
        for leaf, j, spine, sp in spine_of(f, sorted(set(leaves))):
            rows.append({"fabric": f.name, "tier": f.tiers[1].role, "from_rack": "-",
                         "from_u": None, "from_device": leaf, "from_port": f"up{j}",
                         "to_device": spine, "to_port": sp, "media": media})
    return rows


def _media(t) -> str:
    if t.lower_end or t.switch_end:
        return f"{t.lower_end or '-'} / {t.switch_end or '-'} + {t.cable}"
    return t.cable or "-"



# Kept for infra.ingest.slots until it uses infra.analysis.identity (same paths as before).
@dataclass(frozen=True)
class NodeSlot:
    rack: str
    u: int | None  # lowest U the unit occupies
    node: str
    group: str


def node_slots(rd: ResolvedDesign, groups: set[str]) -> list[NodeSlot]:
    """Every compute tray of the design in build order with its rack and U."""
    out: list[NodeSlot] = []

    def rack(layout: str, name: str, group: str) -> None:
        trays = [pos for item, pos in unit_positions(rd.layouts[layout])
                 if item.part.kind == "compute_tray"]
        for t, pos in enumerate(trays):
            out.append(NodeSlot(name, pos, f"{name}/t{t}", group))

    def visit(name: str, path: str, group: str) -> None:
        if name in rd.design.racks:
            rack(name, path, group)
            return
        pod = rd.design.pods[name]
        g = path if name in groups else group
        k = 0
        for sub, n in pod.pods.items():
            for i in range(n):
                visit(sub, f"{path}/{sub}{i}", g)
        for r, n in pod.racks.items():
            for _ in range(n):
                rack(r, f"{path}/r{k}", g)
                k += 1

    for name, n in rd.design.build.items():
        for i in range(n):
            visit(name, f"{name}{i}", "cluster")
    return out
