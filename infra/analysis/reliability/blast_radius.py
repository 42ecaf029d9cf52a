"""Blast radius: what one failure of each kind of component takes down.

For each component kind the design contains, one representative instance fails and the
analysis reports GPUs lost (unusable), GPUs degraded (and the share of bandwidth the
worst of them keeps), NVLink domains broken, the share of cluster peak FLOPS lost, and
the largest job (GPUs) still placeable in one healthy NVLink partition.

Semantics
---------
- NVLink partition mode (design setting, NVIDIA's two modes): ``full_bandwidth`` - a
  GPU that loses any NVLink link cannot be in a partition; ``adaptive_bandwidth`` - it
  keeps running with the links it has left (degraded).
- In a two-rack domain, each rack's healthy GPUs form their own partition when the
  cross-rack links are not all intact (the NVL36x2 selling point: 36 survive).
- A compute tray is one node: its CPU, superchip or tray failing loses its GPUs.
- A NIC or PCIe switch failing degrades the GPUs whose scale-out share drops
  (effective bandwidth after / before); GPUs that lose their only path to a CPU are lost.
- Power shelves, PDUs and cooling units: if the remaining units still carry the load
  (N+1), nothing is lost; otherwise every rack they serve is lost.
- ``domains_broken`` counts domains that can no longer host a job on all their GPUs.

Everything is evaluated once per domain shape / tray type and multiplied by counts.
"""

from __future__ import annotations

import math
import weakref
from collections import Counter
from dataclasses import dataclass

import networkx as nx

from infra.analysis.network.bandwidth import SCALE_OUT
from infra.analysis.power.cooling import DesignCooling
from infra.analysis.network.pcie import tray_contention
from infra.analysis.power.it_power import DesignPower
from infra.analysis.reliability.effect import Effect  # re-exported: callers import it from here
from infra.analysis.reliability.fabric_blast import fabric_blast
from infra.models.resolve import ResolvedDesign
from infra.topology.scaleup import ScaleUpDomain, scale_up_domains


@dataclass(frozen=True)
class BlastRow:
    component_kind: str
    component: str
    count: int  # such components in the cluster
    gpus_lost: int
    gpus_degraded: int
    degraded_bandwidth_fraction: float | None  # kept by the worst degraded GPU
    domains_broken: int
    largest_placeable_job_gpus: int
    cluster_flops_lost_fraction: float
    note: str = ""


@dataclass(frozen=True)
class DomainFailure:
    """A failure's effect on one domain, by GPU node name."""

    lost: tuple[str, ...]
    degraded: tuple[str, ...]
    kept: dict[str, float]  # degraded GPU -> share of its NVLink links kept
    partitions: tuple[int, ...]

    def effect(self) -> Effect:
        return Effect(len(self.lost), len(self.degraded),
                      min(self.kept.values()) if self.kept else None, self.partitions)


def domain_effect(dom: ScaleUpDomain, failed: set[str], mode: str) -> Effect:
    """Effect of failing graph nodes ``failed`` (and everything inside them) on ``dom``.

    Examples
    --------
    >>> from infra.models.resolve import load_design
    >>> dom = scale_up_domains(load_design("designs/aws_nvl36x2.yaml"))[0]
    >>> domain_effect(dom, {"r0.backplane"}, "full_bandwidth").partitions
    (36,)
    """
    return domain_failure(dom, failed, mode).effect()


def domain_failure(dom: ScaleUpDomain, failed: set[str], mode: str) -> DomainFailure:
    """Which GPUs of ``dom`` are lost or degraded when ``failed`` nodes fail."""
    g = dom.graph
    inside = tuple(f + "." for f in failed)
    dead = {n for n in g if n in failed or n.startswith(inside)}
    lists = _graph_lists(g)
    gpus = lists.gpus
    alive = [n for n in gpus if n not in dead]

    def ok(u: str, v: str, d: dict) -> bool:
        return d.get("kind") == "nvlink" and u not in dead and v not in dead and d.get("via") not in dead

    if dom.tiered:
        return _tiered_failure(dom, dead, gpus, ok, mode)
    if dom.topology in ("ring", "torus"):
        return _torus_failure(dom, dead, gpus, lists)
    if dom.topology in ("none", "mesh"):
        parts = (tuple(1 for _ in alive) if dom.topology == "none"
                 else ((len(alive),) if alive else ()))
        return DomainFailure(tuple(n for n in gpus if n in dead), (), {}, parts)
    # ok() per edge, unrolled over each GPU's NVLink edges listed once per graph
    links = {n: sum(d["links"] for u, v, via, d in lists.nvlink[n]
                    if u not in dead and v not in dead and via not in dead) for n in alive}
    full = dom.links_per_gpu
    if mode == "full_bandwidth":
        healthy = {n for n in alive if links[n] == full}
        cross = [ok(u, v, d) for u, v, d in lists.xrack]
        if cross and not all(cross):
            parts = [sum(1 for n in healthy if g.nodes[n]["rack"] == r) for r in ("r0", "r1")]
        else:
            parts = [len(healthy)]
        return DomainFailure(tuple(n for n in gpus if n not in healthy), (), {},
                             tuple(p for p in parts if p))
    usable = {n for n in alive if links[n] > 0}
    sub = nx.Graph()
    sub.add_nodes_from(usable)
    sub.add_edges_from((u, v) for u, v, d in g.edges(data=True) if ok(u, v, d))
    parts = tuple(sorted((len(c & usable) for c in nx.connected_components(sub) if c & usable),
                         reverse=True))
    deg = sorted(n for n in usable if links[n] < full)
    return DomainFailure(tuple(n for n in gpus if n not in usable), tuple(deg),
                         {n: links[n] / full for n in deg}, parts)


def _torus_failure(dom: ScaleUpDomain, dead: set[str], gpus: list[str], lists) -> DomainFailure:
    """A switchless ring / torus (TPU ICI, Trainium NeuronLink), whatever the partition mode:

    - failed chips (and the chips of a failed tray or rack) are lost; a chip whose every
      link failed is lost too; a chip that lost some links is degraded (share kept);
    - the largest placeable slice: with optical circuit switches between blocks (TPU
      cubes) the blocks holding a lost chip are switched out and the rest rejoined:
      ``N - blocks hit x block``; without them the rings through a lost chip break, and
      the largest slice that keeps every other ring whole leaves out the chip's slab
      across the longest dimension: ``N - slabs hit x N / k_max`` (a ring: ``N - 1``, the
      rest a line). Links lost without a chip lost leave every chip placeable.
    """
    full = dom.links_per_gpu
    alive = [n for n in gpus if n not in dead]
    links = {n: sum(d["links"] for u, v, via, d in lists.nvlink[n]
                    if u not in dead and v not in dead and via not in dead) for n in alive}
    lost = [n for n in gpus if n in dead or links.get(n, 0) == 0]
    deg = sorted(n for n in alive if 0 < links[n] < full)
    n_all = len(gpus)
    if not lost:
        parts: tuple[int, ...] = (n_all,)
    else:
        index = {g: i for i, g in enumerate(sorted(gpus, key=_chip_order))}
        from infra.topology.scaleup import torus_coords
        shape, block = dom.shape, dom.block or dom.shape
        coords = [torus_coords(index[g], shape, block) for g in lost]
        if dom.block_joins == "optical_circuit_switch":
            hit = {tuple(x // b for x, b in zip(c, block)) for c in coords}
            left = n_all - len(hit) * math.prod(block)
        else:
            d = max(range(len(shape)), key=lambda i: (shape[i], i))
            left = n_all - len({c[d] for c in coords}) * (n_all // shape[d])
        parts = (left,) if left > 0 else ()
    return DomainFailure(tuple(lost), tuple(deg), {n: links[n] / full for n in deg}, parts)


def _chip_order(name: str) -> tuple:
    """r<i>.t<j>.<id><k> in numbering order (rack, tray, chip), as the torus numbers them."""
    out = []
    for part in name.split("."):
        head = part.rstrip("0123456789")
        out += [head, int(part[len(head):] or 0)]
    return tuple(out)


class _GraphLists:
    """A domain graph's GPUs (sorted), each GPU's edges and the cross-rack edges, in
    networkx's order: listed once per graph instead of once per failure evaluated."""

    def __init__(self, g: nx.Graph) -> None:
        self.gpus = sorted(n for n, d in g.nodes(data=True) if d["kind"] == "gpu")
        self.edges = {n: list(g.edges(n, data=True)) for n in self.gpus}
        self.nvlink = {n: [(u, v, d.get("via"), d) for u, v, d in e if d.get("kind") == "nvlink"]
                       for n, e in self.edges.items()}
        self.xrack = [(u, v, d) for u, v, d in g.edges(data=True) if d.get("via") == "xrack"]


_LISTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _graph_lists(g: nx.Graph) -> _GraphLists:
    """:class:`_GraphLists` of ``g``, kept while ``g`` lives (domain graphs are built
    once and never changed afterwards)."""
    hit = _LISTS.get(g)
    if hit is None:
        hit = _LISTS[g] = _GraphLists(g)
    return hit


def _tiered_failure(dom: ScaleUpDomain, dead: set[str], gpus: list[str], ok, mode: str) -> DomainFailure:
    """Two-tier domains: losing access links removes (full_bandwidth) or degrades
    (adaptive) a GPU; losing L1-L2 uplinks degrades the cross-rack bandwidth of the GPUs
    behind the L1 chips concerned, never removes them. Partitions = connected components
    (union-find over the domain's NVLink edges, listed once per domain shape).
    """
    access, uplinks = _nvlink_lists(dom)
    full = dom.links_per_gpu

    def up(via: str, *ends: str) -> bool:
        return via not in dead and not any(e in dead for e in ends)

    alive = [n for n in gpus if n not in dead]
    links = {n: sum(k for c, k, via in access[n] if up(via, c)) for n in alive}
    keep = ({n for n in alive if links[n] == full} if mode == "full_bandwidth"
            else {n for n in alive if links[n] > 0})
    share: dict[str, float] = {}
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for c, ups in uplinks.items():
        if c in dead:
            continue
        total = sum(k for _, k, _ in ups)
        good = [(c2, k) for c2, k, via in ups if up(via, c2)]
        share[c] = sum(k for _, k in good) / total if total else 1.0
        for c2, _ in good:
            parent[find(c)] = find(c2)
    kept = {}
    for n in keep:
        live = [(c, k) for c, k, via in access[n] if up(via, c)]
        frac = sum(k * share.get(c, 1.0) for c, k in live) / full
        if frac < 1 - 1e-9:
            kept[n] = frac
        for c, _ in live:
            parent[find(n)] = find(c)
    sizes: Counter = Counter(find(n) for n in keep)
    return DomainFailure(tuple(n for n in gpus if n not in keep), tuple(sorted(kept)), kept,
                         tuple(sorted(sizes.values(), reverse=True)))


def _nvlink_lists(dom: ScaleUpDomain) -> tuple[dict, dict]:
    """GPU -> [(L1 chip, links, via)] and L1 chip -> [(L2 chip, links, via)], cached."""
    cached = dom.__dict__.get("_nvlink_lists")
    if cached is None:
        g = dom.graph
        access: dict[str, list] = {n: [] for n, d in g.nodes(data=True) if d["kind"] == "gpu"}
        uplinks: dict[str, list] = {n: [] for n, d in g.nodes(data=True)
                                    if d["kind"] == "nvlink_switch_chip" and d.get("tier") == 1}
        for u, v, d in g.edges(data=True):
            if d.get("kind") != "nvlink":
                continue
            if u in access or v in access:
                gpu, chip = (u, v) if u in access else (v, u)
                access[gpu].append((chip, d["links"], d.get("via")))
            else:
                low, high = (u, v) if u in uplinks else (v, u)
                uplinks[low].append((high, d["links"], d.get("via")))
        cached = dom.__dict__["_nvlink_lists"] = (access, uplinks)
    return cached


def tray_component_failure(tray, catalog, name: str) -> tuple[list[str], dict[str, float]]:
    """GPUs of ``tray`` cut off from every CPU, and the scale-out share the others keep
    (only those below 1), when component ``name`` (a NIC or PCIe switch) fails."""
    from infra.topology.tray import tray_graph

    g = tray_graph(tray, catalog)
    gpus = sorted(n for n, d in g.nodes(data=True) if d["kind"] == "gpu")
    keep = nx.subgraph_view(g, filter_node=lambda n: n != name and g.nodes[n]["kind"] != "nic",
                            filter_edge=lambda a, b: g.edges[a, b]["kind"] != "contains")
    cpus = [n for n, d in g.nodes(data=True) if d["kind"] == "cpu"]
    lost = [x for x in gpus if not any(nx.has_path(keep, x, c) for c in cpus)]
    base = tray_contention(tray, catalog).per_source(SCALE_OUT)
    after = tray_contention(tray, catalog, frozenset({name})).per_source(SCALE_OUT)
    kept = {x: after.get(x, (0.0, 0.0))[1] / base[x][1] for x in gpus
            if x not in lost and x in base and base[x][1] > 0}
    return lost, {x: f for x, f in kept.items() if f < 1 - 1e-9}


def blast_radius(rd: ResolvedDesign, power: DesignPower, cooling: DesignCooling,
                 fabrics: list | None = None) -> list[BlastRow]:
    """One row per component kind (and SKU) of ``rd``."""
    ctx = _Ctx(rd, power, cooling)
    for dom in scale_up_domains(rd):
        ctx.domain_rows(dom)
    for tray in rd.tray_types():
        ctx.tray_rows(tray)
    ctx.infra_rows()
    for f in fabrics or []:
        for kind, comp, count, eff, note in fabric_blast(f):
            ctx.add(kind, comp, count, None, eff, 0, note,
                    gpu_flops=ctx._flops(ctx.domains[0]) if ctx.domains else 0.0)
    return ctx.rows


class _Ctx:
    def __init__(self, rd: ResolvedDesign, power: DesignPower, cooling: DesignCooling) -> None:
        self.rd, self.power, self.cooling = rd, power, cooling
        self.mode = rd.design.assumptions.nvlink_partition_mode
        self.domains = scale_up_domains(rd)
        self.rows: list[BlastRow] = []
        self.total_gpus = sum(d.gpus * d.count for d in self.domains)
        self.total_flops = sum(self._flops(d) * d.gpus * d.count for d in self.domains) or 1.0
        # the two largest domains with a count: "largest elsewhere" in O(1) per row
        self._top = sorted((d for d in self.domains if d.count), key=lambda d: -d.gpus)[:2]
        # rack domain of each layout (rack domains come first, in domain_shapes order)
        self._layout_domain: dict[str, ScaleUpDomain] = {}
        for shape, d in zip(rd.domain_shapes, self.domains):
            for ln, _ in shape.layouts:
                self._layout_domain.setdefault(ln, d)
        # NVLink graphs are shared by domains of one NVLink shape: evaluate each failure once
        self._effects: dict[tuple, Effect] = {}
        self._firsts: dict[int, dict[str, list[str]]] = {}
        self._rack_gpus: dict[tuple, int] = {}  # keyed by graph id: graphs outlive the rows
        self._figures: dict[tuple, tuple] = {}  # see add()
        self._cases: dict[tuple, list] = {}  # see domain_rows(); the domains outlive it

    def effect(self, dom: ScaleUpDomain, failed: set[str]) -> Effect:
        """:func:`domain_effect`, memoised by graph (shared between equal shapes) and nodes."""
        key = (id(dom.graph), frozenset(failed))
        if key not in self._effects:
            self._effects[key] = domain_effect(dom, failed, self.mode)
        return self._effects[key]

    @staticmethod
    def _flops(d: ScaleUpDomain) -> float:
        return d.gpu.peak_dense_tflops.bf16 or 1.0

    def largest_elsewhere(self, dom: ScaleUpDomain | None, broken: int = 1) -> int:
        sizes = [d.gpus for d in self._top if d is not dom][:1]
        if dom is not None and dom.count > broken:
            sizes.append(dom.gpus)
        return max(sizes, default=0)

    def add(self, kind, comp, count, dom, eff: Effect, broken, note="", gpu_flops=None) -> None:
        # everything but the name and count depends on (effect, domain, broken, FLOPS) only:
        # worked out once per such case, not once per row (7,000 rows at 1,000 layouts)
        top = tuple(d is dom for d in self._top)  # what largest_elsewhere asks of the domain
        key = ((eff, broken, gpu_flops) if dom is None else
               (eff, broken, gpu_flops, top, dom.gpus, dom.count, self._flops(dom)))
        figs = self._figures.get(key)
        if figs is None:
            flops = (gpu_flops if gpu_flops is not None else (self._flops(dom) if dom else 0.0))
            largest = max(max(eff.partitions, default=0), self.largest_elsewhere(dom, broken))
            figs = self._figures[key] = (
                eff.lost, eff.degraded, None if eff.fraction is None else round(eff.fraction, 4),
                broken, largest, round(eff.lost * flops / self.total_flops, 6))
        self.rows.append(BlastRow(kind, comp, count, *figs, note))

    def domain_rows(self, dom: ScaleUpDomain) -> None:
        # domains of one NVLink graph (copies differing in name, layouts and count) give
        # the same cases: worked out once per (graph, count, ...), named per domain
        key = (id(dom.graph), dom.count, dom.gpus, dom.switch_chips, dom.scope, dom.racks,
               dom.topology, dom.links_per_gpu, id(dom.tiers), id(dom.gpu))
        cases = self._cases.get(key)
        if cases is None:
            cases = self._cases[key] = self._domain_cases(dom)
        label = f"in {dom.name}"
        for kind, what, count, eff, broken, note in cases:
            self.add(kind, f"{what} {label}", count, dom, eff, broken, note)

    def _domain_cases(self, dom: ScaleUpDomain) -> list[tuple]:
        """(kind, what, count, effect, domains broken, note) of each failure of ``dom``."""
        g, n = dom.graph, dom.count
        first = self._firsts.get(id(g))
        if first is None:
            first = self._firsts[id(g)] = {
                k: sorted(x for x, d in g.nodes(data=True) if d["kind"] == k)
                for k in ("gpu", "nvlink_switch_chip", "nvlink_switch_tray", "rack")}
        cases = [("gpu", first["gpu"][:1], dom.gpus * n, "one GPU")]
        if dom.topology in ("ring", "torus"):
            return self._torus_cases(dom, cases)
        if dom.tiered:
            cases += self._tier_cases(dom)
        elif first["nvlink_switch_chip"]:
            cases.append(("nvlink_switch_chip", first["nvlink_switch_chip"][:1],
                          dom.switch_chips * n, "one NVLink switch chip"))
        if first["nvlink_switch_tray"] and not dom.tiered:
            cases.append(("nvlink_switch_tray", first["nvlink_switch_tray"][:1],
                          len(first["nvlink_switch_tray"]) * n, "one NVLink switch tray"))
        if dom.scope == "rack":
            if "gpu_racks" not in first:  # once per graph
                first["gpu_racks"] = len({d["rack"] for _, d in g.nodes(data=True)  # type: ignore[assignment]
                                          if d["kind"] == "gpu"})
            cases.append(("nvlink_backplane", ["r0.backplane"], first["gpu_racks"] * n,  # type: ignore[operator]
                          "one rack's NVLink cable cartridge"))
            if dom.racks == 2 and not dom.tiered:
                cases.append(("nvlink_backplane", ["xrack"], n, "the cross-rack NVLink cable set"))
        out = []
        for kind, failed, count, what in cases:
            eff = self.effect(dom, set(failed))
            broken = 0 if max(eff.partitions, default=0) == dom.gpus else 1
            note = f"{what}; partitions left: {list(eff.partitions) or 'none'} ({self.mode})"
            if dom.tiered and eff.degraded and not eff.lost:
                note += "; degraded = NVLink bandwidth kept through the L2 tier (worst GPU)"
            out.append((kind, what, count, eff, broken, note))
        if dom.topology == "mesh":
            out.append(self._mesh_link_case(dom))
        return out

    def _torus_cases(self, dom: ScaleUpDomain, cases: list) -> list[tuple]:
        """One chip and one link of a ring / torus (rules: :func:`_torus_failure`)."""
        out = []
        for kind, failed, count, what in cases:
            eff = self.effect(dom, set(failed))
            broken = 0 if max(eff.partitions, default=0) == dom.gpus else 1
            how = ("its cube is switched out by the optical circuit switches"
                   if dom.block_joins == "optical_circuit_switch" else
                   "the rings through it break; the largest slice leaves out its slab")
            out.append((kind, f"one chip ({dom.gpu.slug})", count, eff, broken,
                        f"{how}; slices left: {list(eff.partitions) or 'none'}"))
        g = dom.graph
        edges = [d for _, _, d in g.edges(data=True) if d.get("kind") == "nvlink"]
        worst = max(edges, key=lambda d: d["links"], default=None)
        if worst is not None:
            full = dom.links_per_gpu
            eff = Effect(0, 2, (full - worst["links"]) / full, (dom.gpus,))
            out.append(("scale_up_link", f"one {dom.gpu.scale_up.technology} link",  # type: ignore[union-attr]
                        len(edges) * dom.count, eff, 0,
                        f"the ring through it becomes a line (dimension {worst.get('dim', 0)}); "
                        f"{full - worst['links']}/{full} of each end's links left; every chip "
                        "stays placeable"))
        return out

    @staticmethod
    def _mesh_link_case(dom: ScaleUpDomain) -> tuple:
        """One peer link of a switchless mesh: its two GPUs keep (links - 1) / links of
        their scale-up bandwidth; nothing is lost (the mesh has no switch to fail)."""
        links = dom.links_per_gpu
        pairs = dom.gpus * (dom.gpus - 1) // 2
        eff = Effect(0, 2, (links - 1) / links, (dom.gpus,))
        return ("scale_up_link", f"one {dom.gpu.scale_up.technology} peer link",  # type: ignore[union-attr]
                pairs * dom.count, eff, 0,
                f"the pair's direct traffic must relay through a third GPU; "
                f"{links - 1}/{links} of each end's links left")

    @staticmethod
    def _tier_cases(dom: ScaleUpDomain) -> list[tuple]:
        """One switch chip and one switch tray of each tier (L1 beside the GPUs, L2 above)."""
        g, cases = dom.graph, []
        for t in dom.tiers:
            for kind, what in (("nvlink_switch_chip", "switch chip"),
                               ("nvlink_switch_tray", "switch tray")):
                nodes = sorted(x for x, d in g.nodes(data=True)
                               if d["kind"] == kind and d.get("tier") == t.tier)
                if nodes:
                    count = (t.chips if kind == "nvlink_switch_chip" else t.switch_trays) * dom.count
                    cases.append((kind, nodes[:1], count, f"one L{t.tier} NVLink {what}"))
        return cases

    def tray_rows(self, tray) -> None:
        rd = self.rd
        dom = next((d for d in self.domains
                    if any(x.get("slug") == tray.slug for _, x in d.graph.nodes(data=True)
                           if x["kind"] == "compute_tray")), None)
        if dom is None:
            return
        trays = rd.tray_counts()[tray.slug]
        tnode = next(x for x, d in sorted(dom.graph.nodes(data=True))
                     if d["kind"] == "compute_tray" and d["slug"] == tray.slug)
        lay = rd.tray_layout(tray)
        node_eff = domain_effect(dom, {tnode}, self.mode)
        broken = 1 if dom.gpus > 1 and dom.topology != "none" else 0
        for kind in ("compute_tray", "superchip", "cpu"):
            count = trays if kind == "compute_tray" else trays * lay.count(kind)
            if count:
                self.add(kind, f"{tray.slug}" if kind == "compute_tray" else
                         f"{lay.of_kind(kind)[0].part.slug} in {tray.slug}", count, dom, node_eff,
                         broken, "the tray is one node: its GPUs go down with it")
        for kind in ("nic", "pcie_switch"):
            by_slug: dict[str, list[str]] = {}
            for inst in lay.of_kind(kind):
                by_slug.setdefault(inst.part.slug, []).append(inst.name)
            for slug, names in by_slug.items():
                worst = max(names, key=lambda n: self._key(self._component_failure(tray, n)))
                eff = self._component_failure(tray, worst)
                if eff.lost:
                    lost, _ = tray_component_failure(tray, rd.catalog, worst)
                    failed = {f"{tnode}.{g}" for g in lost}
                    eff = Effect(eff.lost, eff.degraded, eff.fraction,
                                 domain_effect(dom, failed, self.mode).partitions)
                note = "scale-out share kept by the worst affected GPU (all flows at once)"
                if getattr(lay.instances[worst].part, "integrated", False):
                    note += ("; ports on the accelerator's own die: it keeps its scale-up mesh, "
                             "its scale-out ports go with it")
                self.add(kind, f"{slug} in {tray.slug}", trays * len(names), dom, eff,
                         1 if eff.lost and dom.gpus > 1 else 0, note)

    @staticmethod
    def _key(e: Effect) -> tuple:
        """Worst first: most GPUs lost, then degraded, then the least bandwidth kept."""
        return (e.lost, e.degraded, -(e.fraction if e.fraction is not None else 1.0))

    def _component_failure(self, tray, name: str) -> Effect:
        lost, kept = tray_component_failure(tray, self.rd.catalog, name)
        return Effect(len(lost), len(kept), min(kept.values()) if kept else None, ())

    def infra_rows(self) -> None:
        rd = self.rd
        for rp in self.power.racks:
            lay = rd.layouts[rp.layout]
            dom, rack_gpus, per_rack_domains = self._rack_context(rp.layout)
            if dom is None:
                continue
            rack_eff = self._rack_effect(dom, rp.layout, rack_gpus)
            if dom.tiered:  # losing a rack of L2 switches degrades the domain, need not break it
                per_rack_domains = 0 if max(rack_eff.partitions, default=0) == dom.gpus else 1
            self.add("rack", f"{rp.layout} ({lay.rack.slug})", rp.racks, dom, rack_eff,
                     per_rack_domains, "whole rack down")
            units: dict[str, list] = {}
            for item in lay.items:
                if item.part.kind in ("power_shelf", "pdu", "cooling_unit"):
                    units.setdefault(item.part.slug, [item.part, 0])[1] += item.count
            for part, count in units.values():
                load = rp.liquid_kw if part.kind == "cooling_unit" else rp.it_kw
                cap = part.capacity_kw  # type: ignore[attr-defined]
                redundant = cap is not None and (count - 1) * cap >= load
                eff = Effect(0, 0, None, (dom.gpus,)) if redundant else rack_eff
                note = (f"{count - 1} x {cap:g} kW left carry {load:.1f} kW" if redundant
                        else f"the rest cannot carry {load:.1f} kW: the rack goes down")
                self.add(part.kind, f"{part.slug} in {rp.layout}", count * rp.racks, dom, eff,
                         0 if redundant else per_rack_domains, note)
        for row in self.cooling.rows:
            if not row.scope.startswith("pod:"):
                continue
            self._pod_cooling_row(row)

    def _rack_context(self, layout: str):
        d = self._layout_domain.get(layout)
        if d is not None:
            rack = self._rack_node(d, layout)
            key = (id(d.graph), rack)  # GPUs of one rack of a graph: once per graph and rack
            if key not in self._rack_gpus:
                self._rack_gpus[key] = sum(1 for _, x in d.graph.nodes(data=True)
                                           if x["kind"] == "gpu" and x["rack"] == rack)
            return d, self._rack_gpus[key], 1
        lay = self.rd.layouts[layout]
        trays = lay.of_kind("compute_tray")
        if not trays:
            return None, 0, 0
        slug = trays[0].part.slug
        d = next(x for x in self.domains if x.name == f"tray {slug}")
        n_trays = sum(i.count for i in trays)
        per = sum(i.count * self.rd.tray_layout(i.part).count("gpu") for i in trays)
        return d, per, n_trays if d.gpus > 1 else 0

    @staticmethod
    def _rack_node(dom: ScaleUpDomain, layout: str) -> str:
        """The first rack of ``layout`` in the domain's graph (racks are r0, r1, ...)."""
        return f"r{dom.rack_layouts.index(layout)}" if layout in dom.rack_layouts else "r0"

    def _rack_effect(self, dom: ScaleUpDomain, layout: str, rack_gpus: int) -> Effect:
        if dom.scope == "rack":
            return self.effect(dom, {self._rack_node(dom, layout)})
        return Effect(rack_gpus, 0, None, ())

    def _pod_cooling_row(self, row) -> None:
        rd = self.rd
        use = next(u for u in rd.pod_cooling if f"pod:{u.pod}" == row.scope and u.unit.slug == row.unit)
        gpus = 0
        for ln, n in use.racks:
            _, per, _ = self._rack_context(ln)
            gpus += per * n
        n_units = row.units  # listed, else needed + spares (N+1 when sized here)
        redundant = (row.capacity_kw is not None and n_units is not None
                     and (n_units - 1) * row.capacity_kw >= row.heat_kw)
        dom = self.domains[0] if self.domains else None
        broken = sum(1 for s in rd.domain_shapes if s.pod == use.pod) or 1
        eff = Effect(0 if redundant else gpus, 0, None, ())
        note = ("N+1: the remaining units carry the load" if redundant else
                f"serves every rack of pod {use.pod!r}: {row.heat_kw:.1f} kW "
                f"({'count unknown: capacity unpublished' if n_units is None else f'{n_units} unit(s), no spare'})")
        self.add("cooling_unit", f"{row.unit} (pod {use.pod})", row.total_units or use.pod_count,
                 dom, eff, 0 if redundant else broken, note)
