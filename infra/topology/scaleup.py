"""Scale-up (NVLink / Infinity Fabric) domains as networkx graphs, one per domain *shape*.

A design's GPUs fall into domains of a few shapes (an NVL72 rack, an NVL36x2 rack pair,
an 8-GPU HGX baseboard, a GPU with no scale-up). Each shape's graph is built once and
counted (:attr:`ScaleUpDomain.count`), never copied per instance.

Wiring rules
------------
- Rack domains: every GPU spreads its ``links`` over the switch chips of its own rack
  (one link per chip in NVL72: 18 links, 18 chips); the rack's cable cartridge
  (``<rack>.backplane``) carries those links.
- Two-rack domains (NVL36x2): chip *j* of one rack joins chip *j* of the other with the
  ports its own rack's GPUs leave free (72 - 36 = 36 per chip, 648 per pair), over the
  cross-rack cable set ``xrack``.
- Two-tier domains (DGX GH200, NVL576-style): a pod's racks that hold only NVLink
  switch trays are tier 2 (L2); the switch trays in the compute racks are tier 1 (L1).
  Every L1 chip sends ``min(free ports, L2 ports / L1 chips)`` uplinks over the cable set
  ``xrack`` into its *plane* of L2 chips: with ``k = gcd(L1 chips per rack, L2 chips)``,
  chip *j* of every rack joins plane ``j mod k`` and spreads its uplinks evenly over that
  plane's ``L2 / k`` chips. DGX GH200: 192 L1 chips x 24 uplinks = 4,608 = 72 L2 chips x
  64 ports (non-blocking), 6 planes of 12 L2 chips.
- Tray domains: HGX baseboards wire every GPU to the tray's switch chips with the same
  pattern (H100: 18 links over 4 chips = 5/5/4/4); AMD's mesh joins every GPU pair with
  one link.

Bisection (``bisection_gbyte_s``) is the smallest capacity, per direction, of a cut
that splits the domain's GPUs into two equal halves, switch chips free to sit on either
side (a min cut between the halves). Switched: ``GPUs / 2 x per-GPU bandwidth``, capped
by the cross-rack links (two racks) or half the L1 uplinks (two tiers); mesh: ``(n/2)^2``
peer links. ``tests/test_property.py`` checks it with networkx min cuts on expanded
graphs (exhaustively for 8-GPU domains).

Node attribute ``tier`` (1 or 2) marks switch chips and trays. Racks are ``r0, r1, ...``:
compute racks first, then switch-only racks (:attr:`ScaleUpDomain.rack_layouts` names
each one's layout; the graph itself is shared by shapes with the same NVLink wiring).

Example
-------
::

    [r0.t0.sc0.gpu0]==1 link==[r0.s0.c0]==36 links (xrack)==[r1.s0.c0]==[r1.t0.sc0.gpu0]

    two tiers:  [r0.t0.sc0.gpu0]==3==[r0.s0.c0 (L1)]==2 (xrack)==[r32.s0.c0 (L2)]
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field, fields, replace

import networkx as nx

from infra.errors import TopologyError
from infra.models.parts import Gpu, NvlinkSwitchChip
from infra.models.resolve import DomainShape, ResolvedDesign
from infra.models.systems import ComputeTray
from infra.models.yamlio import line_of
from infra.topology.tiers import l2_cut, local, tier_wire


@dataclass(frozen=True)
class SwitchTier:
    """One tier of a domain's scale-up switches (counts per domain)."""

    tier: int  # 1 = the switches GPUs attach to; 2 = switches over them
    switch_trays: int
    chips: int
    chip: str  # slug
    ports: int  # all ports of the tier's chips
    down_links: int  # to GPUs (tier 1) or to tier 1 (tier 2)
    up_links: int  # to the next tier or, back-to-back, to the other rack
    oversubscription: float | None  # down / up; None when nothing goes up


@dataclass
class ScaleUpDomain:
    """One domain shape and how many domains of it the design has."""

    name: str
    scope: str  # rack | tray | gpu
    count: int
    gpus: int
    gpu: Gpu
    racks: int
    links_per_gpu: int
    gbyte_s_per_gpu: float  # per direction
    bisection_gbyte_s: float  # per direction, worst even split
    switch_chips: int
    cross_rack_links: int
    graph: nx.Graph = field(repr=False)
    topology: str = "switched"  # switched | mesh | ring | torus | none
    tiers: tuple[SwitchTier, ...] = ()
    layouts: tuple[str, ...] = ()  # rack layouts the domain spans
    rack_layouts: tuple[str, ...] = ()  # layout of graph rack r<i>, by i
    shape: tuple[int, ...] = ()  # ring / torus: chips per dimension
    block: tuple[int, ...] = ()  # ring / torus: chips per block (numbered first)
    block_joins: str = ""  # ring / torus: cables | optical_circuit_switch
    diameter_hops: int = 0  # links crossed between the farthest two GPUs
    mean_hops: float = 0.0  # links crossed, mean over GPU pairs (from the first GPU)
    warnings: tuple[str, ...] = ()  # declared links that cannot all be used, and why

    @property
    def tiered(self) -> bool:
        """True for domains with a second switch tier (L1 + L2)."""
        return any(t.tier == 2 for t in self.tiers)


_FIELDS = tuple(f.name for f in fields(ScaleUpDomain))


def scale_up_domains(rd: ResolvedDesign) -> list[ScaleUpDomain]:
    """Every domain shape of ``rd`` with its count (cached on the design)."""
    cached = rd.__dict__.get("_domains")
    if cached is None:
        built: dict[tuple, ScaleUpDomain] = {}
        cached = [torus_domain(rd, s) if s.torus is not None else _shared_rack_domain(rd, s, built)
                  for s in rd.domain_shapes] + _tray_domains(rd)
        for d in cached:
            check_consistency(d, rd)
        rd.__dict__["_domains"] = cached
    return cached


def check_consistency(dom: ScaleUpDomain, rd: ResolvedDesign | None = None) -> None:
    """No figure may exceed what the links carry (issue 29, item 2): the per-GPU figure
    is at most the GPU's declared links x rate, the bisection at most half the GPUs x the
    per-GPU figure. A breach is an internal inconsistency: an error, never a figure."""
    su = dom.gpu.scale_up
    where = {"file": str(rd.file) if rd is not None and rd.file else None}
    declared = su.gbyte_s if su is not None else 0.0
    if dom.gbyte_s_per_gpu > declared * (1 + 1e-9):
        raise TopologyError(f"scale-up domain {dom.name!r}: {dom.gbyte_s_per_gpu:,.1f} GB/s per GPU "
                            f"exceeds the {declared:,.1f} GB/s its declared links carry "
                            f"({dom.gpu.slug})", hint="an internal inconsistency: please report "
                            "it with the design", **where)
    cap = dom.gpus / 2 * dom.gbyte_s_per_gpu
    if dom.bisection_gbyte_s > cap * (1 + 1e-9):
        raise TopologyError(f"scale-up domain {dom.name!r}: bisection {dom.bisection_gbyte_s:,.1f} "
                            f"GB/s exceeds what half its GPUs can send ({dom.gpus / 2:g} x "
                            f"{dom.gbyte_s_per_gpu:,.1f} = {cap:,.1f} GB/s)",
                            hint="an internal inconsistency: please report it with the design",
                            **where)


def nvlink_key(rd: ResolvedDesign, shape: DomainShape) -> tuple:
    """What a rack domain's NVLink graph depends on: per rack, its type and its switch and
    compute trays in order (not the layout's name, pod, shelves, CDU or positions)."""
    key = []
    for name, n in shape.layouts:
        lay = rd.layouts[name]
        trays = tuple((i.part.kind, i.part.slug, i.count) for i in lay.items
                      if i.part.kind in ("nvlink_switch_tray", "compute_tray"))
        key += [(lay.rack.slug, trays)] * n
    return tuple(key), shape.cross_rack_cable.slug if shape.cross_rack_cable else None


def _shared_rack_domain(rd: ResolvedDesign, shape: DomainShape,
                        built: dict[tuple, ScaleUpDomain]) -> ScaleUpDomain:
    """Build each distinct NVLink graph once; shapes with the same key share it (read-only).

    Notes
    -----
    Halls of many rack layouts hold few NVLink shapes (power shelves, CDUs and positions do
    not change the NVLink graph), so cost follows distinct NVLink shapes, not layouts.
    """
    key = nvlink_key(rd, shape)
    first = built.get(key)
    if first is None:
        built[key] = first = _rack_domain(rd, shape)
        return first
    return _sharing(first, name=_domain_name(shape), count=shape.count,
                    layouts=tuple(l for l, _ in shape.layouts), rack_layouts=_rack_order(rd, shape))


def _sharing(first: ScaleUpDomain, **changes) -> ScaleUpDomain:
    """``dataclasses.replace(first, **changes)`` without its per-field checks and keyword
    call (1,000 times at 1,000 layouts): ScaleUpDomain has no ``__post_init__`` and no
    ``init=False`` field, so a copy of its fields with ``changes`` set is the same object."""
    src = getattr(first, "__dict__", None)
    if src is None or type(first) is not ScaleUpDomain:  # slots, a subclass: the general way
        return replace(first, **changes)
    out = object.__new__(ScaleUpDomain)
    out.__dict__.update({f: src[f] for f in _FIELDS})
    out.__dict__.update(changes)
    return out


def _domain_name(shape: DomainShape) -> str:
    name = " + ".join(f"{n} x {l}" for l, n in shape.layouts)
    return name if not shape.pod else f"{shape.pod} ({name})"


def _rack_order(rd: ResolvedDesign, shape: DomainShape) -> tuple[str, ...]:
    """Layouts of the domain's racks r0, r1, ...: compute racks first, then switch-only."""
    racks = [name for name, n in shape.layouts for _ in range(n)]
    return tuple([r for r in racks if rd.layouts[r].count("compute_tray")]
                 + [r for r in racks if not rd.layouts[r].count("compute_tray")])


def _rack_domain(rd: ResolvedDesign, shape: DomainShape) -> ScaleUpDomain:
    racks = [name for name, n in shape.layouts for _ in range(n)]
    compute = [r for r in racks if rd.layouts[r].count("compute_tray")]
    spine = [r for r in racks if not rd.layouts[r].count("compute_tray")]
    if not spine and len(racks) > 2:
        raise TopologyError(f"NVLink domains over {len(racks)} racks need a second switch tier",
                            file=str(rd.file), path=("pods", shape.pod or "", "scale_up"),
                            hint="use 1 or 2 racks per domain, or add racks holding only NVLink "
                            "switch trays (L2) to the pod")
    g = nx.Graph()
    b = _Build(g)
    for r, lname in enumerate(compute + spine):
        b.rack(rd, f"r{r}", lname, tier=2 if lname in spine else 1)
    if b.gpu_part is None or b.t1_part is None:
        raise TopologyError("an NVLink domain needs compute trays and switch trays",
                            file=str(rd.file), path=("racks", racks[0]))
    if b.gpu_part.scale_up is None:
        raise TopologyError(f"GPU {b.gpu_part.slug!r} has no scale_up ports in the catalog, but "
                            f"rack layout {racks[0]!r} puts it in an NVLink domain",
                            file=str(rd.file), path=("racks", racks[0]),
                            hint="add the GPU's scale_up (links, link_gbyte_s) to its catalog "
                            "entry, or remove the NVLink switch trays")
    t1 = [c for cs in b.chips[1] for c in cs]
    cross = up = 0
    if spine:
        sizes = {len(cs) for cs in b.chips[1]}
        up = tier_wire(rd, g, t1, [c for cs in b.chips[2] for c in cs], b.t1_part, b.t2_part,
                        sizes.pop() if len(sizes) == 1 else 1)
    elif len(racks) == 2:
        where = ("pods", shape.pod or "", "scale_up", "racks_per_domain")
        cross = _cross_wire(g, b.chips[1], b.t1_part, file=str(rd.file), path=where,
                            line=line_of(rd.file, where) if rd.file else None)
    links = b.gpu_part.scale_up.links  # type: ignore[union-attr]
    per_gpu = b.gpu_part.scale_up.gbyte_s  # type: ignore[union-attr]
    bis = b.gpus / 2 * per_gpu
    if cross:
        bis = min(bis, cross * b.t1_part.port_gbyte_s)
    if up:
        bis = min(bis, l2_cut(g, b.chips[1]))
    diam, mean = _bfs_hops(g, "switched")
    return ScaleUpDomain(_domain_name(shape), "rack", shape.count,
                         b.gpus, b.gpu_part, len(racks), links, per_gpu, bis,
                         len(t1) + sum(len(c) for c in b.chips[2]), cross or up, g,
                         tiers=_tiers(g, b, cross, up), layouts=tuple(l for l, _ in shape.layouts),
                         rack_layouts=tuple(compute + spine), diameter_hops=diam, mean_hops=mean)


class _Build:
    """Adds racks, switch trays, chips, compute trays and GPUs to a domain graph."""

    def __init__(self, g: nx.Graph) -> None:
        self.g = g
        self.chips: dict[int, list[list[str]]] = {1: [], 2: []}
        self.trays: dict[int, int] = {1: 0, 2: 0}
        self.t1_part: NvlinkSwitchChip | None = None
        self.t2_part: NvlinkSwitchChip | None = None
        self.gpu_part: Gpu | None = None
        self.gpus = 0

    def rack(self, rd: ResolvedDesign, rack: str, lname: str, tier: int) -> None:
        g, lay = self.g, rd.layouts[lname]
        g.add_node(rack, kind="rack", slug=lay.rack.slug)
        g.add_node(f"{rack}.backplane", kind="nvlink_backplane")
        g.add_edge(rack, f"{rack}.backplane", kind="contains")
        chips: list[str] = []
        s = 0
        for item in lay.of_kind("nvlink_switch_tray"):
            part = rd.part(item.part.chips.type)  # type: ignore[attr-defined]
            if tier == 1:
                self.t1_part = part  # type: ignore[assignment]
            else:
                self.t2_part = part  # type: ignore[assignment]
            for _ in range(item.count):
                st = f"{rack}.s{s}"
                g.add_node(st, kind="nvlink_switch_tray", slug=item.part.slug, rack=rack, tier=tier)
                g.add_edge(rack, st, kind="contains")
                for c in range(item.part.chips.count):  # type: ignore[attr-defined]
                    chip = f"{st}.c{c}"
                    g.add_node(chip, kind="nvlink_switch_chip", slug=part.slug, rack=rack, tier=tier)
                    g.add_edge(st, chip, kind="contains")
                    chips.append(chip)
                s += 1
                self.trays[tier] += 1
        self.chips[tier].append(chips)
        t = 0
        used: Counter = Counter()
        for item in lay.of_kind("compute_tray"):
            tray_lay = rd.tray_layout(item.part)  # type: ignore[arg-type]
            for _ in range(item.count):
                tn = f"{rack}.t{t}"
                g.add_node(tn, kind="compute_tray", slug=item.part.slug, rack=rack)
                g.add_edge(rack, tn, kind="contains")
                for inst in tray_lay.of_kind("gpu"):
                    self.gpu_part = inst.part  # type: ignore[assignment]
                    gn = f"{tn}.{inst.name}"
                    g.add_node(gn, kind="gpu", slug=inst.part.slug, tray=tn, rack=rack)
                    g.add_edge(tn, gn, kind="contains")
                    _wire(g, gn, inst.part, chips, f"{rack}.backplane", used)  # type: ignore[arg-type]
                    self.gpus += 1
                t += 1
        _check_ports(rd, lname, self.t1_part, used)


def _tiers(g: nx.Graph, b: _Build, cross: int, up: int) -> tuple[SwitchTier, ...]:
    down = sum(d["links"] for u, v, d in g.edges(data=True)
               if d.get("kind") == "nvlink" and "gpu" in (g.nodes[u]["kind"], g.nodes[v]["kind"]))
    t1 = sum(len(c) for c in b.chips[1])
    out = [SwitchTier(1, b.trays[1], t1, b.t1_part.slug, t1 * b.t1_part.ports, down,  # type: ignore[union-attr]
                      up or 2 * cross, down / (up or 2 * cross) if (up or cross) else None)]
    if up:
        t2 = sum(len(c) for c in b.chips[2])
        out.append(SwitchTier(2, b.trays[2], t2, b.t2_part.slug, t2 * b.t2_part.ports, up, 0, None))  # type: ignore[union-attr]
    return tuple(out)


def _wire(g, gpu_node, gpu: Gpu, chips: list[str], via: str, used: Counter) -> None:
    """Spread a GPU's links over ``chips``, the first ``links % chips`` chips taking one
    more; every GPU uses the same pattern (HGX H100: 5/5/4/4 over 4 NVSwitches), so any
    even split of the GPUs sees the same links on every chip from both halves."""
    if gpu.scale_up is None or not chips:
        return
    links, n = gpu.scale_up.links, len(chips)
    for k in range(n):
        c = chips[k]
        m = links // n + (1 if k < links % n else 0)
        if m:
            g.add_edge(gpu_node, c, kind="nvlink", links=m,
                       gbyte_s=m * gpu.scale_up.link_gbyte_s, via=via)
            used[c] += m


def _check_ports(rd, lname: str, chip: NvlinkSwitchChip | None, used: Counter) -> None:
    if chip is None:
        return
    for c, n in used.items():
        if n > chip.ports:
            raise TopologyError(
                f"rack layout {lname!r}: GPUs need {n} NVLink ports on switch chip {c}, "
                f"{chip.slug} has {chip.ports}", file=str(rd.file), path=("racks", lname),
                hint="add NVLink switch trays or fewer GPUs per rack")


def _cross_wire(g, chips_by_rack, chip: NvlinkSwitchChip, **where) -> int:
    a, b = chips_by_rack
    if len(a) != len(b):
        raise TopologyError(f"the two racks have {len(a)} and {len(b)} NVLink switch chips; "
                            "back-to-back wiring needs the same number", **where)
    g.add_node("xrack", kind="nvlink_backplane")
    total = 0
    for ca, cb in zip(a, b):
        spare = min(chip.ports - local(g, ca), chip.ports - local(g, cb))
        if spare <= 0:
            raise TopologyError(
                f"switch chip {ca} has no port left for the other rack ({chip.ports} ports, all "
                "used by its own rack's GPUs)", hint="use racks_per_domain: 1, or racks with "
                "half the GPUs per switch chip (NVL36)", **where)
        if spare > 0:
            g.add_edge(ca, cb, kind="nvlink", links=spare, gbyte_s=spare * chip.port_gbyte_s,
                       via="xrack")
            total += spare
    return total


def _tray_domains(rd: ResolvedDesign) -> list[ScaleUpDomain]:
    in_rack_domains = {name for s in rd.domain_shapes for name, _ in s.layouts}
    counts: Counter = Counter()
    types: dict[str, ComputeTray] = {}
    for lname, racks in rd.rack_counts.items():
        if lname in in_rack_domains:
            continue
        for item in rd.layouts[lname].of_kind("compute_tray"):
            counts[item.part.slug] += racks * item.count
            types[item.part.slug] = item.part  # type: ignore[assignment]
    return [_tray_domain(rd, types[s], n) for s, n in sorted(counts.items())]


def _tray_domain(rd: ResolvedDesign, tray: ComputeTray, trays: int) -> ScaleUpDomain:
    lay = rd.tray_layout(tray)
    gpus = lay.of_kind("gpu")
    chips = lay.of_kind("nvlink_switch_chip")
    g = nx.Graph()
    g.add_node("t0", kind="compute_tray", slug=tray.slug)
    g.add_node("t0.baseboard", kind="nvlink_backplane")
    for c in chips:
        g.add_node(f"t0.{c.name}", kind="nvlink_switch_chip", slug=c.part.slug)
        g.add_edge("t0", f"t0.{c.name}", kind="contains")
    gpu: Gpu = gpus[0].part  # type: ignore[assignment]
    su = gpu.scale_up
    if chips and su is None:
        raise TopologyError(f"GPU {gpu.slug!r} has no scale_up ports in the catalog, but tray "
                            f"{tray.slug!r} joins its GPUs through {len(chips)} NVLink switch "
                            "chips", file=str(rd.file),
                            hint="add the GPU's scale_up (links, link_gbyte_s) to its catalog "
                            "entry, or remove the switch chips from the tray")
    used: Counter = Counter()
    for inst in gpus:
        g.add_node(f"t0.{inst.name}", kind="gpu", slug=inst.part.slug, tray="t0")
        g.add_edge("t0", f"t0.{inst.name}", kind="contains")
        if chips:
            _wire(g, f"t0.{inst.name}", inst.part, [f"t0.{c.name}" for c in chips],
                  "t0.baseboard", used)
    topology = "switched" if chips and su else "none"
    n = len(gpus)
    warnings: list[str] = []
    if su and su.topology in ("ring", "torus") and not chips and n > 1:
        # ring / torus chips outside a pod with scale_up.torus: the tray's chips form one
        # ring (the only shape a tray alone defines)
        return _tray_ring(rd, tray, trays, g, [f"t0.{i.name}" for i in gpus], gpu)
    if su and su.topology == "mesh" and n > 1:
        topology = "mesh"
        if su.links < n - 1:
            raise TopologyError(
                f"tray {tray.slug!r} joins {n} x {gpu.slug} in a full mesh, which needs {n - 1} "
                f"links per GPU (one per peer); the GPU declares {su.links}", file=str(rd.file),
                hint="give the GPU's scale_up the links it has per peer, or a ring / torus "
                "topology (a mesh figure would count links the chip does not have)")
        if su.links > n - 1:
            warnings.append(f"{gpu.slug}: {su.links} {su.technology} links declared, {n - 1} used: a "
                            f"full mesh of {n} GPUs takes one link per peer ({tray.slug})")
        for i in range(n):
            for j in range(i + 1, n):
                g.add_edge(f"t0.{gpus[i].name}", f"t0.{gpus[j].name}", kind="nvlink", links=1,
                           gbyte_s=su.link_gbyte_s, via="t0.baseboard")
    if topology == "none" or su is None:
        per_gpu, bis, links, n_dom, size = 0.0, 0.0, 0, trays * n, 1
    else:
        links = min(su.links, n - 1) if topology == "mesh" else su.links
        per_gpu = links * su.link_gbyte_s
        bis = (n / 2) ** 2 * su.link_gbyte_s if topology == "mesh" else n / 2 * per_gpu
        n_dom, size = trays, n
    if chips:
        _check_ports(rd, tray.slug, chips[0].part, used)  # type: ignore[arg-type]
    dom = ScaleUpDomain(f"tray {tray.slug}", "tray" if size > 1 else "gpu", n_dom, size, gpu, 0,
                        links, per_gpu, bis, len(chips), 0, g, topology, warnings=tuple(warnings))
    dom.diameter_hops, dom.mean_hops = (1, 1.0) if topology == "mesh" else _bfs_hops(g, topology)
    return dom


def _tray_ring(rd: ResolvedDesign, tray: ComputeTray, trays: int, g: nx.Graph,
               names: list[str], gpu: Gpu) -> ScaleUpDomain:
    """Ring / torus chips of one tray outside any torus pod: the tray's chips joined in
    one ring over the chip's first dimension; every other dimension's links are unused
    (a warning says so: the pod's ``scale_up.torus`` is what gives them neighbours)."""
    su = gpu.scale_up
    dims = su.dimensions  # type: ignore[union-attr]
    n = len(names)
    for i, a in enumerate(names):
        b = names[(i + 1) % n]
        per = dims[0] if n == 2 else dims[0] // 2
        if g.has_edge(a, b):
            continue
        g.add_edge(a, b, kind="nvlink", links=per, gbyte_s=per * su.link_gbyte_s,  # type: ignore[union-attr]
                   via="t0.baseboard", dim=0)
    warnings = [f"{gpu.slug}: {su.links} {su.technology} links declared, {dims[0]} used: "  # type: ignore[union-attr]
                f"outside a pod with scale_up.torus the {n} chips of {tray.slug} form one ring "
                "(the other dimensions have no neighbours)"] if su.links > dims[0] else []  # type: ignore[union-attr]
    shape = (n,)
    bis = torus_bisection(shape, (dims[0],), su.link_gbyte_s)  # type: ignore[union-attr]
    diam, mean = torus_hops(shape)
    return ScaleUpDomain(f"tray {tray.slug}", "tray", trays, n, gpu, 0, dims[0],
                         dims[0] * su.link_gbyte_s, bis, 0, 0, g, "ring",  # type: ignore[union-attr]
                         shape=shape, block=shape, block_joins="cables", diameter_hops=diam,
                         mean_hops=mean, warnings=tuple(warnings))


# ---------------------------------------------------------------------------------------
# Switchless rings and tori (TPU ICI, Trainium NeuronLink): issue 29, item 1


def torus_bisection(shape: tuple[int, ...], dim_links: tuple[int, ...], link_gbyte_s: float) -> float:
    """Bisection (GB/s per direction) of a torus with wrap-around in every dimension.

    A cut across dimension *d* (``k_d`` chips) meets the ``N / k_d`` rings of that
    dimension twice each (the wrap-around), so it crosses ``2 N / k_d`` neighbour pairs of
    ``dim_links[d] / 2`` links each (``k_d = 2``: the two neighbours are one chip, joined
    by all ``dim_links[d]`` links, the same total). The bisection is the smallest such cut:
    for a k-ary n-cube, ``2 k^(n-1)`` neighbour pairs. Dimensions of one chip have no
    neighbours and are never cut. ``tests/test_property.py`` checks it against min cuts
    of the expanded graph.

    >>> torus_bisection((4, 4, 4), (2, 2, 2), 100.0)   # 2 x 16 pairs x 1 link x 100 GB/s
    3200.0
    >>> torus_bisection((8,), (2,), 50.0)              # a ring: cut twice
    100.0
    """
    n = math.prod(shape)
    cuts = [2 * n / k * (dl / 2) * link_gbyte_s for k, dl in zip(shape, dim_links) if k > 1]
    return min(cuts, default=0.0)


def torus_hops(shape: tuple[int, ...]) -> tuple[int, float]:
    """(diameter, mean hops between two distinct chips) of a torus with wrap-around:
    per dimension the ring distance ``min(i, k - i)``; the diameter adds ``floor(k / 2)``.

    >>> torus_hops((4, 4, 4))
    (6, 3.0476190476190474)
    """
    n = math.prod(shape)
    diam = sum(k // 2 for k in shape)
    mean_all = sum(sum(min(i, k - i) for i in range(k)) / k for k in shape)  # self included
    return diam, (mean_all * n / (n - 1) if n > 1 else 0.0)


def _bfs_hops(g: nx.Graph, topology: str) -> tuple[int, float]:
    """(diameter, mean) links from the first GPU to every other GPU over scale-up edges;
    GPUs of a switched domain do not forward."""
    gpus = sorted(n for n, d in g.nodes(data=True) if d.get("kind") == "gpu")
    if len(gpus) < 2 or topology == "none":
        return 0, 0.0
    src, dist, frontier = gpus[0], {gpus[0]: 0}, [gpus[0]]
    while frontier:
        nxt = []
        for u in frontier:
            if u != src and g.nodes[u].get("kind") == "gpu" and topology == "switched":
                continue
            for v, d in g[u].items():
                if d.get("kind") == "nvlink" and v not in dist:
                    dist[v] = dist[u] + 1
                    nxt.append(v)
        frontier = nxt
    far = [dist[n] for n in gpus[1:] if n in dist]
    return (max(far), sum(far) / len(far)) if far else (0, 0.0)


def torus_coords(i: int, shape: tuple[int, ...], block: tuple[int, ...]) -> tuple[int, ...]:
    """Coordinates of chip ``i`` (numbered rack by rack, tray by tray): blocks are filled
    first, x fastest; blocks then fill the torus, x fastest.

    >>> torus_coords(5, (4, 4), (2, 2)), torus_coords(8, (4, 4), (2, 2))
    ((3, 0), (0, 2))
    """
    per = math.prod(block)
    b, j = divmod(i, per)
    inner, outer = [], []
    for k in block:
        j, r = divmod(j, k)
        inner.append(r)
    for k, kb in zip(shape, block):
        b, r = divmod(b, k // kb)
        outer.append(r)
    return tuple(o * kb + c for o, kb, c in zip(outer, block, inner))


def torus_domain(rd: ResolvedDesign, shape: DomainShape) -> ScaleUpDomain:
    """A pod's switchless ring / torus domain (``pods.<pod>.scale_up.torus``).

    Wiring: every chip joins its two neighbours in each dimension with half its links of
    that dimension (``torus_links``), wrap-around included; a dimension of 2 chips joins
    the pair with all of them. Links inside a rack are carried by the rack's backplane
    (``r<i>.backplane``); links between blocks joined by optical circuit switches by
    ``ocs`` (one node for the OCS layer: its switches are not counted, see the scale-up
    guide); other links between racks by ``xrack``.
    """
    spec = shape.torus
    dims = tuple(spec.torus)  # type: ignore[union-attr]
    block = tuple(spec.block or dims)  # type: ignore[union-attr]
    path = ("pods", shape.pod or "", "scale_up", "torus")
    where = {"file": str(rd.file), "path": path,
             "line": line_of(rd.file, path) if rd.file else None}
    g = nx.Graph()
    chips: list[str] = []
    rack_of: list[int] = []
    gpu_part: Gpu | None = None
    racks = [name for name, n in shape.layouts for _ in range(n)]
    for r, lname in enumerate(racks):
        rack = f"r{r}"
        g.add_node(rack, kind="rack", slug=rd.layouts[lname].rack.slug)
        g.add_node(f"{rack}.backplane", kind="nvlink_backplane")
        g.add_edge(rack, f"{rack}.backplane", kind="contains")
        t = 0
        for item in rd.layouts[lname].of_kind("compute_tray"):
            lay = rd.tray_layout(item.part)  # type: ignore[arg-type]
            for _ in range(item.count):
                tn = f"{rack}.t{t}"
                g.add_node(tn, kind="compute_tray", slug=item.part.slug, rack=rack)
                g.add_edge(rack, tn, kind="contains")
                for inst in lay.of_kind("gpu"):
                    part: Gpu = inst.part  # type: ignore[assignment]
                    if gpu_part is not None and part.slug != gpu_part.slug:
                        raise TopologyError(f"a torus domain joins one chip type; pod "
                                            f"{shape.pod!r} holds {gpu_part.slug} and {part.slug}",
                                            **where)
                    gpu_part = part
                    gn = f"{tn}.{inst.name}"
                    g.add_node(gn, kind="gpu", slug=part.slug, tray=tn, rack=rack)
                    g.add_edge(tn, gn, kind="contains")
                    chips.append(gn)
                    rack_of.append(r)
                t += 1
    n = math.prod(dims)
    su = gpu_part.scale_up if gpu_part is not None else None
    if su is None or su.topology not in ("ring", "torus"):
        what = "no chips" if gpu_part is None else (
            f"{gpu_part.slug} (scale_up: {su.topology if su else 'none'})")
        raise TopologyError(f"pod {shape.pod!r}: scale_up.torus joins ring / torus chips; it holds "
                            f"{what}", hint="use chips whose catalog scale_up.topology is ring or "
                            "torus, or remove scale_up.torus", **where)
    if len(chips) != n:
        raise TopologyError(f"pod {shape.pod!r} holds {len(chips):,} chips; a "
                            f"{'x'.join(map(str, dims))} torus needs {n:,}",
                            hint="make the torus's dimensions multiply to the pod's chips", **where)
    cdims = su.dimensions
    if len(dims) != len(cdims):
        raise TopologyError(f"pod {shape.pod!r}: a {len(dims)}-dimensional torus, but "
                            f"{gpu_part.slug} has links for {len(cdims)} dimension(s) "  # type: ignore[union-attr]
                            f"(torus_links {list(cdims)})", hint="give the torus one entry per "
                            "dimension of the chip (1 for a dimension not used)", **where)
    joins = spec.block_joins  # type: ignore[union-attr]
    coords = [torus_coords(i, dims, block) for i in range(n)]
    index = {c: i for i, c in enumerate(coords)}
    bcoord = [tuple(x // kb for x, kb in zip(c, block)) for c in coords]
    for i, c in enumerate(coords):
        for d, k in enumerate(dims):
            if k < 2:
                continue
            nb = list(c)
            nb[d] = (c[d] + 1) % k
            j = index[tuple(nb)]
            m = cdims[d] if k == 2 else cdims[d] // 2
            if rack_of[i] == rack_of[j]:
                via = f"r{rack_of[i]}.backplane"
            elif joins == "optical_circuit_switch" and bcoord[i] != bcoord[j]:
                via = "ocs"
            else:
                via = "xrack"
            if not g.has_node(via):
                g.add_node(via, kind="nvlink_backplane")
            if not g.has_edge(chips[i], chips[j]):
                g.add_edge(chips[i], chips[j], kind="nvlink", links=m,
                           gbyte_s=m * su.link_gbyte_s, via=via, dim=d)
    used = sum(dl for k, dl in zip(dims, cdims) if k > 1)
    warnings = []
    idle = [d for d, k in enumerate(dims) if k == 1]
    if idle:
        warnings.append(f"{gpu_part.slug}: {su.links} {su.technology} links declared, {used} used: "  # type: ignore[union-attr]
                        f"dimension(s) {', '.join(map(str, idle))} of the "
                        f"{'x'.join(map(str, dims))} torus hold one chip, so their "
                        f"{sum(cdims[d] for d in idle)} links have no neighbour")
    bis = torus_bisection(dims, cdims, su.link_gbyte_s)
    diam, mean = torus_hops(dims)
    topology = "ring" if sum(1 for k in dims if k > 1) <= 1 else "torus"
    return ScaleUpDomain(_domain_name(shape), "rack", shape.count, n, gpu_part, len(racks),  # type: ignore[arg-type]
                         used, used * su.link_gbyte_s, bis, 0,
                         sum(d["links"] for _, _, d in g.edges(data=True)
                             if d.get("via") in ("xrack", "ocs")),
                         g, topology, layouts=tuple(l for l, _ in shape.layouts),
                         rack_layouts=tuple(racks), shape=dims, block=block, block_joins=joins,
                         diameter_hops=diam, mean_hops=mean, warnings=tuple(warnings))
