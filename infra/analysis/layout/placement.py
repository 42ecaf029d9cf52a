"""Physical placement of the network: fabric switches in racks, racks on a floor grid.

Rules (ours, in the spirit of NVIDIA's DGX SuperPOD RA: leaves with their SU, spines in
a central network row; stated so they can be checked and overridden)
----------------------------------------------------------------------------------
- **Rows.** Each leaf-group instance of the first fabric (an SU) is one row: its
  compute racks in build order, then its leaf racks (end of row). Racks outside any
  group form one row. Spine and core switches go in a network row after the last row.
- **Network racks** are of type :data:`NETWORK_RACK` (a 42U air rack). Switches stack
  from the top U down with one free U between them for cable management, and the
  bottom 2U stay free for patch panels: a rack holds ``floor((U - 2) / (h + 1))``
  switches of height ``h`` (20 x 1U QM9700 in 42U). Names: ``<group>/n<k>`` for leaf
  racks, ``network/n<k>`` for spine/core racks.
- **In-rack ToRs** (``switches_per_rack``) go in the free U of their compute rack from
  U1 upward; a rack without room is an infeasible design.
- **Power and heat** of a placed switch = its ``max_power_w`` plus the switch-end
  transceivers of the ports it uses (links / links per transceiver x the optic's
  ``max_power_w``); parts without a published figure are listed as unknown and the
  rack's figure is then a lower bound.
- **Floor grid** (:class:`Geometry`): rack *i* of row *r* sits at ``x = i x width``,
  ``y = r x row pitch``.

Examples
--------
>>> from infra.models.resolve import load_design
>>> p = network_placement(load_design("designs/dgx_h100_superpod.yaml"))
>>> len(p.switches), [r.path for r in p.racks]
(48, ['superpod0/su_first0/n0', 'superpod0/su0/n0', 'superpod0/su1/n0', 'superpod0/su2/n0', 'network/n0'])
>>> s = p.switches["superpod0/su0.rail3.leaf0"]
>>> s.rack, s.u, p.position[s.rack]
('superpod0/su0/n0', 36, (1, 8))
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from infra.analysis.network.fabric import FabricResult, design_fabrics
from infra.analysis.layout.netracks import tor_overflow
from infra.models.resolve import ResolvedDesign

NETWORK_RACK = "generic-42u-air-rack"
BOTTOM_FREE_U = 2


@dataclass(frozen=True)
class Geometry:
    """Floor and rack geometry for cable lengths (defaults stated; override per site)."""

    rack_width_m: float = 0.6  # 600 mm racks side by side in a row
    row_pitch_m: float = 3.0  # 1.2 m rack + 1.2 m cold aisle + 0.6 m hot-aisle share
    u_m: float = 0.04445  # 1.75 in per rack unit (EIA-310)
    overhead_m: float = 0.5  # rack top to the overhead cable tray, at each end
    slack_m: float = 1.0  # service loop per cable
    round_to_m: float = 0.5  # lengths round up to this step


@dataclass(frozen=True)
class PlacedSwitch:
    name: str  # cabling-plan name (su0.rail2.leaf1, spine7, su0/r3.tor1)
    slug: str
    role: str  # leaf | tor | spine | core
    fabric: str
    rack: str  # rack path
    u: int  # lowest U it occupies
    height_u: float
    power_w: float  # switch + switch-end optics with published figures (lower bound if unknown)
    unknown: tuple[str, ...] = ()  # parts whose power is not published


@dataclass(frozen=True)
class NetworkRack:
    path: str
    rack_type: str
    u_height: int
    row: int
    switches: tuple[str, ...]  # switch names, top down
    power_w: float  # IT power = air heat (published figures; lower bound if ``unknown``)
    used_u: float
    unknown: tuple[str, ...] = ()


@dataclass
class Placement:
    geometry: Geometry
    racks: list[NetworkRack]  # network racks only
    switches: dict[str, PlacedSwitch]
    position: dict[str, tuple[int, int]] = field(default_factory=dict)  # rack -> (row, slot)
    rack_u: dict[str, int] = field(default_factory=dict)  # rack -> its U height

    def distance_m(self, a: str, b: str) -> float:
        """Floor distance between two racks (Manhattan, along rows and across aisles)."""
        (ra, ia), (rb, ib) = self.position[a], self.position[b]
        g = self.geometry
        return abs(ia - ib) * g.rack_width_m + abs(ra - rb) * g.row_pitch_m


def network_placement(rd: ResolvedDesign, geometry: Geometry | None = None) -> Placement:
    """Place every fabric switch of ``rd`` (cached on the design for the default geometry)."""
    from infra.analysis.layout.identity import node_identities, rack_instances  # placing only

    key = "_placement"
    if geometry is None and key in rd.__dict__:
        return rd.__dict__[key]
    g = geometry or Geometry()
    fabrics = design_fabrics(rd)
    rows, rack_row = _rows(rd, fabrics[0] if fabrics else None)
    p = Placement(g, [], {})
    for r, racks in enumerate(rows):
        for i, path in enumerate(racks):
            p.position[path] = (r, i)
    for ri in rack_instances(rd):
        p.rack_u[ri.path] = rd.layouts[ri.layout].rack.u_height
    ids = node_identities(rd)
    net_row = len(rows)
    for f in fabrics:
        leaves = _switch_names(f, ids)
        if f.spec.tiers[0].switches_per_rack:
            _in_rack(rd, f, leaves[0], p)
        else:
            by_group: dict[str, list[str]] = {}
            for name, group in leaves[0]:
                by_group.setdefault(group, []).append(name)
            for group, names in by_group.items():
                row = rack_row.get(group, 0)
                _fill(rd, f, 0, names, f"{group}/n", row, p)
        for t in range(1, len(f.tiers)):
            _fill(rd, f, t, [n for n, _ in leaves[t]], "network/n", net_row, p)
    if geometry is None:
        rd.__dict__[key] = p
    return p


def _rows(rd: ResolvedDesign, f: FabricResult | None) -> tuple[list[list[str]], dict[str, int]]:
    from infra.analysis.layout.identity import rack_instances

    names = {x.strip() for x in (f.spec.group or "").split(",") if x.strip()} if f else set()
    rows: dict[str, list[str]] = {}
    for ri in rack_instances(rd):
        key = next((path for name, path in reversed(ri.pods) if name in names), "cluster")
        rows.setdefault(key, []).append(ri.path)
    return list(rows.values()), {k: i for i, k in enumerate(rows)}


def _switch_names(f: FabricResult, ids) -> list[list[tuple[str, str]]]:
    """Per tier, (switch name, group) in first-seen order (the cabling plan's names)."""
    from infra.analysis.network.attach import core_of, spine_of

    seen: dict[str, str] = {}
    for n in ids:  # the identities carry each node's leaves (leaf_ports, same rule and order)
        for name, leaves in n.leaves:
            if name == f.name:
                g = n.group(f.name) or "cluster"
                for leaf in leaves:
                    seen.setdefault(leaf, g)
    out = [list(seen.items())]
    if len(f.tree.tiers) > 1:
        spines = dict.fromkeys(s for _, _, s, _ in spine_of(f, sorted(seen)))
        out.append([(s, "network") for s in sorted(spines, key=_nat)])
    if len(f.tree.tiers) > 2:
        cores = dict.fromkeys(c for _, _, c, _ in core_of(f))
        out.append([(c, "network") for c in sorted(cores, key=_nat)])
    return out


def _nat(name: str) -> list:
    from infra.analysis.network.schedtopo import natural_key

    return natural_key(name)


def switch_power_w(rd: ResolvedDesign, f: FabricResult, tier: int) -> tuple[float, tuple[str, ...]]:
    """(W, unpublished parts) of one ``tier`` switch with the switch-end optics of its ports."""
    t = f.tiers[tier]
    sw = rd.part(t.switch)
    unknown = []
    w = sw.max_power_w or 0.0  # type: ignore[attr-defined]
    if sw.max_power_w is None:  # type: ignore[attr-defined]
        unknown.append(sw.slug)
    optics = []
    if t.switch_end and t.switch_end_transceivers:
        optics.append((t.switch_end, t.switch_end_transceivers / t.switches))
    if tier + 1 < len(f.tiers) and f.tiers[tier + 1].lower_end:
        up = f.tiers[tier + 1]
        optics.append((up.lower_end, up.lower_end_transceivers / t.switches))
    for slug, n in optics:
        ow = rd.part(slug).max_power_w  # type: ignore[attr-defined]
        if ow is None:
            unknown.append(slug)
        w += n * (ow or 0.0)
    return w, tuple(unknown)


def _fill(rd, f: FabricResult, tier: int, names: list[str], prefix: str, row: int,
          p: Placement) -> None:
    rack = rd.part(NETWORK_RACK)
    t = f.tiers[tier]
    sw = rd.part(t.switch)
    h = float(sw.u_height or 1)  # type: ignore[attr-defined]
    per = int((rack.u_height - BOTTOM_FREE_U) // (h + 1))  # type: ignore[attr-defined]
    w, unknown = switch_power_w(rd, f, tier)
    start = sum(1 for r in p.racks if r.path.startswith(prefix))
    row_len = p.__dict__.get("_row_len")  # racks per row, kept as racks are added (was a scan)
    if row_len is None:
        row_len = p.__dict__["_row_len"] = {}
        for r, _ in p.position.values():
            row_len[r] = row_len.get(r, 0) + 1
    for k in range(math.ceil(len(names) / per)):
        chunk = names[k * per:(k + 1) * per]
        path = f"{prefix}{start + k}"
        top = rack.u_height  # type: ignore[attr-defined]
        for j, name in enumerate(chunk):
            u = int(top - j * (h + 1) - h + 1)
            p.switches[name] = PlacedSwitch(name, t.switch, t.role, f.name, path, u, h, w, unknown)
        p.position[path] = (row, row_len.get(row, 0))
        row_len[row] = row_len.get(row, 0) + 1
        p.rack_u[path] = rack.u_height  # type: ignore[attr-defined]
        p.racks.append(NetworkRack(path, rack.slug, rack.u_height, row, tuple(chunk),  # type: ignore[attr-defined]
                                   w * len(chunk), len(chunk) * h, unknown))


def _in_rack(rd, f: FabricResult, tors: list[tuple[str, str]], p: Placement) -> None:
    from infra.analysis.layout.elevation import unit_positions
    from infra.analysis.layout.identity import rack_instances

    t = f.tiers[0]
    sw = rd.part(t.switch)
    h = float(sw.u_height or 1)  # type: ignore[attr-defined]
    w, unknown = switch_power_w(rd, f, 0)
    layout = {ri.path: ri.layout for ri in rack_instances(rd)}
    used_by_rack: dict[str, int] = {}
    for name, _ in tors:
        rack = name.rsplit(".tor", 1)[0]
        lay = rd.layouts[layout[rack]]
        low = min((pos for _, pos in unit_positions(lay) if pos), default=lay.rack.u_height + 1)
        k = used_by_rack.get(rack, 0)
        u = int(1 + k * h)
        if u + h - 1 >= low:
            raise tor_overflow(rd, f, f"rack {rack}", low, h)
        used_by_rack[rack] = k + 1
        p.switches[name] = PlacedSwitch(name, t.switch, t.role, f.name, rack, u, h, w, unknown)


def network_elevations(rd: ResolvedDesign, p: Placement | None = None) -> list:
    """Front views of the network racks, one per distinct rack content, with counts.

    Slots carry each switch with its switch-end optics; a slot's power is None when the
    switch's figure is unpublished, and the rack's ``it_kw`` is then the published part
    (a lower bound). All network-rack power is air heat. Without ``p`` the racks are
    counted from the design's templates (:mod:`infra.analysis.layout.netracks`), at a cost
    that does not grow with the GPU count; with it, from its placed switches.
    """
    groups: dict[tuple, list] = {}  # (rack type, switch positions) -> [slots, racks]
    if p is None:
        from infra.analysis.layout.netracks import network_rack_counts, rack_slots

        rack = rd.part(NETWORK_RACK)
        for f, tier, k, n in network_rack_counts(rd):
            top, h, _ = rack_slots(rd, f, tier)
            t = f.tiers[tier]
            w, unknown = switch_power_w(rd, f, tier)
            sw = [(int(top - j * (h + 1) - h + 1), h, t.switch, t.role, w, unknown)
                  for j in range(k)]
            _group(groups, (rack.slug, rack.u_height), sw, n)  # type: ignore[attr-defined]
    else:
        for r in p.racks:
            sw = [(s.u, s.height_u, s.slug, s.role, s.power_w, s.unknown)
                  for s in map(p.switches.__getitem__, r.switches)]
            _group(groups, (r.rack_type, r.u_height), sw, 1)
    return [_elevation(rd, rack_type, u_height, sw, n)
            for (rack_type, u_height, _), (sw, n) in groups.items()]


def _group(groups: dict, rack: tuple, sw: list, n: int) -> None:
    key = (*rack, tuple((u, slug, role) for u, _, slug, role, _, _ in sw))
    if key in groups:
        groups[key][1] += n
    else:
        groups[key] = [sw, n]


def _elevation(rd: ResolvedDesign, rack_type: str, u_height: int, sw: list, racks: int):
    from infra.analysis.layout.elevation import RackElevation, Slot
    from infra.units import w_to_kw

    slots = []
    for u, h, slug, role, w, unknown in sw:
        w = None if unknown else w
        slots.append(Slot(u, h, slug, rd.part(slug).name, "network_switch", role,
                          w, 0.0 if w is not None else None, w))
    roles = sorted({s[3] for s in sw})
    label = f"network: {'/'.join(roles)} ({len(sw)} x {sw[0][2]})"
    kw = w_to_kw(sw[0][4] * len(sw))  # one tier per rack: one switch figure
    return RackElevation(label, rack_type, racks, u_height, len(sw) * sw[0][1], kw, 0.0, kw,
                         tuple(slots))
