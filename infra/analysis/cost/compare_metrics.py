"""Metric dicts of the comparison: chip level, system level, cost.

Names end in their unit; ``None`` means unknown or not applicable (reports print n/a).
See :mod:`infra.analysis.cost.compare` for the assumptions.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from infra.analysis.summary import DesignAnalysis, analyze_file
from infra.analysis.cost.tco import CATEGORIES, Capex, CostAssumptions, Tco, total_cost
from infra.models.catalog_types import Catalog
from infra.models.expand import expand_tray
from infra.models.parts import PRECISIONS, Gpu
from infra.models.prices import PriceBook
from infra.units import kw_to_mw

TILES_PER_RACK = 2
DESIGNS_DIR = Path(__file__).resolve().parents[3] / "designs"
FABRIC = ("leaf_switches", "spine_switches", "core_switches")
SYSTEM_FLOPS = ("bf16", "fp8", "fp4")


def _r(x: float | None, nd: int = 4) -> float | None:
    return None if x is None else round(x, nd)


def _div(a: float | None, b: float | None) -> float | None:
    return None if a is None or not b else a / b


def pue_of(da: DesignAnalysis, a: CostAssumptions) -> float:
    """``--pue`` when given, else the design's own PUE."""
    return a.pue if a.pue is not None else da.power.pue


# --- chip level ---------------------------------------------------------------------

def chip_metrics(gpu: Gpu, book: PriceBook, catalog: Catalog) -> dict[str, Any]:
    """Per-GPU figures: FLOPS, HBM, ridge points, scale-up, TDP, efficiency, price.

    Ridge point example: H100 SXM BF16 989 TFLOPS / 3.35 TB/s = 295.2 FLOP/byte.
    """
    pk = gpu.peak_dense_tflops
    m: dict[str, Any] = {"gpu_sku": gpu.slug}
    for prec in PRECISIONS:
        m[f"peak_dense_{'tops' if prec == 'int8' else 'tflops'}_{prec}"] = getattr(pk, prec)
    m["achievable_tflops_bf16"] = gpu.mamf_bf16_tflops
    m["mamf_bf16_efficiency_fraction"] = _r(gpu.mamf_bf16_efficiency)
    m["hbm_gib"], m["hbm_tbyte_s"] = gpu.hbm_gib, gpu.hbm_tbyte_s  # the vendor's figure (GiB)
    for prec in PRECISIONS:
        if prec != "int8":
            v = getattr(pk, prec)
            m[f"ridge_flop_per_byte_{prec}"] = _r(_div(v, gpu.hbm_tbyte_s) if v else None, 1)
    su = gpu.scale_up
    m["scale_up_technology"] = su.technology if su else None
    m["scale_up_gbyte_s_per_gpu"] = su.gbyte_s if su else None
    m["largest_scale_up_domain_gpus"] = largest_domain(gpu, catalog)
    m["tdp_w"] = gpu.tdp_w
    m["peak_dense_tflops_bf16_per_w"] = _r(_div(pk.bf16, gpu.tdp_w))
    p = book.get(gpu.slug)
    m["price_usd"] = p.usd if p else None
    m["price_basis"] = f"{p.basis} ({p.source.tag}, {p.date})" if p else None
    m["peak_dense_tflops_bf16_per_1000_usd"] = _r(_div(pk.bf16, p.usd / 1000) if p else None)
    m["hbm_gib_per_1000_usd"] = _r(_div(gpu.hbm_gib, p.usd / 1000) if p else None)
    return m


def largest_domain(gpu: Gpu, catalog: Catalog) -> int | None:
    su = gpu.scale_up
    if su is None:
        return None
    if su.topology == "mesh":
        return su.links + 1
    best = [n for slug, n in _reference_domains() if slug == gpu.slug]
    for tray in catalog.of_kind("compute_tray"):
        lay = expand_tray(tray, catalog)  # type: ignore[arg-type]
        gpus = [i for i in lay.of_kind("gpu") if i.part.slug == gpu.slug]
        if gpus and lay.of_kind("nvlink_switch_chip"):
            best.append(len(gpus))
    return max(best, default=None)


@lru_cache(maxsize=1)
def _reference_domains() -> tuple[tuple[str, int], ...]:
    out = []
    for f in sorted(DESIGNS_DIR.glob("*.yaml")):
        for d in analyze_file(f).bandwidth.domains:
            out.append((d.gpu.slug, d.gpus))
    return tuple(out)


# --- system level -------------------------------------------------------------------

def design_tco(da: DesignAnalysis, capex: Capex, a: CostAssumptions) -> Tco:
    """TCO of an analysed design under ``a`` (its own PUE unless ``a.pue`` is set), on
    the precision ``a.precision`` (used by ``infra compare`` and ``infra sweep``)."""
    return total_cost(capex, da.power.it_kw, pue_of(da, a),
                      da.compute.peak_dense_pflops.get(a.precision), da.compute.gpus, a)


def design_metrics(da: DesignAnalysis, capex: Capex, tco: Tco, a: CostAssumptions) -> dict:
    m = da.metrics()
    gpus, racks = m["gpus"], m["racks"]
    it_mw, fac_mw = kw_to_mw(m["it_power_kw"]), kw_to_mw(da.power.it_kw * pue_of(da, a))
    bom = {}
    for r in da.bom:
        bom[r.kind] = bom.get(r.kind, 0) + (r.count or 0)
    pod_units = [c for c in da.cooling.rows if c.scope.startswith("pod")]
    in_row = sum(c.total_units or 0 for c in pod_units)
    unknown_units = sorted({c.unit for c in pod_units if c.total_units is None})
    out: dict[str, Any] = {
        "option_name": da.rd.name, "gpu_sku": ", ".join(sorted(da.compute.gpu_types)),
        # racks: every rack on the floor (compute, management or storage, and the fabric's
        # network racks), as floor tiles and racks per MW need; the split beside it
        "gpus": gpus, "racks": racks, "compute_racks": m["compute_racks"],
        "other_racks": m["other_racks"], "network_racks": m["network_racks"],
        "floor_tiles": racks * TILES_PER_RACK + in_row * TILES_PER_RACK,
        "floor_tiles_exclude": ", ".join(f"{u} (count unknown)" for u in unknown_units) or "-",
        "it_power_kw": m["it_power_kw"], "facility_power_kw": _r(fac_mw * 1000, 2),
        "it_power_mw": _r(it_mw), "facility_power_mw": _r(fac_mw), "pue_ratio": pue_of(da, a),
        "it_power_kw_per_rack": _r(_div(m["it_power_kw"], racks), 2),
        "power_unknown_parts_count": m["power_unknown_parts_count"],
    }
    for prec in SYSTEM_FLOPS:
        out[f"peak_dense_pflops_{prec}"] = m[f"peak_dense_pflops_{prec}"]
    out["achievable_pflops_bf16"] = m["achievable_pflops_bf16"]
    pf = m.get(f"peak_dense_pflops_{a.precision}")
    out[f"peak_dense_pflops_{a.precision}_per_facility_mw"] = _r(_div(pf, fac_mw), 2)
    out["gpus_per_facility_mw"] = _r(_div(gpus, fac_mw), 2)
    out["racks_per_facility_mw"] = _r(_div(racks, fac_mw), 3)
    out["liquid_heat_kw"], out["air_heat_kw"] = m["liquid_heat_kw"], m["air_heat_kw"]
    out["cooling_units"] = _cooling_units(da.cooling.rows)
    out["power_shelves"] = bom.get("power_shelf", 0)
    out["scale_up_domain_gpus"] = m["scale_up_domain_gpus"]
    out["scale_up_domains"] = m["scale_up_domains"]
    out["scale_up_domain_split"] = _domain_split(da.bandwidth.domains)
    for k in ("scale_up_gbyte_s_per_gpu", "scale_up_bisection_gbyte_s",
              "scale_out_gbit_s_per_gpu_nominal", "scale_out_gbit_s_per_gpu_effective",
              "front_end_gbit_s_per_tray", "pcie_max_oversubscription"):
        out[k] = m[k]
    for k in ("allreduce_busbw_8gib_domain_gbyte_s", "allreduce_busbw_8gib_design_gbyte_s"):
        out[k] = m.get(k)  # predicted by infra.analysis.perf (None: no collective model)
    out.update(_blast(da))
    out["nvlink_switch_chips_per_gpu"] = _r(_div(bom.get("nvlink_switch_chip", 0), gpus))
    out["nics_per_gpu"] = _r(_div(bom.get("nic", 0), gpus))
    fabric = [m.get(k) for k in FABRIC]
    for k in ("fabric_tiers", *FABRIC, "transceivers"):  # counts (synthesis checks them)
        out[k] = m.get(k)
    out["fabric_switches_per_gpu"] = (None if all(v is None for v in fabric)
                                      else _r(sum(v or 0 for v in fabric) / gpus))
    out["transceivers_per_gpu"] = _r(_div(m.get("transceivers"), gpus))
    out["cable_items_per_gpu"] = _r(_div(bom.get("cable", 0), gpus)) if "cable" in bom else None
    out["fabric_power_kw"] = m.get("fabric_power_kw")
    out.update(cost_metrics(capex, tco, a))
    return out



def _cooling_units(rows) -> str:
    """``unit (kind, scope) x units`` per row; rows of one unit and kind in many scopes
    (a hall of distinct racks) as one item: ``unit (kind, N scopes) x total``."""
    groups: dict[tuple[str, str], list] = {}
    for c in rows:
        groups.setdefault((c.unit, c.cooling_kind), []).append(c)
    items = []
    for (unit, kind), rs in groups.items():
        units = [c.total_units for c in rs]
        total = "unknown" if None in units else f"{sum(units):,}" if len(rs) > 1 else units[0]
        where = rs[0].scope if len(rs) == 1 else f"{len(rs):,} scopes"
        items.append(f"{unit} ({kind}, {where}) x {total}")
    return "; ".join(items) or "none listed (air to the hall)"


def _domain_split(domains) -> str:
    """How each domain shape spans racks; shapes that read alike are one item with the
    number of domains they hold (``x N domains``)."""
    groups: dict[str, list[int]] = {}
    for d in domains:
        text = f"{d.gpus} GPUs over {d.racks or 'part of 1'} rack(s) ({d.scope})"
        groups.setdefault(text, []).append(d.count)
    return "; ".join(t if len(n) == 1 else f"{t} x {sum(n):,} domains"
                     for t, n in groups.items())


def _blast(da: DesignAnalysis) -> dict[str, Any]:
    worst = max((b.gpus_lost for b in da.blast), default=0)
    kinds = sorted({b.component_kind for b in da.blast if b.gpus_lost == worst and worst})
    sw = [b.gpus_lost for b in da.blast if b.component_kind == "nvlink_switch_tray"]
    return {"worst_single_failure_gpus": worst,
            "worst_single_failure_components": ", ".join(kinds) or None,
            "nvlink_switch_tray_failure_gpus_lost": max(sw) if sw else None}


def cost_metrics(capex: Capex, tco: Tco, a: CostAssumptions) -> dict[str, Any]:
    """Cost figures with the scope and completeness of the capex they rest on.

    Every USD figure built on a lower-bound capex is itself a lower bound:
    ``capex_lower_bound`` says so ("lower bound: N lines unpriced").
    """
    out: dict[str, Any] = {"capex_usd": _r(capex.priced_usd, 0),
                           "capex_scope": capex.scope,
                           "capex_completeness_fraction": _r(capex.completeness, 3),
                           "capex_lower_bound": (capex.lower_bound_note
                                                 if capex.priced_usd is not None else None)}
    cats = capex.by_category()
    for cat in CATEGORIES:
        if cat in cats:
            out[f"capex_{cat}_usd"] = _r(cats[cat], 0)
    out["capex_is_lower_bound"] = capex.is_lower_bound if capex.priced_usd else None
    out["unpriced_sku_count"] = len(capex.unpriced)
    out["unpriced_line_count"] = len(capex.unpriced_lines)
    out["energy_usd_per_year"] = _r(tco.energy_usd_per_year, 0)
    out["maintenance_usd_per_year"] = _r(tco.maintenance_usd_per_year, 0)
    out["facility_usd"] = _r(tco.facility_usd, 0)
    out[f"tco_usd_{a.years}y"] = _r(tco.tco_usd, 0)
    out[f"usd_per_dense_pflop_year_{a.precision}"] = _r(tco.usd_per_dense_pflop_year, 0)
    out["usd_per_gpu_hour"] = _r(tco.usd_per_gpu_hour, 3)
    return out
