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

from infra.analysis.elevation import unit_positions
from infra.analysis.fabric import FabricResult
from infra.models.resolve import ResolvedDesign


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


def cabling_plan(rd: ResolvedDesign, f: FabricResult, max_gpus: int = 4096) -> list[dict]:
    """Rows of the plan (or the per-link-type summary above ``max_gpus``)."""
    if f.gpus > max_gpus:
        return [{"fabric": f.name, "tier": t.role, "links": t.down_links,
                 "lower_end": t.lower_end or "-", "switch_end": t.switch_end or "-",
                 "cable": t.cable, "cables": t.cables,
                 "note": f"summary: {f.gpus:,} GPUs is above the {max_gpus:,}-GPU plan limit"}
                for t in f.tiers]
    groups = {g.strip() for g in (f.spec.group or "").split(",") if g.strip()}
    nodes = node_slots(rd, groups)
    ports = f.ports_per_node // f.planes
    tree = f.tree.tiers
    d = tree[0].down_ports
    t0 = f.tiers[0]
    media0 = _media(t0)
    rows = []
    for plane in range(f.planes):
        pre = f"plane{plane}." if f.planes > 1 else ""
        leaf_ports: dict[str, int] = {}
        by_group: dict[str, int] = {}
        by_rack: dict[str, int] = {}
        for n in nodes:
            i = by_group.get(n.group, 0)
            by_group[n.group] = i + 1
            for r in range(ports):
                port = plane * ports + r + 1
                if f.spec.tiers[0].switches_per_rack:
                    per = f.spec.tiers[0].switches_per_rack
                    j = by_rack.get(n.rack, 0)
                    by_rack[n.rack] = j + 1
                    leaf = f"{pre}{n.rack}.tor{j % per}"
                elif f.spec.kind == "rail_optimized":
                    leaf = f"{pre}{n.group}.rail{r}.leaf{i // d}"
                else:
                    k = by_group[n.group] - 1
                    leaf = f"{pre}{n.group}.leaf{(k * ports + r) // d}"
                lp = leaf_ports.get(leaf, 0) + 1
                leaf_ports[leaf] = lp
                rows.append({"fabric": f.name, "tier": t0.role, "from_rack": n.rack,
                             "from_u": n.u, "from_device": n.node, "from_port": f"p{port}",
                             "to_device": leaf, "to_port": lp, "media": media0})
        if len(tree) > 1:
            rows += _uplinks(f, sorted(leaf_ports), tree, pre)
    return rows


def _uplinks(f: FabricResult, leaves: list[str], tree, pre: str) -> list[dict]:
    rows = []
    u = tree[0].up_ports
    spines = tree[1].switches
    t1 = f.tiers[1]
    media = _media(t1)
    sp_ports = [0] * spines
    for leaf in leaves:
        for j in range(u):
            s = j % spines if len(tree) == 2 else (leaves.index(leaf) * u + j) // tree[1].down_ports
            sp_ports[s] += 1
            rows.append({"fabric": f.name, "tier": t1.role, "from_rack": "-", "from_u": None,
                         "from_device": leaf, "from_port": f"up{j + 1}",
                         "to_device": f"{pre}spine{s}", "to_port": sp_ports[s], "media": media})
    return rows


def _media(t) -> str:
    if t.lower_end or t.switch_end:
        return f"{t.lower_end or '-'} / {t.switch_end or '-'} + {t.cable}"
    return t.cable or "-"
