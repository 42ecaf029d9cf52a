"""Procurement comparison of GPU SKUs, trays and designs, side by side.

Each argument becomes an :class:`Option` with a flat metric dict (names end in their
unit) built from the catalog, the design analyses (:mod:`infra.analysis.summary`) and
the price book; :func:`compare` puts them in one :class:`Comparison` whose rows are
metrics and whose columns are options. Reports only format it.

Assumptions
-----------
- Ridge point = peak dense TFLOPS / HBM TB/s, in FLOP per byte of HBM traffic: a kernel
  with lower arithmetic intensity is memory-bound.
- Achievable TFLOPS: only BF16 has a measured figure (MAMF); other precisions are n/a.
- Chip options (a GPU slug) count the GPU's TDP only: no host, network or cooling.
  Their facility power uses ``--pue`` or the Uptime 2023 average 1.58 [AN] S37.
- Floor tiles: 600 x 600 mm tiles; a rack stands on 2 (600 x 1200 mm footprint);
  in-row cooling units of known count take 2 each; aisles are excluded.
- Largest scale-up domain of a chip: links + 1 for a mesh (one link per peer); for a
  switched GPU the largest domain among catalog trays with on-board switches and the
  reference designs in ``designs/``.
- Fabric switches and optics come from the fabric analysis metrics when present
  (``leaf_switches``, ``spine_switches``, ``core_switches``, ``transceivers``), else n/a.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from infra.analysis.cost.compare_bounds import lower_inputs, option_bounds
from infra.analysis.cost.compare_costs import (
    cash_flow_rows, chart_rows, cost_inputs, scenario_rows, tco_rows)
from infra.analysis.cost.compare_scope import ScopeCheck, is_ranked_metric, rank_cell, scope_check
from infra.analysis.cost.compare_train import TRAIN_COST, TrainSpec, train_metrics, train_rank
from infra.analysis.cost.compare_metrics import (
    SYSTEM_FLOPS, _r, chip_metrics, cost_metrics, design_metrics, design_tco, pue_of)
from infra.analysis.power.it_power import unit_power
from infra.analysis.summary import analyze_file
from infra.analysis.cost.target import Block, Sizing, Target, size_to
from infra.analysis.cost.tco import (
    UPTIME_2023_PUE, Capex, CostAssumptions, Tco, design_capex, gpu_capex, total_cost,
    tray_capex)
from infra.errors import CompareError, did_you_mean
from infra.models.catalog_types import Catalog
from infra.models.expand import CatalogParts
from infra.models.parts import PRECISIONS, Gpu
from infra.models.prices import PriceBook
from infra.models.systems import ComputeTray
from infra.units import kw_to_mw, tflops_to_pflops, w_to_kw


@dataclass(frozen=True)
class Option:
    """One column of the comparison."""

    key: str  # the argument as given
    name: str
    label: str  # short column header: slug or design file stem
    kind: str  # gpu | compute_tray | design
    metrics: dict[str, Any]
    capex: Capex
    tco: Tco
    block: Block
    sizing: Sizing | None = None
    notes: tuple[str, ...] = ()
    findings: tuple[str, ...] | None = None  # design rules it breaks; None: not a design


@dataclass(frozen=True)
class Comparison:
    options: tuple[Option, ...]
    assumptions: tuple[dict, ...]
    target: Target | None = None
    sections: dict[str, str] = field(default_factory=dict)  # metric -> section
    scope: ScopeCheck | None = None  # like-for-like check of the cost metrics
    costs: CostAssumptions | None = None  # the cost assumptions used

    def tco_rows(self) -> list[dict]:
        """Per option, the unrounded inputs of its TCO and the tool's results."""
        return tco_rows(self.options, self.costs)

    def cost_inputs(self) -> dict[str, Any]:
        """The cost assumptions as numbers (``pue`` None: each option's own)."""
        return cost_inputs(self.costs or CostAssumptions())

    def rows(self) -> list[dict]:
        """One row per metric: ``section``, ``metric``, one column per option, ``differs``."""
        names = [o.label for o in self.options]
        out = []
        if any(o.findings for o in self.options):  # design rules broken: the first row
            out.append({"section": "findings", "metric": "design_rule_findings",
                        **{o.label: findings_cell(o.findings) for o in self.options},
                        "differs": "*", **({"ranking": ""} if self.scope is not None
                                           and len(names) > 1 else {})})
        for metric, section in self.sections.items():
            vals = [o.metrics.get(metric) for o in self.options]
            if all(v is None for v in vals) and section != "sizing":
                continue
            row = {"section": section, "metric": metric}
            row.update(dict(zip(names, vals)))
            row["differs"] = "*" if len({repr(v) for v in vals}) > 1 else ""
            if self.scope is not None and len(names) > 1:
                plain = train_rank(metric, dict(zip(names, vals)))
                row["ranking"] = (plain if plain is not None else
                                  rank_cell(dict(zip(names, vals)), self.scope)
                                  if is_ranked_metric(metric) or metric in TRAIN_COST else "")
            out.append(row)
        return out

    def capex_rows(self) -> list[dict]:
        """Every capex line of every option; unpriced lines have no total (unknown)."""
        return [{"option": o.label, "line": ln.line, "parent_line": ln.parent,
                 "category": ln.category, "sku": ln.slug, "count": ln.count,
                 "status": ln.status, "included_in": ln.included_in,
                 "unit_usd": ln.unit_usd, "total_usd": ln.total_usd,
                 "low_usd": ln.price.low_usd if ln.price else None,
                 "high_usd": ln.price.high_usd if ln.price else None,
                 "price_covers": ln.price.covers if ln.price else None,
                 "price_basis": ln.price.basis if ln.price else None,
                 "price_date": str(ln.price.date) if ln.price else None,
                 "price_source": (f"[{ln.price.source.tag}] {ln.price.source.title} "
                                  f"{ln.price.source.url}") if ln.price else None,
                 "capex_scope": o.capex.scope, "note": ln.note}
                for o in self.options for ln in o.capex.lines]

    def value_ok(self, o: Option) -> bool:
        """Whether ``o``'s capex may be drawn as a value: known, and either complete or
        at the one scope all options share (or mixed scopes allowed)."""
        if o.capex.priced_usd is None:
            return False
        if not o.capex.is_lower_bound:
            return True
        return self.scope is not None and self.scope.ranked

    def chart_rows(self, precision: str = "bf16") -> list[dict]:
        """Per option: the chart figures, None where unknown or not drawable, with their
        bounds (:func:`infra.analysis.cost.compare_costs.chart_rows`)."""
        return chart_rows(self.options, self.value_ok, precision)

    def bounds(self) -> dict[str, dict[str, str]]:
        """Per option label: ``{metric: "lower" | "upper"}`` for its figures that are
        bounds because capex or IT power is a lower bound."""
        return {o.label: option_bounds(o.metrics, lower_inputs(o.capex, o.metrics))
                for o in self.options}

    def as_dict(self) -> dict[str, Any]:
        return {"target": self.target.label if self.target else None,
                "assumptions": list(self.assumptions),
                "options": [{"key": o.key, "label": o.label, "name": o.name, "kind": o.kind,
                             "metrics": o.metrics, "notes": list(o.notes),
                             "findings": None if o.findings is None else list(o.findings)}
                            for o in self.options],
                "capex_scope_check": self.scope.as_dict() if self.scope else None,
                "cost_inputs": self.cost_inputs(), "tco": self.tco_rows(),
                "bounds": self.bounds(), "cash_flow": cash_flow_rows(self.options),
                "scenarios": scenario_rows(self.options, self.costs),
                "comparison": self.rows(), "capex_lines": self.capex_rows(),
                "charts": self.chart_rows()}


def findings_cell(findings: tuple[str, ...] | None) -> str | None:
    """An option's cell of the ``design_rule_findings`` row.

    >>> findings_cell(()), findings_cell(None), findings_cell(("a", "b"))
    ('none', None, '2: a; b')
    """
    if findings is None:
        return None
    return f"{len(findings)}: " + "; ".join(findings) if findings else "none"


# --- options ------------------------------------------------------------------------

def gpu_option(key: str, gpu: Gpu, book: PriceBook, catalog: Catalog,
               a: CostAssumptions) -> Option:
    pue = a.pue if a.pue is not None else UPTIME_2023_PUE
    it_kw = w_to_kw(gpu.tdp_w or 0)
    capex = gpu_capex(gpu, book)
    flops = {p: tflops_to_pflops(v) if (v := getattr(gpu.peak_dense_tflops, p)) is not None
             else None for p in PRECISIONS}
    tco = total_cost(capex, it_kw, pue, flops.get(a.precision), 1, a)
    m = {"option_name": gpu.name, **chip_metrics(gpu, book, catalog)}
    m.update({"gpus": 1, "it_power_mw": _r(kw_to_mw(it_kw), 6), "pue_ratio": pue,
              "facility_power_mw": _r(kw_to_mw(it_kw * pue), 6)})
    m.update(cost_metrics(capex, tco, a))
    block = Block(gpu.slug, 1, 1, None, kw_to_mw(it_kw), kw_to_mw(it_kw * pue), flops,
                  capex.priced_usd, tco.tco_usd)
    notes = ("chip only: power is GPU TDP, capex is the GPU price; no host, network or cooling",)
    return Option(key, gpu.name, gpu.slug, "gpu", m, capex, tco, block, notes=notes)


def tray_option(key: str, tray: ComputeTray, book: PriceBook, catalog: Catalog,
                a: CostAssumptions) -> Option:
    pue = a.pue if a.pue is not None else UPTIME_2023_PUE
    parts = CatalogParts(catalog)
    up = unit_power(tray, parts)
    lay = parts.tray_layout(tray)
    gpus = [i.part for i in lay.of_kind("gpu")]
    flops = {p: (None if any(getattr(g.peak_dense_tflops, p) is None for g in gpus)
                 else tflops_to_pflops(sum(getattr(g.peak_dense_tflops, p) for g in gpus)))
             for p in PRECISIONS}
    it_kw = w_to_kw(up.power_w)
    capex = tray_capex(tray, parts, book)
    tco = total_cost(capex, it_kw, pue, flops.get(a.precision), len(gpus), a)
    m: dict[str, Any] = {"option_name": tray.name,
                         "gpu_sku": ", ".join(sorted({g.slug for g in gpus})), "gpus": len(gpus),
                         "it_power_mw": _r(kw_to_mw(it_kw), 6), "pue_ratio": pue,
                         "facility_power_mw": _r(kw_to_mw(it_kw * pue), 6),
                         "power_unknown_parts_count": len(up.unknown)}
    for prec in SYSTEM_FLOPS:
        m[f"peak_dense_pflops_{prec}"] = _r(flops[prec])
    m.update(cost_metrics(capex, tco, a))
    block = Block(tray.slug, 1, len(gpus), None, kw_to_mw(it_kw), kw_to_mw(it_kw * pue), flops,
                  capex.priced_usd, tco.tco_usd)
    return Option(key, tray.name, tray.slug, "compute_tray", m, capex, tco, block,
                  notes=("one tray/server: no rack, network fabric or cooling plant",))


def design_option(key: str, path: Path, book: PriceBook, catalog: Catalog,
                  a: CostAssumptions, train: TrainSpec | None = None) -> Option:
    da = analyze_file(path, catalog)
    capex = design_capex(da.rd, book, da.cooling.unit_counts(), da.fabrics)
    fac_kw = da.power.it_kw * pue_of(da, a)
    flops = {p: da.compute.peak_dense_pflops[p] for p in PRECISIONS}
    tco = design_tco(da, capex, a)
    m = design_metrics(da, capex, tco, a)
    if train is not None:
        m.update(train_metrics(da, train, a, capex))
    build = da.rd.design.build
    k = next(iter(build.values())) if len(build) == 1 else 1
    unit = next(iter(build)) if len(build) == 1 else "design"

    def per(v: float | None) -> float | None:
        return None if v is None else v / k

    block = Block(unit, k, da.compute.gpus / k, m["racks"] / k, kw_to_mw(da.power.it_kw) / k,
                  kw_to_mw(fac_kw) / k, {p: per(v) for p, v in flops.items()},
                  per(capex.priced_usd), per(tco.tco_usd))
    return Option(key, da.rd.name, path.stem, "design", m, capex, tco, block,
                  findings=tuple(str(f) for f in da.findings))


def resolve_option(key: str, book: PriceBook, catalog: Catalog, a: CostAssumptions,
                   train: TrainSpec | None = None) -> Option:
    """A GPU slug, a compute tray slug or a design file path."""
    path = Path(key)
    if path.suffix in (".yaml", ".yml") or path.exists():
        if not path.is_file():
            raise CompareError(f"design file {key!r} not found", hint="check the path")
        return design_option(key, path, book, catalog, a, train)
    if key in catalog:
        part = catalog.get(key)
        if isinstance(part, Gpu):
            return gpu_option(key, part, book, catalog, a)
        if isinstance(part, ComputeTray):
            return tray_option(key, part, book, catalog, a)
        raise CompareError(f"{key!r} is a {part.kind}; compare takes GPUs, compute trays "
                           "or design files", hint="e.g. nvidia-h100-sxm5, nvidia-dgx-h100, "
                           "designs/gb200_nvl72.yaml")
    pool = [p.slug for p in catalog if p.kind in ("gpu", "compute_tray")]
    raise CompareError(f"unknown option {key!r}: not a GPU or tray slug, nor a design file",
                       hint=did_you_mean(key, pool) + "; `infra catalog list` shows all")


# --- the comparison -----------------------------------------------------------------

SECTION_OF = [  # (metric-name test, section); first match wins
    (lambda k: k.startswith("train_"), "training"),
    (lambda k: k.startswith("sized_"), "sizing"),
    (lambda k: k.startswith(("capex", "energy", "maintenance", "tco", "usd_per", "price",
                             "unpriced")) or k.endswith("_usd"), "cost"),
    (lambda k: "single_failure" in k or k.endswith("failure_gpus_lost"), "reliability"),
    (lambda k: k.startswith(("scale_up", "scale_out", "front_end", "pcie", "largest_scale",
                             "allreduce_busbw")), "bandwidth"),
    (lambda k: k.endswith("_per_gpu") or k in ("fabric_power_kw", "fabric_tiers", "leaf_switches",
                                                "spine_switches", "core_switches",
                                                "transceivers"), "network parts"),
    (lambda k: k in ("it_power_mw", "facility_power_mw", "it_power_kw", "facility_power_kw",
                     "pue_ratio", "it_power_kw_per_rack",
                     "power_unknown_parts_count", "liquid_heat_kw", "air_heat_kw",
                     "cooling_units", "power_shelves", "tdp_w")
     or "_per_facility_mw" in k or k.endswith("_per_w"), "power and cooling"),
]


def section(metric: str) -> str:
    for test, name in SECTION_OF:
        if test(metric):
            return name
    return "compute" if ("flops" in metric or "tops" in metric or "ridge" in metric
                         or metric.startswith("hbm") or "mamf" in metric) else "system"


def _sized(o: Option, target: Target) -> Option:
    s = size_to(o.block, target)
    m = dict(o.metrics)
    m.update({"sized_blocks": s.blocks, "sized_block": f"{s.block} ({o.block.built} in option)",
              "sized_gpus": _r(s.gpus, 2), "sized_racks": _r(s.racks, 2),
              "sized_it_power_mw": _r(s.it_mw, 3), "sized_facility_power_mw": _r(s.facility_mw, 3),
              f"sized_peak_dense_pflops_{target.precision or 'bf16'}": _r(s.dense_pflops, 2),
              "sized_capex_usd": _r(s.capex_usd, 0), "sized_tco_usd": _r(s.tco_usd, 0)})
    notes = o.notes + ((s.note,) if s.note else ())
    return Option(o.key, o.name, o.label, o.kind, m, o.capex, o.tco, o.block, s, notes,
                  o.findings)


def assumptions(a: CostAssumptions, target: Target | None, book: PriceBook,
                options: list[Option]) -> list[dict]:
    rows = [
        {"item": "energy price (USD/kWh)", "value": f"{a.energy_usd_per_kwh:g}",
         "source": a.energy_source},
        {"item": "PUE", "value": a.pue if a.pue is not None else "each design's own",
         "source": "--pue" if a.pue is not None else
         f"design files; chip and tray options use {UPTIME_2023_PUE} "
         "(Uptime 2023 average [AN] S37)"},
        {"item": "years (TCO horizon)", "value": a.years, "source": "--years (default 5)"},
        {"item": "maintenance (fraction of capex per year)",
         "value": a.maintenance_fraction_per_year, "source": a.maintenance_source},
        {"item": "energy basis", "value": "facility power (IT x PUE) all year, 8,760 h",
         "source": "full-load upper bound on the parts counted"},
        {"item": "FLOPS basis", "value": f"peak dense {a.precision} (no sparsity)",
         "source": "catalog datasheet figures"},
        {"item": "floor tiles", "value": "600 x 600 mm tiles; 2 per rack (600 x 1200 mm); "
         "2 per in-row cooling unit of known count; aisles excluded", "source": "convention"},
        {"item": "price rule", "value": "a price covers what is mounted in a unit only when it "
         "says covers: contents (an integrated system); an empty rack or chassis price never "
         "does; unpriced lines are unknown, not zero, and make capex a lower bound",
         "source": "infra.analysis.cost.capex"},
        {"item": "utilisation (for $ per GPU-hour)", "value": a.utilisation_fraction,
         "source": "default 1.0: every provisioned hour, as cloud GPU-hours are priced"},
        {"item": "discount rate (per year)", "value": a.discount_rate,
         "source": "default 0: undiscounted sum of yearly costs"},
        {"item": "facility build cost (USD per MW of IT load)", "value": a.facility_usd_per_mw,
         "source": a.facility_source},
        {"item": "facility life (years)", "value": a.facility_life_years,
         "source": "assumption: the TCO carries years / life of the build cost"},
    ]
    used = sorted({p.slug: p for o in options for p in o.capex.prices()}.values(),
                  key=lambda p: p.slug)
    for p in used:
        rng = (f" (range {p.low_usd or p.usd:,.0f}-{p.high_usd or p.usd:,.0f})"
               if p.low_usd or p.high_usd else "")
        rows.append({"item": f"price {p.slug}", "value": p.usd,
                     "source": f"{p.basis}, covers {p.covers}, {p.date}{rng}, [{p.source.tag}] "
                               f"{p.source.title} {p.source.url} ({book.files[p.slug].name})"})
    if used and (max(p.date for p in used) - min(p.date for p in used)).days > 365:
        # a 2023 street price beside a 2026 estimate is not like for like (prices fall as a
        # generation ages): say so wherever the prices are listed (accuracy-audit-3 row 17)
        old, new = min(used, key=lambda p: p.date), max(used, key=lambda p: p.date)
        rows.append({"item": "price dates", "value": f"{old.date} to {new.date}",
                     "source": f"not like for like in date: {old.slug} is priced "
                               f"{(new.date - old.date).days / 365.25:.1f} years before "
                               f"{new.slug}; pass dated quotes with --prices"})
    if target:
        rows.append({"item": "target", "value": target.label,
                     "source": "blocks: ceil for FLOPS, floor (fits within) for MW"})
    for o in options:
        rows += [{"item": f"note: {o.label}", "value": n, "source": "analysis"} for n in o.notes]
    return rows


def compare(keys: list[str], book: PriceBook, catalog: Catalog,
            a: CostAssumptions | None = None, target: Target | None = None,
            allow_mixed_scope: bool = False, train: TrainSpec | None = None) -> Comparison:
    """Compare GPU slugs, compute tray slugs and design files (mixed).

    Parameters
    ----------
    keys : list of str
        Options as given on the command line.
    book : PriceBook
        Prices (:func:`infra.models.prices.load_prices`).
    catalog : Catalog
    a : CostAssumptions, optional
        Energy price, PUE override, years, maintenance, precision for $/PFLOP-year.
    target : Target, optional
        Size every option to this capacity from its building block.
    allow_mixed_scope : bool
        Rank cost metrics even when the options' capex scopes differ (flagged).
        By default they are shown but not ranked (:mod:`infra.analysis.cost.compare_scope`).
    train : TrainSpec, optional
        Train a model on every design option (``train_*`` metrics, ranked by days,
        GPU-hours, MWh and dollars; :mod:`infra.analysis.cost.compare_train`).

    Raises
    ------
    CompareError
        Unknown option (with the nearest slugs) or fewer than one option.
    """
    if not keys:
        raise CompareError("nothing to compare", hint="give GPU slugs, tray slugs or design files")
    a = a or CostAssumptions()
    if train is not None:
        catalog.get(train.model, "model")  # an unknown model is an error before any work
        catalog.get(train.framework, "training_framework")
    options = [resolve_option(k, book, catalog, a, train) for k in keys]
    seen: dict[str, int] = {}
    for i, o in enumerate(options):  # two options with one label would share a column
        seen[o.label] = seen.get(o.label, 0) + 1
        if seen[o.label] > 1:
            options[i] = Option(o.key, o.name, f"{o.label} ({seen[o.label]})", o.kind,
                                o.metrics, o.capex, o.tco, o.block, o.sizing, o.notes,
                                o.findings)
    if target:
        options = [_sized(o, target) for o in options]
    order: dict[str, str] = {}
    for o in options:
        for k in o.metrics:
            order.setdefault(k, section(k))
    rank = ["system", "compute", "bandwidth", "power and cooling", "network parts",
            "reliability", "training", "cost", "sizing"]
    sections = dict(sorted(order.items(), key=lambda kv: rank.index(kv[1])))
    check = scope_check({o.label: o.capex for o in options}, allow_mixed_scope)
    return Comparison(tuple(options), tuple(assumptions(a, target, book, options)), target,
                      sections, check, a)
