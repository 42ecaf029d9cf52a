"""Point-to-point cabling plan of a fabric: one row per cable, both ends placed.

For fabrics up to ``max_gpus`` GPUs every link gets a row; beyond, one summary row per
link type. Conventions (stated so a cabling vendor can follow them):

- Ends: A is the lower end (node, or the lower switch), B the upper. Racks, U and
  switch positions come from :mod:`infra.analysis.layout.placement`; node names and rack paths
  from :mod:`infra.analysis.layout.identity`; which port goes where from
  :mod:`infra.analysis.network.attach`.
- Node ports: ``<nic>/<port>`` of the tray's fabric NICs in NIC order (rail *r* is the
  *r*-th). Switch ports: down links ``1..d`` in arrival order, uplinks ``d+1..``.
- Split port ``cage/lane``: when the end's transceiver carries *m* links (a twin-port
  800G OSFP carries two 400G links), port *p* is lane ``(p-1) % m + 1`` of cage
  ``(p-1) // m + 1``; empty when *m* = 1.
- Cable ID ``<fabric>-<tier>-<n>``, numbered in plan order from 1.
- Length = floor distance between the racks (:class:`~infra.analysis.layout.placement.Geometry`)
  + at each end the run from the device's U to the rack top and up to the overhead tray
  + slack, rounded up to the geometry's step; inside one rack: the U difference + slack.
  ``reach_ok`` compares it with the shortest reach of the link's parts.

Examples
--------
>>> from infra.analysis.network.fabric import design_fabrics
>>> from infra.models.resolve import load_design
>>> rd = load_design("designs/dgx_h100_su.yaml")
>>> row = cabling_plan(rd, design_fabrics(rd)[0])[1]
>>> row["a_rack"], row["a_u"], row["a_device"], row["a_port"], row["a_split"]
('su0/r0', 35, 'r001n01', 'nic1/p0', '1/2')
>>> row["b_rack"], row["b_u"], row["b_device"], row["b_port"], row["length_m"], row["reach_ok"]
('su0/n0', 40, 'su0.rail1.leaf0', 1, 7.5, True)
"""

from __future__ import annotations

import math

from infra.analysis.network.attach import core_of, leaf_ports, spine_of
from infra.analysis.network.fabric import FabricResult
from infra.analysis.layout.identity import node_identities
from infra.analysis.layout.placement import Placement, network_placement
from infra.models.resolve import ResolvedDesign

UFM_COLUMNS = ("a_rack", "a_u", "a_device", "a_port", "b_rack", "b_u", "b_device", "b_port")
UFM_HEADER = ("Rack", "U", "Name", "HCA/Port", "Rack", "U", "Name", "Port")


def cabling_plan(rd: ResolvedDesign, f: FabricResult, max_gpus: int = 4096,
                 placement: Placement | None = None) -> list[dict]:
    """Rows of the plan (or the per-link-type summary above ``max_gpus``)."""
    if f.gpus > max_gpus:
        return [{"fabric": f.name, "tier": t.role, "links": t.down_links,
                 "lower_end": t.lower_end or "-", "switch_end": t.switch_end or "-",
                 "cable": t.cable, "cables": t.cables,
                 "note": f"summary: {f.gpus:,} GPUs is above the {max_gpus:,}-GPU plan limit"}
                for t in f.tiers]
    p = placement or network_placement(rd)
    nodes = [n for n in node_identities(rd) if n.group(f.name) is not None]
    atts = leaf_ports(f, [(n.rack, n.group(f.name)) for n in nodes])
    plan = _Plan(rd, f, p)
    leaves: list[str] = []
    for n, att in zip(nodes, atts):
        labels = _port_labels(rd, n.tray, f)
        for a in att:
            k = int(a.port[1:]) - 1
            plan.add(0, (n.rack, n.u, n.name, labels[k], k + 1), a.leaf, a.leaf_port,
                     (n.path, a.port))
            leaves.append(a.leaf)
    d = f.tree.tiers[0].down_ports
    for leaf, j, spine, sp in spine_of(f, sorted(set(leaves))):
        plan.add(1, plan.switch_end(leaf, d + j, 0), spine, sp, (leaf, f"up{j}"))
    if len(f.tree.tiers) > 2:
        d2 = f.tree.tiers[1].down_ports
        for spine, j, core, cp in core_of(f):
            plan.add(2, plan.switch_end(spine, d2 + j, 1), core, cp, (spine, f"up{j}"))
    return plan.rows


class _Plan:
    def __init__(self, rd: ResolvedDesign, f: FabricResult, p: Placement) -> None:
        self.rd, self.f, self.p = rd, f, p
        self.rows: list[dict] = []

    def _per(self, slug: str | None) -> int:
        if not slug:
            return 1
        return max(1, int(self.rd.part(slug).gbit_s // self.f.link_gbit_s))  # type: ignore[attr-defined]

    def switch_end(self, name: str, port: int, tier: int) -> tuple:
        s = self.p.switches[name]
        return (s.rack, s.u, name, port, port)

    def add(self, tier: int, a: tuple, b_name: str, b_port: int, legacy: tuple) -> None:
        t = self.f.tiers[tier]
        cable = self.f.spec.tiers[tier].down.cable  # a catalog cable, or None for fibre
        rack_a, u_a, dev_a, port_a, num_a = a
        sb = self.p.switches[b_name]
        length = self._length(rack_a, u_a, sb.rack, sb.u)
        parts = [x for x in (t.lower_end, t.switch_end, cable) if x]
        reaches = [self.rd.part(x).reach_m for x in parts]  # type: ignore[attr-defined]
        reach = min((r for r in reaches if r), default=None)
        self.rows.append({
            "cable_id": f"{self.f.name}-{t.role}-{len(self.rows) + 1:05d}",
            "fabric": self.f.name, "tier": t.role,
            "a_rack": rack_a, "a_u": u_a, "a_device": dev_a, "a_port": port_a,
            "a_split": _split(num_a, self._per(t.lower_end)),
            "a_media": self._media(t.lower_end, cable), "a_part": t.lower_end or cable or "-",
            "b_rack": sb.rack, "b_u": sb.u, "b_device": b_name, "b_port": b_port,
            "b_split": _split(b_port, self._per(t.switch_end)),
            "b_media": self._media(t.switch_end, cable), "b_part": t.switch_end or cable or "-",
            "cable": cable or "fibre (one per link)", "length_m": length,
            "reach_m": reach, "reach_ok": None if reach is None else length <= reach,
            # the earlier column names (node path, p<k>), read by infra.ingest.diff_fabric
            "from_device": legacy[0], "from_port": legacy[1], "to_device": b_name,
            "to_port": b_port,
        })

    def _media(self, optic: str | None, cable: str | None) -> str:
        slug = optic or cable
        return self.rd.part(slug).name if slug else "-"

    def _length(self, ra: str, ua: int | None, rb: str, ub: int | None) -> float:
        g = self.p.geometry
        if ra == rb:
            run = abs((ua or 0) - (ub or 0)) * g.u_m + g.slack_m
        else:
            up = sum((self.p.rack_u[r] - (u or 0) + 1) * g.u_m + g.overhead_m
                     for r, u in ((ra, ua), (rb, ub)))
            run = self.p.distance_m(ra, rb) + up + g.slack_m
        return math.ceil(round(run / g.round_to_m, 6)) * g.round_to_m


def _split(port: int, per: int) -> str:
    if per <= 1:
        return ""
    return f"{(port - 1) // per + 1}/{(port - 1) % per + 1}"


def _port_labels(rd: ResolvedDesign, tray: str, f: FabricResult) -> list[str]:
    lay = rd.tray_layout(tray)
    return [f"{i.name}/{p.name}" for i in lay.of_kind("nic")
            if i.component.network in f.spec.networks for p in i.part.ports]  # type: ignore[attr-defined]
