"""``infra diff --calibrate``: fit a site's collective efficiency factors from its logs.

The fit (one step, stated here):

1. Rows used: nccl-tests rows of 1 GiB and more that the design can predict
   (:data:`infra.ingest.diff_collectives.JUDGE_MIN_BYTES`; smaller rows are
   latency-shaped and say little about bandwidth factors).
2. Scale-up first, from rows inside one scale-up domain: each row is bound by
   ``nvls_busbw_per_line`` (NVLS all-reduce) or ``scale_up_link_gbyte_s`` (Ring, all-gather,
   ...), the factor whose 1 % change moves its prediction most
   (:func:`~infra.ingest.diff_collectives.binding_factor`).
3. Then the network, from rows that span several domains: ``net_efficiency``, with the
   scale-up factors of step 2. Across domains the network is what a site's configuration
   changes (NIC rate, GPUDirect RDMA, RoCE settings), so a multi-domain shortfall is
   attributed to it even where the shipped prediction is scale-up bound.
4. Per row, the factor value that makes the prediction equal the measured busbw is found
   by bisection (the prediction grows with each factor); the fitted value is the median
   over the rows the factor binds. Rows the factor cannot explain within its range
   (``net_efficiency`` 0.01-1, scale-up factors /20 to x20) are left out with a note.

The result is the shipped ``collective_model`` entry with the fitted figures, a source
tagged ``estimate`` naming the logs and the method, and per-figure ``choices`` giving the
shipped values: the same slug, one file (``<slug>.calibrated.yaml``) that
``--collective-model FILE`` puts in place of the shipped entry
(:func:`infra.models.catalog.load_override`).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, replace
from pathlib import Path

import yaml

from infra.analysis.perf import predict
from infra.analysis.perf.inputs import DesignTiers, design_tiers, place_job
from infra.ingest.base import InventoryError
from infra.ingest.diff_collectives import JUDGE_MIN_BYTES, SCALE_UP_FACTORS, CollectiveCheck
from infra.ingest.nccl_tests import NcclTestRun, format_bytes
from infra.models.catalog import entry_as_dict
from infra.models.perf_parts import CollectiveModel
from infra.models.resolve import ResolvedDesign

NET_RANGE = (0.01, 1.0)
SCALE_RANGE = 20.0  # scale-up factors are searched between value / 20 and value x 20


@dataclass(frozen=True)
class Fit:
    field: str
    shipped: float
    fitted: float
    rows: int
    median_ratio: float  # measured / predicted (shipped model) of the rows used


@dataclass(frozen=True)
class Calibration:
    model: CollectiveModel
    fits: tuple[Fit, ...]
    rows_before: float  # median |measured / predicted - 1| with the shipped model
    rows_after: float  # the same with the fitted model
    notes: tuple[str, ...]
    text: str  # the override file (<slug>.calibrated.yaml)

    @property
    def slug(self) -> str:
        return self.model.slug


def calibrate(rd: ResolvedDesign, checks: tuple[CollectiveCheck, ...],
              runs: tuple[NcclTestRun, ...]) -> Calibration:
    """Fit ``rd``'s collective model to ``checks`` (see the module docstring)."""
    t = design_tiers(rd)
    m = t.model
    if m is None:
        raise InventoryError(f"the design's GPU {t.gpu!r} has no collective model: nothing to "
                             "calibrate", file=str(rd.file),
                             hint="give the GPU's catalog entry a collective_model")
    rows = [c for c in checks if c.status in ("ok", "slow", "above")]
    if not rows:
        raise InventoryError(f"nothing to calibrate: no nccl-tests row of "
                             f"{format_bytes(JUDGE_MIN_BYTES)} or more could be compared with "
                             "the design", file=str(Path(runs[0].file).parent) if runs else None,
                             hint="run the tests up to -e 8G on jobs that fit the design")
    notes: list[str] = []
    fits: list[Fit] = []
    model = m
    for field in SCALE_UP_FACTORS:
        bound = [c for c in rows if c.nodes == 1 and c.binds == field]
        model = _fit(t, model, field, bound, fits, notes)
    multi = [c for c in rows if (c.nodes or 1) > 1]
    model = _fit(t, model, "net_efficiency", multi, fits, notes)
    if not fits:
        raise InventoryError("nothing to calibrate: no row of 1 GiB or more is bound by a "
                             "bandwidth factor the fit can move", hint="; ".join(notes) or None)
    before = _median_error(t, m, rows)
    after = _median_error(t, model, rows)
    entry = _entry(m, model, fits, rd, rows, runs)
    return Calibration(entry, tuple(fits), before, after, tuple(notes), _text(entry, m, rows))


def _fit(t: DesignTiers, model: CollectiveModel, field: str, rows: list[CollectiveCheck],
         fits: list[Fit], notes: list[str]) -> CollectiveModel:
    shipped = getattr(model, field)
    if not rows or not shipped:
        return model
    lo, hi = NET_RANGE if field == "net_efficiency" else (shipped / SCALE_RANGE,
                                                          shipped * SCALE_RANGE)
    values = []
    for c in rows:
        v = _solve(t, model, field, c, lo, hi)
        if v is None:
            notes.append(f"{Path(c.file).name}:{c.line} ({c.op}, {c.gpus} GPUs, "
                         f"{format_bytes(c.size_bytes)}): {field} between {lo:g} and {hi:g} "
                         "cannot explain the measurement; not used")
        else:
            values.append(v)
    if not values:
        return model
    fitted = float(f"{statistics.median(values):.4g}")
    ratio = statistics.median(c.measured_busbw_gbyte_s / c.predicted_busbw_gbyte_s  # type: ignore[operator]
                              for c in rows)
    fits.append(Fit(field, shipped, fitted, len(values), round(ratio, 4)))
    return model.model_copy(update={field: fitted})


def _busbw(t: DesignTiers, model: CollectiveModel, c: CollectiveCheck) -> float:
    return predict(replace(t, model=model), c.op, place_job(t, c.gpus), c.size_bytes).busbw_gbyte_s


def _solve(t: DesignTiers, model: CollectiveModel, field: str, c: CollectiveCheck,
           lo: float, hi: float) -> float | None:
    """The value of ``field`` in [lo, hi] that makes the prediction of ``c`` equal its
    measurement (bisection; the prediction is non-decreasing in every factor)."""
    target = c.measured_busbw_gbyte_s

    def at(v: float) -> float:
        return _busbw(t, model.model_copy(update={field: v}), c)

    if at(hi) < target * (1 - 1e-6) or at(lo) > target * (1 + 1e-6):
        return None
    for _ in range(60):
        mid = (lo * hi) ** 0.5
        if at(mid) < target:
            lo = mid
        else:
            hi = mid
        if hi / lo < 1 + 1e-6:
            break
    return (lo * hi) ** 0.5


def _median_error(t: DesignTiers, model: CollectiveModel, rows: list[CollectiveCheck]) -> float:
    return statistics.median(abs(c.measured_busbw_gbyte_s / _busbw(t, model, c) - 1) for c in rows)


def _entry(shipped: CollectiveModel, model: CollectiveModel, fits: list[Fit], rd: ResolvedDesign,
           rows: list[CollectiveCheck], runs: tuple[NcclTestRun, ...]) -> CollectiveModel:
    data = entry_as_dict(model)
    ids = {s["id"] for s in data["sources"]}
    sid = next(i for i in ("SITE", *(f"SITE-{k}" for k in range(2, 1000))) if i not in ids)
    files = sorted({Path(c.file).name for c in rows})
    versions = sorted({r.library_version for r in runs if r.library_version})
    lib = f", {shipped.library} {', '.join(versions)}" if versions else ""
    data["sources"].append({
        "id": sid, "tag": "estimate",
        "title": (f"Site calibration by `infra diff --calibrate` of {Path(rd.file).name}: "
                  f"{len(rows)} nccl-tests rows of {format_bytes(JUDGE_MIN_BYTES)} and more from "
                  f"{', '.join(files)}{lib}; each fitted figure is the median over the rows it "
                  "binds of the value that makes the prediction equal the measured busbw "
                  "(scale-up figures from single-domain rows first, then net_efficiency from "
                  "multi-domain rows)")})
    for f in fits:
        data["figure_sources"][f.field] = sid
        data["choices"][f.field] = (f"site fit {f.fitted:g} (shipped {f.shipped:g}, source "
                                    f"{shipped.figure_sources.get(f.field, shipped.sources[0].id)}):"
                                    f" {f.rows} row(s), median measured/predicted {f.median_ratio:g}")
    return CollectiveModel.model_validate(data)


def _text(entry: CollectiveModel, shipped: CollectiveModel, rows: list[CollectiveCheck]) -> str:
    data = entry_as_dict(entry)
    head = ["kind", "slug", "vendor", "name"]
    tail = ["sources", "figure_sources", "choices", "notes"]
    order = head + [k for k in CollectiveModel.model_fields if k not in head + tail] + tail
    ordered = {k: data[k] for k in order if k in data}
    lines = [f"# Site calibration of {shipped.slug} ({shipped.name}) written by `infra diff "
             f"--calibrate` from {len(rows)} nccl-tests row(s).",
             "# Same slug as the shipped entry: pass this file with --collective-model FILE to",
             "# `infra collectives` or `infra diff` to use it in place of the shipped one.",
             "# Figures fitted: see figure_sources and choices (the shipped values)."]
    return "\n".join(lines) + "\n" + yaml.dump(ordered, Dumper=_Dumper, sort_keys=False,
                                               width=100, allow_unicode=True)


class _Dumper(yaml.SafeDumper):
    """Short lists of numbers in flow style (``[6.6, 14.0, 8.4]``), as the shipped files."""


def _list(dumper: yaml.SafeDumper, data: list):
    flow = all(isinstance(x, (int, float)) for x in data)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flow)


_Dumper.add_representer(list, _list)


__all__ = ["Calibration", "Fit", "calibrate"]
