"""Scale-out and front-end fabrics of a design: sizing, media, power, bandwidth, hops.

Endpoints are the physical ports of the NICs whose tray component carries one of the
fabric's ``networks``. Fabric power = switches + the transceivers in switch ports and
between switches; node-end transceivers (and the node half of active cables) sit in the
servers' cages and are reported apart (``node_optics_kw``): :mod:`infra.analysis.power.it_power`
adds them for nodes whose power is a sum of parts. Switch counts come from :mod:`infra.analysis.network.fat_tree`; links
per tier from the same arithmetic; transceivers at each end = links / (transceiver
rate / link rate) (a twin-port 800G OSFP carries two 400G links); a DAC/AOC cable
carries links / (cable rate / link rate); a fibre link without a cable SKU counts one
fibre each. Power = switches + transceivers with published figures (others listed).

Bandwidth per GPU at each tier: injection = fabric ports x rate / GPUs per node; above
tier *t* it is divided by the product of the oversubscriptions below, but never raised
above the injection (an under-subscribed tier, ratio below 1, adds headroom, not rate:
:func:`infra.analysis.network.fat_tree.tier_ratios`); the all-to-all bound is
2 x bisection / GPUs (half of uniform all-to-all traffic crosses the cut). A spine tier
with a ``group`` is built once per instance of that pod (Meta's per-pod cluster switches).
Bisection = min over tiers of (links into the tier x rate / 2), times planes.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from infra.errors import LOCATE, TopologyError
from infra.models.fabric import FabricSpec, LinkMedia
from infra.models.parts import NetworkSwitch
from infra.models.resolve import ResolvedDesign
from infra.units import w_to_kw

if TYPE_CHECKING:
    from infra.analysis.network.fat_tree import FatTree


@dataclass(frozen=True)
class TierRow:
    fabric: str
    role: str
    switch: str
    switches: int  # all planes
    radix: int
    port_gbit_s: float
    oversubscription: float
    down_links: int  # all planes
    ports_used: int
    ports_free: int
    lower_end: str | None
    lower_end_transceivers: int
    switch_end: str | None
    switch_end_transceivers: int
    cable: str | None
    cables: int
    switch_power_kw: float | None
    transceiver_power_kw: float | None
    group: str | None = None  # pod whose every instance has its own switches of this tier
    blocks: int = 1  # separate blocks the tier is built as (the group's instances)


@dataclass
class FabricResult:
    name: str
    spec: FabricSpec
    tree: FatTree
    tiers: list[TierRow]
    planes: int
    nodes: int
    gpus: int
    gpus_per_node: int
    ports_per_node: int  # all planes
    link_gbit_s: float
    bisection_tbit_s: float
    max_gpus: int
    hops: dict[str, int]
    per_gpu_gbit_s: dict[str, float]
    transceivers: Counter = field(default_factory=Counter)
    cables: Counter = field(default_factory=Counter)
    power_kw: float = 0.0  # switches + switch-side optics; IT load outside the racks
    node_optics_kw: float = 0.0  # node-end optics (+ node half of active cables)
    unknown_power: tuple[str, ...] = ()
    # at most this many W from the unknown parts (their power_bound_w x count); None:
    # one has no stated bound
    unknown_bound_w: float | None = 0.0
    power_typical_kw: float = 0.0  # as power_kw, at typical figures where published
    node_optics_typical_kw: float = 0.0
    # per tier, bottom up: separate blocks the tier is built as (1, or its group's instances)
    blocks: list[int] = field(default_factory=list)
    storage_ports: int = 0  # storage units' ports on the first tier's free ports (all planes)
    # prefix of this fabric's switch names: "" for the design's first fabric, "<name>." for
    # every further one, so two fabrics never name a switch alike (spine0 of both)
    prefix: str = ""

    def pod_nodes(self) -> int | None:
        """Nodes under one block of a spine tier built per pod (a job on at most this many
        nodes of one pod never crosses the core tier); None when the spines are not grouped.

        >>> from infra.analysis.summary import analyze_file
        >>> analyze_file("designs/meta_h100_24k.yaml").fabrics[0].pod_nodes()
        384
        """
        if len(self.blocks) < 2 or self.blocks[1] <= 1:
            return None
        return self.nodes // self.blocks[1]

    def switches(self, role: str) -> int:
        return sum(t.switches for t in self.tiers if t.role == role)


def design_fabrics(rd: ResolvedDesign) -> list[FabricResult]:
    """Size every fabric of ``rd`` (cached on the design)."""
    if "_fabrics" not in rd.__dict__:
        out = [size_fabric(rd, n, s) for n, s in rd.design.fabrics.items()]
        for f in out[1:]:
            f.prefix = f"{f.name}."
        rd.__dict__["_fabrics"] = out
    return rd.__dict__["_fabrics"]


def size_fabric(rd: ResolvedDesign, name: str, spec: FabricSpec) -> FabricResult:
    path = ("fabrics", name)

    def err(msg: str, sub: tuple = (), hint: str | None = None) -> TopologyError:
        p = path + sub
        return TopologyError(msg, file=str(rd.file), path=p, line=LOCATE, hint=hint)

    ports, speed, gpn, nodes = _endpoints(rd, spec, err)
    if ports % spec.planes:
        raise err(f"{ports} fabric ports per node do not split over {spec.planes} planes",
                  ("planes",))
    switches = [rd.part(t.switch, "network_switch", path=path + ("tiers", i, "switch"))
                for i, t in enumerate(spec.tiers)]
    radices, rates = [], []
    for i, (t, sw) in enumerate(zip(spec.tiers, switches)):
        rate = t.port_gbit_s or sw.port_gbit_s  # type: ignore[attr-defined]
        split = sw.port_gbit_s / rate  # type: ignore[attr-defined]
        if split < 1 or split != int(split):
            raise err(f"tier {i + 1} ({t.role}): {sw.slug} ports of {sw.port_gbit_s:g} Gb/s "  # type: ignore[attr-defined]
                      f"cannot run at {rate:g} Gb/s", ("tiers", i, "port_gbit_s"),
                      hint="use the native speed or an even breakout (e.g. 800 -> 2 x 400)")
        radices.append(int(sw.ports * split))  # type: ignore[attr-defined]
        rates.append(rate)
    if spec.tiers[0].port_gbit_s and speed > rates[0] and speed % rates[0] == 0:
        # NIC ports configured down to the first tier's rate (NVIDIA runs the GB200 tray's
        # 400G BlueField-3 ports as 2 x 200GbE): links and bandwidth at the tier's rate
        speed = rates[0]
    if speed != rates[0]:
        raise err(f"NIC ports run at {speed:g} Gb/s, tier 1 ({spec.tiers[0].role}) ports at "
                  f"{rates[0]:g} Gb/s", ("tiers", 0, "port_gbit_s"),
                  hint=f"set port_gbit_s: {speed:g} (breakout) or use matching NICs")
    if len(set(rates)) > 1:
        raise err(f"tiers run at different port speeds {rates}", ("tiers",),
                  hint="set port_gbit_s so every tier uses the same link rate")
    groups = _groups(rd, spec, nodes, err)
    tor = None
    if spec.tiers[0].switches_per_rack:
        tor = (_racks_with_nodes(rd, spec), spec.tiers[0].switches_per_rack)
    from infra.analysis.network.fat_tree import FabricSizeError, size_fat_tree  # fabrics only

    instances = _tier_instances(rd, spec, nodes, err)
    try:
        tree = size_fat_tree(groups, ports // spec.planes, spec.kind, radices,
                             [t.oversubscription for t in spec.tiers],
                             [t.role for t in spec.tiers], tor, instances)
    except FabricSizeError as exc:
        raise err(str(exc), ("tiers",)) from None
    res = FabricResult(name, spec, tree, [], spec.planes, nodes, nodes * gpn, gpn, ports, speed,
                       0.0, 0, {}, {})
    res.blocks = instances
    res.storage_ports = _storage_ports(rd, name, spec, tree, rates[0], err)
    _media(rd, res, switches, err)
    _bandwidth(res)
    return res


def _endpoints(rd: ResolvedDesign, spec: FabricSpec, err) -> tuple[int, float, int, int]:
    """(fabric ports per node, port Gb/s, GPUs per node, nodes) over every tray type."""
    shapes = set()
    nodes = 0
    for slug, n in rd.tray_counts().items():
        lay = rd.tray_layout(slug)
        ports = [p.gbit_s for i in lay.of_kind("nic") if i.component.network in spec.networks
                 for p in i.part.ports]  # type: ignore[attr-defined]
        if not ports:
            continue
        if len(set(ports)) > 1:
            raise err(f"tray {slug!r} has NIC ports of several speeds {sorted(set(ports))} on "
                      "this fabric", ("networks",))
        shapes.add((len(ports), ports[0], lay.count("gpu")))
        nodes += n
    if not shapes:
        raise err(f"no NIC of any tray carries networks {spec.networks}", ("networks",),
                  hint="check the trays' components 'network:' tags")
    if len(shapes) > 1:
        raise err(f"tray types attach differently to this fabric (ports, Gb/s, GPUs): "
                  f"{sorted(shapes)}", ("networks",), hint="use one fabric per tray type")
    ports, speed, gpn = shapes.pop()
    return ports, speed, gpn, nodes


def _nodes_in_pod(rd: ResolvedDesign, pod: str, memo: dict[str, int] | None = None) -> int:
    """Compute trays in one instance of ``pod``; memoised, so linear in pod definitions."""
    memo = {} if memo is None else memo
    if pod not in memo:
        p = rd.design.pods[pod]
        n = sum(c * rd.layouts[r].count("compute_tray") for r, c in p.racks.items())
        memo[pod] = n + sum(c * (_nodes_in_pod(rd, s, memo) if s in rd.design.pods
                                 else rd.layouts[s].count("compute_tray"))
                            for s, c in p.pods.items())
    return memo[pod]


def _groups(rd: ResolvedDesign, spec: FabricSpec, nodes: int, err) -> list[tuple[int, int]]:
    if not spec.group:
        return [(nodes, 1)]
    names = [g.strip() for g in spec.group.split(",")]
    groups, memo = [], {}
    for g in names:
        if g not in rd.design.pods:
            raise err(f"group {g!r} is not a pod of this design", ("group",),
                      hint=f"pods: {sorted(rd.design.pods)}")
        groups.append((_nodes_in_pod(rd, g, memo), rd.pod_counts[g]))
    covered = sum(n * c for n, c in groups)
    if covered != nodes:
        raise err(f"the groups {names} hold {covered} nodes, the fabric has {nodes}", ("group",),
                  hint="list every pod whose nodes attach (comma-separated)")
    return groups


def _tier_instances(rd: ResolvedDesign, spec: FabricSpec, nodes: int, err) -> list[int]:
    """Blocks each tier is built as: 1, or the instance count of the tier's ``group`` pod,
    whose instances must together hold every node of the fabric."""
    out = []
    for i, t in enumerate(spec.tiers):
        if not t.group:
            out.append(1)
            continue
        where = ("tiers", i, "group")
        if t.group not in rd.design.pods:
            raise err(f"tier {i + 1} ({t.role}): group {t.group!r} is not a pod of this design", where,
                      hint=f"pods: {sorted(rd.design.pods)}")
        n, c = _nodes_in_pod(rd, t.group), rd.pod_counts[t.group]
        if n * c != nodes:
            raise err(f"tier {i + 1} ({t.role}): the {c:,} instances of pod {t.group!r} hold "
                      f"{n * c:,} nodes, the fabric has {nodes:,}", where,
                      hint="group by a pod whose instances hold every node of the fabric")
        out.append(c)
    return out


def _storage_ports(rd: ResolvedDesign, name: str, spec: FabricSpec, tree, rate: float, err) -> int:
    """Ports of the design's storage units attached to fabric ``name``: they take free
    ports of the first tier (too few free: an error naming how many are missing)."""
    total = 0
    for sname, st in rd.design.storage.items():
        if st.fabric != name:
            continue
        part = rd.part(st.type, "storage_system", path=("storage", sname, "type"))
        if part.ports is None or part.port_gbit_s is None:  # type: ignore[attr-defined]
            raise err(f"storage {sname!r} ({part.slug}) attaches to this fabric but its catalog "
                      "entry gives no ports / port_gbit_s", (),
                      hint=f"unset storage.{sname}.fabric, or give the entry its network ports")
        if part.port_gbit_s != rate:  # type: ignore[attr-defined]
            raise err(f"storage {sname!r} ports run at {part.port_gbit_s:g} Gb/s, the fabric's "  # type: ignore[attr-defined]
                      f"links at {rate:g} Gb/s", ())
        total += st.count * part.ports  # type: ignore[attr-defined]
    free = tree.tiers[0].ports_free * spec.planes
    if total > free:
        raise err(f"{total:,} storage ports attach to this fabric; its {spec.tiers[0].role} tier has "
                  f"{free:,} free ports", ("tiers", 0),
                  hint="add leaves for the storage (a fabric of its own), or use fewer storage units")
    return total


def _racks_with_nodes(rd: ResolvedDesign, spec: FabricSpec) -> int:
    return sum(n for ln, n in rd.rack_counts.items() if rd.layouts[ln].count("compute_tray"))


def _per(transceiver_or_cable, rate: float, err, where: tuple) -> int:
    ratio = transceiver_or_cable.gbit_s / rate
    if ratio < 1 or ratio != int(ratio):
        raise err(f"{transceiver_or_cable.slug} ({transceiver_or_cable.gbit_s:g} Gb/s) does not "
                  f"carry whole {rate:g} Gb/s links", where)
    return int(ratio)


def _media(rd: ResolvedDesign, res: FabricResult, switches, err) -> None:
    from infra.analysis.power.power_figures import overrides_of, part_figure

    unknown: set[str] = set()
    power_w = node_w = typ_w = node_typ_w = 0.0
    bound: list[float | None] = []  # n x power_bound_w of each unknown part
    overrides = overrides_of(rd.design)

    def figure(part, n: int) -> tuple[float, float, float | None]:
        """(max W, typical W, max W or None if unknown) of n parts: the design's power
        override, else the catalog's figure; an unknown part adds 0 W, is listed, and
        its stated power_bound_w bounds it."""
        f = part_figure(part, rd, overrides)
        if f.unknown:
            unknown.add(part.slug)
            bound.append(None if f.bound_w is None else n * f.bound_w)
            return 0.0, 0.0, None
        return n * f.max_w, n * f.typical_w, n * f.max_w

    planes = res.planes
    for i, (t, ts, sw) in enumerate(zip(res.spec.tiers, res.tree.tiers, switches)):
        m: LinkMedia = t.down
        links = ts.down_links * planes
        # storage units' links on the first tier: a switch-end transceiver and a cable (or
        # fibre) each; the storage end's optic is the unit's own (inside its power figure)
        all_links = links + (res.storage_ports if i == 0 else 0)
        counts = {}
        for end in ("lower", "switch_end"):
            slug = m.lower if end == "lower" else m.switch_end
            if slug is None:
                counts[end] = (None, 0, 0.0)
                continue
            opt = rd.part(slug, "optic", path=("fabrics", res.name, "tiers", i, "down"))
            n = math.ceil((links if end == "lower" else all_links)
                          / _per(opt, res.link_gbit_s, err, ("tiers", i, "down")))
            res.transceivers[slug] += n
            _reach(opt, m, err, i)
            mx, typ, known = figure(opt, n)
            counts[end] = (slug, n, known)
            if i == 0 and end == "lower":
                node_w += mx
                node_typ_w += typ
            else:
                power_w += mx
                typ_w += typ
        cable, n_cables = None, 0
        if m.cable:
            c = rd.part(m.cable, "cable", path=("fabrics", res.name, "tiers", i, "down", "cable"))
            _reach(c, m, err, i)
            cable, n_cables = c.slug, math.ceil(all_links / _per(c, res.link_gbit_s, err,
                                                                   ("tiers", i, "down", "cable")))
            res.cables[c.slug] += n_cables
            w = n_cables * (c.max_power_w or 0)  # active cables: half is the node end's
            wt = n_cables * (c.typical_w or c.max_power_w or 0)
            power_w += w / 2 if i == 0 else w
            typ_w += wt / 2 if i == 0 else wt
            node_w += w / 2 if i == 0 else 0
            node_typ_w += wt / 2 if i == 0 else 0
        else:
            cable, n_cables = "fibre (one per link)", all_links
            res.cables[cable] += all_links
        n_sw = ts.switches * planes
        mx, typ, known = figure(sw, n_sw)
        sw_kw = None if known is None else w_to_kw(known)
        power_w += mx
        typ_w += typ
        tr_kw = None
        tr_w = [w for s, _, w in counts.values() if s]
        if tr_w and all(w is not None for w in tr_w):
            tr_kw = w_to_kw(sum(tr_w))
        res.tiers.append(TierRow(
            res.name, t.role, sw.slug, n_sw, ts.radix, res.link_gbit_s, t.oversubscription,
            links, ts.ports_used * planes + (res.storage_ports if i == 0 else 0),
            ts.ports_free * planes - (res.storage_ports if i == 0 else 0),
            counts["lower"][0], counts["lower"][1], counts["switch_end"][0],
            counts["switch_end"][1], cable, n_cables, sw_kw, tr_kw, t.group,
            res.blocks[i] if res.blocks else 1))
    res.power_kw = w_to_kw(power_w)
    res.node_optics_kw = w_to_kw(node_w)
    res.power_typical_kw = w_to_kw(typ_w)
    res.node_optics_typical_kw = w_to_kw(node_typ_w)
    res.unknown_power = tuple(sorted(unknown))
    res.unknown_bound_w = None if any(b is None for b in bound) else sum(bound)


def _reach(part, media: LinkMedia, err, tier: int) -> None:
    if media.reach_m and part.reach_m and media.reach_m > part.reach_m:
        raise err(f"tier {tier + 1}: runs of {media.reach_m:g} m exceed {part.slug}'s "
                  f"{part.reach_m:g} m reach", ("tiers", tier, "down", "reach_m"),
                  hint="use optics (or a longer-reach optic) for this tier")


def _bandwidth(res: FabricResult) -> None:
    rate = res.link_gbit_s
    cuts = [ts.down_links * rate / 2 for ts in res.tree.tiers]
    res.bisection_tbit_s = min(cuts) * res.planes / 1000
    inj = res.ports_per_node * rate / res.gpus_per_node
    per = {"injection": inj}
    from infra.analysis.network.fat_tree import tier_ratios

    ratios = tier_ratios([t.oversubscription for t in res.spec.tiers[:-1]])
    for t, r in zip(res.spec.tiers[:-1], ratios):
        per[f"above_{t.role}"] = inj / r
    per["all_to_all_bound"] = 2 * res.bisection_tbit_s * 1000 / res.gpus if res.gpus else 0.0
    res.per_gpu_gbit_s = per
    n = len(res.tree.tiers)
    far = {1: 1, 2: 3, 3: 5}[n]
    if res.spec.kind == "rail_optimized":
        res.hops = {"same_rail_same_group": 1, "cross_rail": min(far, 3) if n > 1 else 0,
                    "cross_rail_via_nvlink_pxn": 1, "cross_group": far}
    else:
        res.hops = {"same_leaf": 1, "cross_leaf": min(far, 3), "cross_pod": far}
    per_plane_nodes = res.tree.max_endpoints // (res.ports_per_node // res.planes)
    res.max_gpus = per_plane_nodes * res.gpus_per_node


def fabric_metrics(fabrics: list[FabricResult]) -> dict[str, float | int]:
    """The fabric metrics of the JSON contract (summed over the design's fabrics)."""
    return {
        "fabric_tiers": max((len(f.tiers) for f in fabrics), default=0),
        "leaf_switches": sum(f.switches("leaf") + f.switches("tor") for f in fabrics),
        "spine_switches": sum(f.switches("spine") for f in fabrics),
        "core_switches": sum(f.switches("core") for f in fabrics),
        "transceivers": sum(sum(f.transceivers.values()) for f in fabrics),
        "scale_out_bisection_tbit_s": round(sum(f.bisection_tbit_s for f in fabrics), 3),
        "fabric_power_kw": round(sum(f.power_kw for f in fabrics), 3),
        "fabric_power_unknown_parts_count": len({u for f in fabrics for u in f.unknown_power}),
    }


__all__ = ["FabricResult", "NetworkSwitch", "design_fabrics", "fabric_metrics", "size_fabric"]
