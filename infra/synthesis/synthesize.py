"""Design synthesis: from a budget (MW, dollars, a training target) to buildable designs.

For every family (:mod:`infra.synthesis.families`) of the SKUs and cooling asked for, the
block count ``n`` runs over a ladder up to the largest count whose cheap bounds fit
(per-block facility power and capex x ``n``, the model's weights, gradients and optimizer
state within the GPUs' HBM); counts past the bounds are rejected without analysis, with
the bound that rejected them. Every remaining candidate is built (two fabric tiers, or
three where two cannot reach it), analysed in full (power, fabric, capex; with a training
target the step model and the collectives model), checked against the budget, and the
Pareto front of the survivors is kept on the objectives.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from infra.errors import InfraError
from infra.synthesis.families import (FAMILIES, Family, ladder, leaf_paths, load_family,
                                     rail_only, with_count)

MAX_CANDIDATES = 100_000  # full analyses one synthesis runs at most (about 15 CPU minutes)

OBJECTIVE_NAMES = {"days": "train_days", "capex": "capex_usd", "power": "facility_power_mw",
                   "gpus": "gpus", "mwh": "train_facility_energy_mwh",
                   "usd_per_run": "train_usd_per_run", "pflops": "peak_dense_pflops_bf16"}


@dataclass(frozen=True)
class Budget:
    power_mw: float  # facility
    capex_usd: float | None = None
    gpus: int | None = None  # at least this many GPUs
    train_model: str | None = None
    tokens: float | None = None
    days: float | None = None  # at most


@dataclass
class SynthesisResult:
    budget: Budget
    rows: list[dict[str, Any]]  # every candidate analysed (status ok or rejected)
    rejected: list[dict[str, Any]]  # family -> the bound or check that rejected it
    objectives: dict[str, str]
    front: list[int] = field(default_factory=list)  # indices into rows
    designs: dict[int, dict] = field(default_factory=dict)  # row index -> design data
    search: dict[str, int] = field(default_factory=dict)  # enumerated, pruned, analysed

    def front_rows(self) -> list[dict[str, Any]]:
        return [self.rows[i] for i in self.front]

    def as_dict(self) -> dict:
        b = self.budget
        return {"budget": {"power_mw": b.power_mw, "capex_usd": b.capex_usd, "gpus": b.gpus,
                           "train_model": b.train_model, "tokens": b.tokens, "days": b.days},
                "objectives": self.objectives, "front": self.front_rows(),
                "rejected": self.rejected, "candidates": self.rows,
                "evaluated": sum(1 for r in self.rows if r.get("status") != "pruned"),
                "pruned": sum(1 for r in self.rejected if r.get("stage") == "bound"),
                "search": self.search}


def parse_objectives(text: str | None, training: bool) -> dict[str, str]:
    """``days:min,capex:min`` (short names or metric names) -> metric -> direction."""
    if not text:
        text = "days:min,capex:min,power:min" if training else "gpus:max,capex:min,power:min"
    out = {}
    for item in text.split(","):
        name, _, d = item.strip().partition(":")
        if not name:
            continue
        d = d or "min"
        if d not in ("min", "max"):
            raise InfraError(f"objective {item!r}: direction must be min or max",
                             hint="e.g. --objectives days:min,capex:min")
        out[OBJECTIVE_NAMES.get(name, name)] = d
    return out


def synthesize(budget: Budget, *, skus: tuple[str, ...] = (), cooling: str | None = None,
               objectives: str | None = None, families=FAMILIES, only: tuple[str, ...] = (),
               catalog=None, book=None, workers: int = 1, dask: bool = False,
               scheduler: str | None = None, progress=None,
               oversubscriptions: tuple[float, ...] = (1.0, 2.0),
               every_count: bool = False, rail_only: bool = True) -> SynthesisResult:
    """Candidates, bounds, full analyses, the budget check and the Pareto front
    (``only``: family names to keep, e.g. ``("dgx_h100_su",)``). Within a family the
    block count, the first fabric tier's oversubscription (``oversubscriptions``) and,
    with ``rail_only``, a rail-only fabric in place of the fat tree vary;
    counts run over :func:`~infra.synthesis.families.ladder` (``every_count``: each
    count). The full analyses run on the sweep executors (``workers`` local processes, or
    Dask with ``dask``/``scheduler``)."""
    from infra.models.catalog import load_catalog
    from infra.models.prices import load_prices
    from infra.sweeps.pareto import pareto_front

    catalog = catalog or load_catalog()
    book = book if book is not None else load_prices(catalog=catalog)
    arch = catalog.get(budget.train_model, "model") if budget.train_model else None
    fw = None
    if arch is not None:
        from infra.analysis.cost.compare_train import DEFAULT_FRAMEWORK

        fw = catalog.get(DEFAULT_FRAMEWORK, "training_framework")
    unknown = [n for n in only if n not in {f for f, _ in families}]
    if unknown:
        raise InfraError(f"unknown family {unknown[0]!r}",
                         hint="families: " + ", ".join(n for n, _ in families))
    fam = [load_family(n, b, catalog, book) for n, b in families if not only or n in only]
    fam = [f for f in fam if (not skus or f.gpu in skus or any(s in f.gpu for s in skus))
           and (cooling is None or f.cooling == cooling)]
    if not fam:
        raise InfraError("no family matches --sku / --cooling",
                         hint="families: " + ", ".join(n for n, _ in families))
    rows: list[dict] = []
    rejected: list[dict] = []
    designs: dict[int, dict] = {}
    run = {"workers": workers, "dask": dask, "scheduler": scheduler, "progress": progress}
    if not oversubscriptions or any(not 1 <= o <= 16 for o in oversubscriptions):
        raise InfraError(f"oversubscriptions {list(oversubscriptions)}: each must be 1 to 16",
                         hint="e.g. --oversubscription 1,2 (1: non-blocking, 2: 2:1)")
    oversubscriptions = tuple(sorted(set(oversubscriptions)))  # 2,2,2 is 2 once
    def variants(f: Family) -> int:  # fabric variants a count is tried in
        return ((len(oversubscriptions) if leaf_paths(f.data) else 1)
                + (1 if rail_only and f.rails else 0))

    plans = [(f, *_counts(f, budget, arch, fw, every_count)) for f in fam]
    todo = sum(len(c) * variants(f) for f, c, _, _ in plans)
    if todo > MAX_CANDIDATES:
        raise InfraError(f"{todo:,} candidates to analyse in full (at most "
                         f"{MAX_CANDIDATES:,})",
                         hint="narrow the search: a smaller --power-mw or --capex-usd, "
                              "--family or --sku, fewer --oversubscription ratios, or the "
                              "default count ladder (without --every-count)")
    space = pruned = 0
    for f, counts, why, total in plans:
        space += total * variants(f)
        pruned += (total - len(counts)) * variants(f)
        if why:
            rejected.append({"family": f.name, "gpu": f.gpu, "stage": "bound", "reason": why})
        for row, data in _evaluate_all(f, counts, budget, run, oversubscriptions, rail_only):
            if data is not None:
                designs[len(rows)] = data
            rows.append(row)
    obj = parse_objectives(objectives, arch is not None)
    # ranked on the priced lines: a lower-bound capex (unpriced optics) takes part, flagged
    # in its row (the sweep's rule would leave no front: every family has unpriced parts)
    ok = [{**r, "capex_is_lower_bound": False} if r.get("status") == "ok" else {} for r in rows]
    front = pareto_front(ok, obj) if any(ok) else []
    for f in fam:
        mine = [r for r in rows if r["family"] == f.name]
        if mine and not any(r.get("status") == "ok" for r in mine):
            rejected.append({"family": f.name, "gpu": f.gpu, "stage": "analysis",
                             "reason": mine[0].get("reason", "no candidate fits")})
    return SynthesisResult(budget, rows, rejected, obj, list(front), designs,
                           {"enumerated": space, "pruned_by_bounds": pruned,
                            "analysed": space - pruned})


def _counts(f: Family, b: Budget, arch, fw,
            every: bool = False) -> tuple[list[int], str | None, int]:
    """The counts worth a full analysis, the bound that cut the rest (if any), and how
    many counts the search space holds: the ladder up to what the facility power allows,
    or to the count needed where that is larger."""
    limits = [("power", b.power_mw * 1000 / f.facility_kw_per_block,
               f"{f.facility_kw_per_block / 1000:.3f} MW facility per block")]
    if b.capex_usd is not None and f.capex_per_block:
        limits.append(("capex", b.capex_usd / f.capex_per_block,
                       f"${f.capex_per_block / 1e6:,.1f}M per block"))
    kind, cap, per = min(limits, key=lambda x: x[1])
    top = math.floor(cap + 1e-9)
    need = 1
    if b.gpus:
        need = math.ceil(b.gpus / f.gpus_per_block)
    if arch is not None:
        from infra.analysis.perf.model_flops import model_figures

        from infra.analysis.perf.training import state_bytes_per_param

        # weights, gradients and optimizer state (the framework's bytes per parameter)
        state_gb = model_figures(arch).params * state_bytes_per_param(fw) / 1e9
        per_block = f.gpus_per_block * f.hbm_gb_per_gpu * fw.hbm_usable_fraction
        need = max(need, math.ceil(state_gb / per_block))
    power_top = math.floor(limits[0][1] + 1e-9)
    total = len(ladder(max(power_top, need, 1), every))
    if b.capex_usd is not None and not f.capex_per_block:
        return [], ("capex unknown (unpriced): cannot be checked against the budget (price "
                    "it with --prices)"), total
    if top < need:
        what = (f"{need} block(s) needed ({f.gpus_per_block * need:,.0f} x {f.gpu}) but "
                f"{kind} allows {top} ({per})")
        return [], what, total
    counts = [n for n in ladder(top, every) if n >= need] or [need]
    if b.gpus:
        counts = [need]
    return counts, None, max(total, len(counts))


ROW_KEYS = ("gpus", "fabric_tiers", "leaf_switches", "spine_switches", "core_switches",
            "transceivers", "it_power_mw", "facility_power_mw", "capex_usd",
            "capex_is_lower_bound", "peak_dense_pflops_bf16", "train_gpus", "train_parallelism",
            "train_mfu_fraction", "train_tokens_per_s", "train_goodput_fraction", "train_days",
            "train_gpu_hours", "train_facility_energy_mwh", "train_usd_per_run",
            "train_usd_per_million_tokens", "train_note")


def _evaluate_all(f: Family, counts: list[int], b: Budget, run: dict,
                  oversubs: tuple[float, ...] = (1.0,), rail: bool = False):
    """(row, design data) of every candidate of the family: each count at each leaf
    oversubscription on the family's fat tree (one sweep with two tiers, then one with a
    third tier over what two cannot reach), and, with ``rail``, each count rail-only."""
    from infra.sweeps import sweep

    if not counts:
        return []
    paths = leaf_paths(f.data)
    ratios = list(oversubs) if paths else [None]
    want = [("fat_tree", n, o) for n in counts for o in ratios]
    if rail and f.rails:
        want += [("rail_only", n, None) for n in counts]
    found: dict[tuple, tuple[dict, dict | None]] = {}
    passes = [("fat_tree", None), ("fat_tree", 3), ("rail_only", None)]
    todo = [k for k in want if k[0] == "fat_tree"]
    for variant, tiers in passes:
        if variant == "rail_only":
            todo = [k for k in want if k[0] == "rail_only"]
        if not todo:
            continue
        one = with_count(f.data, f.block, 1, tiers)
        data = rail_only(one, f.rails) if variant == "rail_only" else one
        params = {"blocks": {"path": f"build.{f.block}", "values": sorted({n for _, n, _ in todo})}}
        os_ = sorted({o for _, _, o in todo if o is not None})
        if paths and variant == "fat_tree":
            params["leaf_oversubscription"] = {"path": paths, "values": os_}
        grid = {"parameters": params}
        if b.train_model:
            grid["train"] = {"model": b.train_model, "tokens": b.tokens or 1.0}
        res = sweep(_base_file(f, data, f"{variant}-{tiers or 2}"), grid, **run,
                    max_scenarios=None)  # bounded above (MAX_CANDIDATES)
        again = []
        for r in res.rows:
            o = r.get("leaf_oversubscription") if paths and variant == "fat_tree" else None
            key = (variant, r["blocks"], o)
            if key not in todo:
                continue
            reason = r.get("error") or ""
            if r["status"] != "ok" and tiers is None and variant == "fat_tree" \
                    and _needs_a_tier(reason):
                again.append(key)
                continue
            row = {"family": f.name, "gpu": f.gpu, "blocks": key[1], "cooling": f.cooling,
                   "fabric_variant": variant, "leaf_oversubscription": o or 1.0}
            if r["status"] != "ok":
                found[key] = ({**row, "status": "rejected", "reason": _reason(reason)}, None)
                continue
            row.update({k: r.get(k) for k in ROW_KEYS if k in r})
            row["status"], row["reason"] = _check(row, b)
            design = with_count(f.data, f.block, key[1], tiers, o)
            found[key] = (row, rail_only(design, f.rails) if variant == "rail_only" else design)
        todo = again
    return [found[k] for k in want if k in found]


def _needs_a_tier(reason: str) -> bool:
    """The two-tier build failed only for want of a third tier."""
    return "reach at most" in reason or "add a tier" in reason


def _reason(error: str) -> str:
    """A sweep row's error without the (temporary) file and line it names, at most 200
    characters: ``/tmp/x.yaml:25: fabrics.compute.tiers: tier 2 ...`` -> ``fabrics...``."""
    head, sep, rest = error.partition(": ")
    if sep and (head.endswith(".yaml") or ".yaml:" in head):
        error = rest
    return error if len(error) <= 200 else error[:199] + "\u2026"


def _base_file(f: Family, data: dict, variant: str):
    """The family's design file, or (three tiers, rail-only) a copy of the changed data
    in a temporary file (sweeps read their base design from a file)."""
    if variant == "fat_tree-2":
        return f.file
    import tempfile

    import yaml

    tmp = tempfile.NamedTemporaryFile("w", suffix=".yaml", prefix=f"{f.name}-{variant}-",
                                      dir=_tmpdir(), delete=False)
    with tmp:
        yaml.safe_dump(data, tmp, sort_keys=False)
    return tmp.name


def _tmpdir() -> str:
    import atexit
    import shutil
    import tempfile

    d = getattr(_tmpdir, "dir", None)
    if d is None:
        d = _tmpdir.dir = tempfile.mkdtemp(prefix="infra-synthesis-")  # type: ignore[attr-defined]
        atexit.register(shutil.rmtree, d, True)
    return d


def _check(r: dict, b: Budget) -> tuple[str, str | None]:
    if r["facility_power_mw"] > b.power_mw:
        return "rejected", f"{r['facility_power_mw']:.2f} MW > {b.power_mw:g} MW"
    if b.capex_usd is not None:
        if r["capex_usd"] is None:
            return "rejected", "capex unknown (unpriced): cannot be checked against the budget"
        if r["capex_usd"] > b.capex_usd:
            return "rejected", f"${r['capex_usd'] / 1e6:,.1f}M > ${b.capex_usd / 1e6:,.1f}M"
    if b.gpus and r["gpus"] < b.gpus:
        return "rejected", f"{r['gpus']:,} GPUs < {b.gpus:,}"
    if b.train_model:
        if r.get("train_days") is None:
            return "rejected", r.get("train_note") or "the model does not train on it"
        if b.days is not None and r["train_days"] > b.days:
            return "rejected", f"{r['train_days']:.1f} days > {b.days:g} days"
    return "ok", None


__all__ = ["Budget", "MAX_CANDIDATES", "OBJECTIVE_NAMES", "SynthesisResult", "parse_objectives", "synthesize"]
