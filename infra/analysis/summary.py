"""Run every analysis of a design and flatten the results into metrics and tables.

``metrics`` is a flat mapping whose snake_case names end in their unit; ``tables`` maps
a table name to a list of row dicts. Reports (JSON, xlsx, terminal) only format these.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from infra.errors import display_path
from typing import Any

from infra.analysis.network.bandwidth import DesignBandwidth, bandwidth_metrics, design_bandwidth
from infra.analysis.reliability.blast_radius import BlastRow, blast_radius
from infra.analysis.cost.bom import BomRow, bill_of_materials
from infra.analysis.compute import ComputeSummary, domain_memory, layout_compute, summarize_compute
from infra.analysis.power.cooling import DesignCooling, design_cooling
from infra.analysis.network.fabric import FabricResult, design_fabrics, fabric_metrics
from infra.analysis.layout.elevation import elevation_run_rows, rack_elevations
from infra.analysis.power.envelopes import EnvelopeRow, design_envelopes, envelope_table
from infra.analysis.layout.placement import network_elevations
from infra.analysis.layout.weight import HallWeight, hall_weight, weight_findings
from infra.analysis.layout.rack_faces import network_power_rows
from infra.analysis.power.it_power import DesignPower, design_power
from infra.analysis.power.supply import server_psu_rows, supply_rows
from infra.analysis.cost.tco import Capex, price_bom
from infra.models.catalog_types import Catalog
from infra.models.parts import PRECISIONS, SPARSE_PRECISIONS
from infra.models.prices import PriceBook, load_prices
from infra.models.resolve import ResolvedDesign, load_design


# Version of the ``as_dict()`` / JSON report layout. 2: ``rack_elevation`` has one row per
# run of identical stacked units (``top_position_u``, ``bottom_position_u``, ``count``,
# ``*_w_per_unit``), as the workbook shows it; 1 (no ``format_version`` key) had one row
# per mounted unit (``position_u``, ``power_w``...).
FORMAT_VERSION = 2


@dataclass
class DesignAnalysis:
    """Everything ``infra design`` computes for one design."""

    rd: ResolvedDesign
    bom: list[BomRow]
    compute: ComputeSummary
    power: DesignPower
    cooling: DesignCooling
    bandwidth: DesignBandwidth
    blast: list[BlastRow]
    fabrics: list[FabricResult] = field(default_factory=list)
    capex: Capex | None = None  # priced from catalogs/prices (a lower bound when unpriced)
    envelopes: list[EnvelopeRow] = field(default_factory=list)
    extra_metrics: dict[str, Any] = field(default_factory=dict)
    extra_tables: dict[str, list[dict]] = field(default_factory=dict)

    @property
    def findings(self) -> tuple:
        """Design-rule violations (supply under its redundancy, rack rating, cooling units
        short of their heat), each an :class:`infra.analysis.findings.Finding`; the figures
        are computed all the same. The CLI names them first and exits 1."""
        return (tuple(f for r in self.power.racks for f in r.findings) + self.cooling.findings
                + tuple(weight_findings(self.rd, self.weight)))

    @property
    def weight(self) -> HallWeight:
        """Every rack layout's weight, compute and network (computed once)."""
        w = self.__dict__.get("_weight")
        if w is None:
            w = self.__dict__["_weight"] = hall_weight(
                self.rd, rack_elevations(self.rd, self.power) + network_elevations(self.rd))
        return w

    def metrics(self) -> dict[str, Any]:
        c, p = self.compute, self.power
        layout_racks = sum(self.rd.rack_counts.values())
        compute_racks = sum(n for name, n in self.rd.rack_counts.items()
                            if self.rd.layouts[name].count("compute_tray"))
        network_racks = sum(e.racks for e in network_elevations(self.rd))
        m: dict[str, Any] = {
            "gpus": c.gpus,
            "cpus": c.cpus,
            "cpu_cores": c.cpu_cores,
            # every rack on the floor: the design's racks (compute; management or storage,
            # no compute tray) and the network racks the fabric's leaf and spine switches
            # stand in (as the cabling plan and NetBox place them); per-GPU and per-tray
            # figures use ``compute_racks``
            "racks": layout_racks + network_racks,
            "compute_racks": compute_racks,
            "other_racks": layout_racks - compute_racks,
            "network_racks": network_racks,
            "compute_trays": sum(self.rd.tray_counts().values()),
            "hbm_tbyte": _r(c.hbm_tbyte),
            "hbm_gib": _r(c.hbm_gib),
            "hbm_tbyte_s": _r(c.hbm_tbyte_s),
            "cpu_memory_tbyte": _r(c.cpu_memory_tbyte),
            "cpu_memory_tbyte_s": _r(c.cpu_memory_tbyte_s),
            "combined_memory_tbyte": _r(c.combined_memory_tbyte),
        }
        for prec in PRECISIONS:
            unit = "pops" if prec == "int8" else "pflops"
            m[f"peak_dense_{unit}_{prec}"] = _r(c.peak_dense_pflops[prec])
        for prec in SPARSE_PRECISIONS:  # vendor "with sparsity" figures, beside (not in) dense
            unit = "pops" if prec == "int8" else "pflops"
            m[f"peak_sparse_{unit}_{prec}"] = _r(c.peak_sparse_pflops[prec])
        m["achievable_pflops_bf16"] = _r(c.achievable_bf16_pflops)
        m["gpus_without_mamf_count"] = sum(c.gpus_without_mamf.values())
        m["it_power_kw"] = _r(p.it_kw)  # design maximum: what feeds and cooling must carry
        m["it_power_typical_kw"] = _r(p.it_typical_kw)
        m["facility_power_kw"] = _r(p.facility_kw)
        m["pue_ratio"] = p.pue
        m["liquid_heat_kw"] = _r(self.cooling.liquid_kw)
        m["air_heat_kw"] = _r(self.cooling.air_kw)
        m["power_unknown_parts_count"] = len(p.unknown)
        m["power_unknown_kw_bound"] = _r(p.unknown_bound_kw) if p.unknown else 0.0
        m["node_optics_power_kw"] = _r(p.node_optics_kw)
        m["scale_up_cable_power_kw"] = _r(p.scaleup_cables_kw)
        m["power_envelope_warnings_count"] = sum(1 for e in self.envelopes if e.warning)
        m.update(bandwidth_metrics(self.bandwidth))
        mems = [c.combined_memory_tbyte for d in self.bandwidth.domains
                if (c := domain_memory(self.rd, d)) is not None]
        m["scale_up_domain_combined_memory_tbyte"] = (
            None if not mems or None in mems else _r(max(mems)))  # type: ignore[type-var]
        ratios = [t.oversubscription for d in self.bandwidth.domains for t in d.tiers
                  if t.oversubscription is not None]
        m["scale_up_max_oversubscription_ratio"] = _r(max(ratios), 3) if ratios else None
        m.update(fabric_metrics(self.fabrics))
        if self.capex is not None:
            c = self.capex
            m["capex_priced_usd"] = c.priced_usd
            m["capex_unpriced_sku_count"] = len(c.unpriced)
            m["capex_unpriced_line_count"] = len(c.unpriced_lines)
            m["capex_lower_bound"] = (c.lower_bound_note if c.priced_usd is not None
                                      else "unknown: no line priced")
            m["capex_scope"] = c.scope
            m["capex_completeness_fraction"] = _r(c.completeness)
        w = self.weight
        # the heaviest rack's weight: unknown (None) while a layout has no planning figure
        # (a part's weight unpublished, no loaded weight published for its rack type), with
        # a lower bound of it beside
        m["heaviest_rack_kg"] = _r(w.heaviest_kg)
        m["heaviest_rack_lower_bound_kg"] = _r(w.heaviest_bound_kg)
        m["rack_weight_unplanned_layouts_count"] = len(w.unplanned)
        lost = max((b.gpus_lost for b in self.blast), default=0)
        m["worst_single_failure_gpus"] = lost
        m.update(self._collective_figures())
        m.update(self.extra_metrics)
        return m

    def _collective_figures(self) -> dict[str, float | None]:
        """Predicted all-reduce busbw at 8 GiB in one domain and over the whole design
        (:mod:`infra.analysis.perf`), computed once."""
        figs = self.__dict__.get("_collectives")
        if figs is None:
            from infra.analysis.perf.collectives import key_figures

            figs = self.__dict__["_collectives"] = key_figures(self.rd, self.bandwidth,
                                                               self.fabrics)
        return figs

    def _collective_rows(self) -> list[dict]:
        """Predicted collectives at the default job and message sizes (``infra
        collectives``'s rows, without the placement text); none without a model."""
        from infra.analysis.perf.collectives import collectives
        from infra.analysis.perf.inputs import design_tiers

        if design_tiers(self.rd, self.bandwidth, self.fabrics).model is None:
            return []
        return [{k: v for k, v in r.as_dict().items() if k != "placement"}
                for r in collectives(self.rd)]

    def tables(self) -> dict[str, list[dict]]:
        t = {
            "bill_of_materials": self._bom_rows(),
            "compute_by_rack": self._compute_rows(),
            "power_by_rack": [
                {"layout": r.layout, "rack_type": r.rack_type, "racks": r.racks,
                 "it_kw_per_rack": _r(r.it_kw), "it_typical_kw_per_rack": _r(r.it_typical_kw),
                 "liquid_kw_per_rack": _r(r.liquid_kw),
                 "air_kw_per_rack": _r(r.air_kw), "supply_kw_per_rack": r.supply_kw,
                 "published_estimate_kw_per_rack": r.reference_it_kw,
                 "it_kw_total": _r(r.it_kw * r.racks),
                 "unknown_power_parts": ", ".join(r.unknown)}
                for r in self.power.racks] + network_power_rows(network_elevations(self.rd)),
            "power_envelopes": envelope_table(self.envelopes),
            "power_supply": supply_rows(self.power),
            "server_psus": server_psu_rows(self.rd),
            "power_by_part": _part_rows(self.power.racks),
            "power_by_unit": _unit_rows(self.power.racks),
            "cooling": [
                {"unit": c.unit, "cooling_kind": c.cooling_kind, "scope": c.scope,
                 "removes": c.removes, "heat_kw": _r(c.heat_kw), "capacity_kw": c.capacity_kw,
                 "sized_in": c.sized_in, "needed": c.needed,
                 # spare units in the count (listed or N + spares sized here)
                 "spares": c.spares if c.needed is None or c.units is None else c.units - c.needed,
                 "installed": c.installed,
                 "instances": c.instances, "total_units": c.total_units, "note": c.note}
                for c in self.cooling.rows],
            "bandwidth": [asdict(b) for b in self.bandwidth.trays],
            "scale_up_domains": [
                {"domain": d.name, "scope": d.scope, "count": d.count, "gpus": d.gpus,
                 "gpu": d.gpu.slug, "racks": d.racks, "topology": d.topology,
                 "switch_tiers": len(d.tiers),
                 "links_per_gpu": d.links_per_gpu, "gbyte_s_per_gpu": d.gbyte_s_per_gpu,
                 "bisection_gbyte_s": d.bisection_gbyte_s, "switch_chips": d.switch_chips,
                 "cross_rack_links": d.cross_rack_links, "shape": "x".join(map(str, d.shape)),
                 "diameter_hops": d.diameter_hops, "mean_hops": round(d.mean_hops, 4),
                 **self._domain_memory(d)}
                for d in self.bandwidth.domains],
            "scale_up_tiers": [
                {"domain": d.name, "tier": f"L{t.tier}", "switch_trays_per_domain": t.switch_trays,
                 "switch_chips_per_domain": t.chips, "chip": t.chip, "ports": t.ports,
                 "down_links": t.down_links, "up_links": t.up_links,
                 "oversubscription_ratio": _r(t.oversubscription, 3)}
                for d in self.bandwidth.domains for t in d.tiers],
            "pcie": [
                {"tray": l.tray, "link": l.link, "kind": l.kind, "gen": l.gen, "lanes": l.lanes,
                 "capacity_gbit_s": _r(l.capacity_gbit_s, 2), "demand_gbit_s": l.demand_gbit_s,
                 "allocated_gbit_s": _r(l.allocated_gbit_s, 2),
                 "oversubscription_ratio": _r(l.oversubscription, 3),
                 "throttles": ", ".join(l.users) if l.oversubscription > 1 + 1e-9 else ""}
                for c in self.bandwidth.contention.values() for l in c.links],
            "blast_radius": _flat_rows(self.blast),
            "fabric": [asdict(t) for f in self.fabrics for t in f.tiers],
            "fabric_summary": [
                {"fabric": f.name, "kind": f.spec.kind, "tiers": len(f.tiers), "planes": f.planes,
                 "nodes": f.nodes, "gpus": f.gpus, "ports_per_node": f.ports_per_node,
                 "link_gbit_s": f.link_gbit_s, "bisection_tbit_s": _r(f.bisection_tbit_s),
                 "max_gpus_at_these_radices": f.max_gpus, "power_kw": _r(f.power_kw),
                 "unknown_power_parts": ", ".join(f.unknown_power),
                 **{f"hops_{k}": v for k, v in f.hops.items()},
                 **{f"gbit_s_per_gpu_{k}": _r(v) for k, v in f.per_gpu_gbit_s.items()}}
                for f in self.fabrics],
            "cabling": _cabling_rows(self.rd, self.fabrics),
            "flops_by_precision": self._flops_rows(),
            "rack_elevation": elevation_run_rows(rack_elevations(self.rd, self.power)
                                                 + network_elevations(self.rd)),
            "rack_weight": [
                {"layout": r.layout, "rack_type": r.rack_type, "racks": r.racks,
                 "weight_kg_per_rack": _r(r.planning_kg), "parts_kg_per_rack": _r(r.kg),
                 "published_loaded_kg_per_rack": r.published_kg,
                 "published_loaded_kg_tag": r.published_tag,
                 "static_load_kg": r.static_load_kg,
                 "unpublished_weight_parts": ", ".join(r.missing), "basis": r.basis}
                for r in self.weight.racks],
            "collectives": self._collective_rows(),
            "assumptions": self._assumptions(),
        }
        if self.rd.design.storage:  # storage reached: GB/s per GPU and per job size
            t["storage"] = _storage_rows(self.rd, self.fabrics)
        t.update(self.extra_tables)
        return t

    def _domain_memory(self, d) -> dict:
        """Memory of one domain: HBM, CPU memory and the two combined (TB)."""
        c = domain_memory(self.rd, d)
        return {"hbm_tbyte": _r(c.hbm_tbyte) if c else None,
                "cpu_memory_tbyte": _r(c.cpu_memory_tbyte) if c else None,
                "combined_memory_tbyte": _r(c.combined_memory_tbyte) if c else None}

    def _flops_rows(self) -> list[dict]:
        """Peak dense vs measured-achievable (MAMF) per precision; None = not published."""
        c = self.compute
        return [{"precision": p, "peak_dense_pflops": _r(c.peak_dense_pflops[p]),
                 "peak_sparse_pflops": _r(c.peak_sparse_pflops.get(p)),
                 "achievable_pflops": _r(c.achievable_bf16_pflops) if p == "bf16" else None}
                for p in PRECISIONS if p != "int8"]

    def _bom_rows(self) -> list[dict]:
        """BOM rows with their capex line: ``included_in`` (the priced system that covers
        the row), ``status`` (priced / included / unpriced) and the price behind it."""
        lines = {ln.line: ln for ln in self.capex.lines} if self.capex is not None else {}
        rows = []
        for r in self.bom:
            ln = lines.get(r.line)
            p = ln.price if ln is not None else None
            rows.append({**asdict(r), "included_in": ln.included_in if ln else None,
                         "status": ln.status if ln else None,
                         "unit_price_usd": p.usd if p else None,
                         "price_covers": p.covers if p else None,
                         "low_usd": p.low_usd if p else None,
                         "high_usd": p.high_usd if p else None,
                         "price_basis": p.basis if p else None,
                         "price_date": str(p.date) if p else None,
                         "price_source": (f"[{p.source.tag}] {p.source.title} {p.source.url}"
                                          if p else None),
                         "extended_usd": ln.total_usd if ln else None})
        return rows

    def _compute_rows(self) -> list[dict]:
        rows = []
        for name, n in self.rd.rack_counts.items():
            c = layout_compute(self.rd, self.rd.layouts[name])
            row = {"layout": name, "racks": n, "gpus_per_rack": c.gpus, "cpus_per_rack": c.cpus,
                   "hbm_tbyte_per_rack": _r(c.hbm_tbyte)}
            for prec in ("fp64", "tf32", "bf16", "fp8", "fp4"):
                row[f"peak_dense_pflops_{prec}_per_rack"] = _r(c.peak_dense_pflops[prec])
            row["achievable_pflops_bf16_per_rack"] = _r(c.achievable_bf16_pflops)
            rows.append(row)
        return rows

    def _assumptions(self) -> list[dict]:
        a = self.rd.design.assumptions
        rows = [{"item": "PUE", "value": a.pue, "source": a.pue_source},
                {"item": "NVLink partition mode", "value": a.nvlink_partition_mode,
                 "source": "design"}]
        rows += [{"item": "note", "value": n, "source": "design"} for n in a.notes]
        for slug, n in self.compute.gpus_without_mamf.items():
            rows.append({"item": "no published MAMF (achievable FLOPS excludes it)",
                         "value": f"{n} x {slug}", "source": "catalog"})
        for slug, n in self.compute.gpu_types.items():  # achievable FLOPS on an estimate: say so
            gpu = self.rd.part(slug)
            src = gpu.source_of("mamf_bf16_tflops") if gpu.mamf_bf16_tflops is not None else None
            if src is not None and src.tag == "estimate":
                rows.append({"item": "achievable BF16 uses an estimated MAMF (no published "
                                     "measurement)",
                             "value": f"{n} x {slug}: {gpu.mamf_bf16_tflops:g} TF",
                             "source": f"[estimate] {src.title}"})
        for u in self.power.unknown:
            rows.append({"item": "power not published (IT kW is a lower bound)", "value": u,
                         "source": "catalog"})
        if self.power.unknown:
            b = self.power.unknown_bound_kw
            rows.append({"item": "power of the unknown parts is at most (kW)",
                         "value": "no stated bound" if b is None else _r(b), "source": "catalog"})
        for slug, mx, typ, src in self.power.overrides:
            rows.append({"item": "power override (design figure used instead of the catalog's)",
                         "value": f"{slug}: max {mx} W, typical {typ} W", "source": src})
        for e in self.envelopes:
            if e.warning:
                rows.append({"item": "warning", "value": e.warning, "source": "analysis"})
        for w in self.cooling.warnings:
            rows.append({"item": "warning", "value": w, "source": "analysis"})
        shelves = {i.part.slug for lay in self.rd.layouts.values() for i in lay.items
                   if i.part.kind == "power_shelf" and getattr(i.part, "efficiency", None) is None}
        for s in sorted(shelves):
            rows.append({"item": "power conversion loss not included (efficiency not published)",
                         "value": s, "source": "catalog"})
        for c in self.cooling.rows:
            if c.note:
                rows.append({"item": "cooling", "value": c.note, "source": "catalog"})
        for d in self.bandwidth.domains:
            for w in d.warnings:
                rows.append({"item": "warning", "value": f"scale-up links unused: {w}",
                             "source": "analysis"})
            if d.scope == "gpu" and d.gpu.scale_up is not None:
                rows.append({"item": "no scale-up domain",
                             "value": f"{d.count} x {d.gpu.slug} have {d.gpu.scale_up.technology} "
                                      f"ports but no switch in their tray or rack ({d.name})",
                             "source": "analysis"})
        if self.cooling.air_to_hall_kw:
            rows.append({"item": "air heat left to the hall's air handling (kW)",
                         "value": _r(self.cooling.air_to_hall_kw), "source": "analysis"})
        return rows

    def as_dict(self) -> dict[str, Any]:
        """The JSON contract: ``format_version``, ``design``, ``metrics``, ``tables``
        (:data:`FORMAT_VERSION`)."""
        from infra.models.gcpause import gc_deferred

        with gc_deferred():  # 30,000 rows at 1,000 layouts, none of them garbage
            return {
                "format_version": FORMAT_VERSION,
                "design": {"name": self.rd.name, "source_file": display_path(self.rd.file)},
                "findings": [f.as_dict() for f in self.findings],
                "metrics": self.metrics(),
                "tables": self.tables(),
            }


def _unit_rows(racks) -> list[dict]:
    """Power by unit, one row per layout and unit type; the unit's own columns are
    rounded once per unit type (layouts share their units' figures)."""
    tails: dict[int, dict] = {}
    rows = []
    for r in racks:
        for u, n in r.units:
            tail = tails.get(id(u))
            if tail is None:
                tail = tails[id(u)] = {
                    "power_w_per_unit": _r(u.power_w), "typical_w_per_unit": _r(u.typical_w),
                    "liquid_w_per_unit": _r(u.liquid_w), "air_w_per_unit": _r(u.air_w),
                    "basis": u.basis, "unknown_power_parts": ", ".join(u.unknown)}
            rows.append({"layout": r.layout, "unit": u.slug, "kind": u.kind, "count_per_rack": n,
                         **tail})
    return rows


def _part_rows(racks) -> list[dict]:
    """Power by part, once per unit type: a unit's parts are the same in every layout that
    holds it, so a 1,000-layout hall lists them once, with the number of layouts."""
    rows: dict[tuple, tuple[dict, set]] = {}
    per_unit: dict[int, list[tuple[tuple, dict]]] = {}  # id(unit) -> its (key, row)s
    for r in racks:
        for u, _n in r.units:
            unit_rows = per_unit.get(id(u))
            if unit_rows is None:  # layouts share their unit objects: once per unit
                unit_rows = per_unit[id(u)] = []
                for pp in u.parts:
                    row = {"unit": u.slug, "part": pp.slug, "count_per_unit": pp.count,
                           "max_w_each": pp.max_w, "typical_w_each": pp.typical_w,
                           "heat_to": pp.medium, "tag": pp.tag,
                           "counted": u.basis != "published system figure",
                           "bound_w_each": pp.bound_w}
                    unit_rows.append((tuple(row.values()), row))
            for key, row in unit_rows:
                rows.setdefault(key, (row, set()))[1].add(r.layout)
    return [{**row, "layouts": len(layouts)} for row, layouts in rows.values()]


def _flat_rows(rows: list) -> list[dict]:
    """``asdict`` for flat dataclass rows, without its recursive deep copy (7,000 rows at
    1,000 layouts)."""
    names = [f.name for f in fields(rows[0])] if rows else []
    n = len(names)
    # a dataclass's __init__ sets its fields in order, so a row's __dict__ is the row as
    # it is (copied); anything else kept on the instance takes the getattr path
    return [dict(d) if (d := getattr(r, "__dict__", None)) is not None and len(d) == n
            else {k: getattr(r, k) for k in names} for r in rows]


def _r(x: float | None, nd: int = 4) -> float | None:
    return None if x is None else round(x, nd)


def _cabling_rows(rd: ResolvedDesign, fabrics: list[FabricResult]) -> list[dict]:
    """The cabling plan of every fabric, in order (none for a design without fabrics)."""
    if not fabrics:
        return []
    from infra.analysis.layout.cabling import cabling_plan  # imported by fabric designs only

    return [row for f in fabrics for row in cabling_plan(rd, f)]


def analyze(rd: ResolvedDesign, book: PriceBook | None = None) -> DesignAnalysis:
    """Run the design analyses on a resolved design (capex priced from ``book``, default
    the shipped price files)."""
    from infra.models.gcpause import gc_deferred

    with gc_deferred():  # the analyses allocate much and free next to nothing
        return _analyze(rd, book)


def _analyze(rd: ResolvedDesign, book: PriceBook | None) -> DesignAnalysis:
    from infra.analysis.limits import check_design_size

    check_design_size(rd)  # 1 to 10^12 GPUs, before any figure is computed
    fabrics = design_fabrics(rd)
    if rd.design.storage:  # resolve now: a bad storage entry is an input error (exit 2)
        from infra.analysis.network.storage import design_storage

        design_storage(rd, fabrics)
    power = design_power(rd, fabrics)
    cooling = design_cooling(rd, power)
    bom = bill_of_materials(rd, cooling.unit_counts(), fabrics)
    book = book if book is not None else load_prices(catalog=rd.catalog)
    capex = price_bom(bom, book)  # design_capex(rd, book, ...) without building the BOM twice
    return DesignAnalysis(rd, bom, summarize_compute(rd), power, cooling, design_bandwidth(rd),
                          blast_radius(rd, power, cooling, fabrics), fabrics, capex,
                          design_envelopes(rd, power))


def analyze_file(path: Path | str, catalog: Catalog | None = None,
                 book: PriceBook | None = None) -> DesignAnalysis:
    """Load ``path`` and analyse it (the Python API behind ``infra design``); ``book``:
    prices (:func:`infra.models.prices.load_prices`), default the shipped price files."""
    return analyze(load_design(path, catalog), book)


def _storage_rows(rd, fabrics) -> list[dict]:
    from infra.analysis.network.storage import design_storage, storage_rows

    return storage_rows(design_storage(rd, fabrics))
