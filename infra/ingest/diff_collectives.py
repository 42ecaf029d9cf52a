"""Measured vs predicted collectives: nccl-tests rows of an inventory beside the model.

Every row of ``DIR/nccl-tests/*.txt`` (:mod:`infra.ingest.nccl_tests`) is predicted with
:func:`infra.analysis.perf.collectives` for the same op, rank count and size (nccl-tests'
size column, as the model takes it) and reported with the ratio measured / predicted;
measured is the better of the out-of-place and in-place bus bandwidths.

Rules (stated here, used by ``infra diff``):

- Rows of **1 GiB and more** are judged; smaller rows are reported only. Below 1 GiB the
  measured bandwidth still ramps up faster or slower than NCCL's latency term says:
  healthy published runs fall 10-16 % below the model at 64-128 MiB (Azure ND H200 v5) and
  29 % at 512 MiB (one GB200 NVL72 rack), while at 1 GiB and more they are within 3 %
  (docs/guides/collectives.md, "Validation").
- A judged row more than **15 %** below its prediction is slow. Each run (a log, or a run
  of a log holding several) with a slow row gives one ``collective-slow`` error (the
  largest slow size is quoted) with its likely cause: across scale-up domains the network
  (NIC link rate and PCIe width, GPUDirect RDMA, RoCE PFC/ECN and GID, NCCL_IB_HCA), within
  one domain the scale-up links (NVLink / NVSwitch / NVLS, or xGMI). What binds the
  prediction is found by perturbing the catalog factors, not from label text.
- Rows with wrong elements (``#wrong`` > 0) give a ``collective-wrong-results`` error.
- Runs that cannot be predicted (more ranks than the design has GPUs, an op the model does
  not cover, a GPU without a collective model) are reported as not comparable with the
  reason; never an error.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

from infra.analysis.perf import collectives, predict
from infra.analysis.perf.inputs import DesignTiers, design_tiers, place_job
from infra.errors import InfraError
from infra.ingest.findings import Finding
from infra.ingest.nccl_tests import NcclTestRun, format_bytes
from infra.models.resolve import ResolvedDesign

JUDGE_MIN_BYTES = 2**30  # rows of this size and more are judged (see the module docstring)
SLOW_BELOW = 0.15  # a judged row more than this share below its prediction is slow
SCALE_UP_FACTORS = ("nvls_busbw_per_line", "scale_up_link_gbyte_s")
FACTORS = ("net_efficiency",) + SCALE_UP_FACTORS

NET_CHECKS = ("check the NICs' link rate and PCIe width (ibstat, lspci -vv), GPUDirect RDMA "
              "(nvidia-peermem loaded; NCCL_DEBUG=INFO shows GDRDMA), RoCE PFC/ECN and the "
              "IB/RoCE GID (NCCL_IB_GID_INDEX), and that NCCL uses every NIC (NCCL_IB_HCA) "
              "(see NVIDIA/nccl #2409)")
NVLINK_CHECKS = ("check NVLink (nvidia-smi nvlink -s: inactive links, low rates), the "
                 "NVSwitches and Fabric Manager (nvidia-smi -q: Fabric state), NVLS "
                 "(NCCL_NVLS_ENABLE, NCCL_DEBUG=INFO shows NVLS), and GPU clocks and power "
                 "capping (nvidia-smi -q -d PERFORMANCE)")
XGMI_CHECKS = ("check the xGMI links (rocm-smi --showtopo, amd-smi metric), the GPU "
               "partition mode (SPX/NPS1), and GPU clocks and power capping")


@dataclass(frozen=True)
class CollectiveCheck:
    """One measured nccl-tests row beside its prediction."""

    file: str
    line: int
    op: str
    gpus: int
    size_bytes: int
    measured_busbw_gbyte_s: float
    busbw_out_of_place: float
    busbw_in_place: float | None
    predicted_busbw_gbyte_s: float | None
    algorithm: str | None  # predicted, e.g. "NVLS Simple"
    bottleneck: str | None
    binds: str | None  # the catalog factor that binds the prediction (None: latency, n/a)
    nodes: int | None  # scale-up domains the job spans
    ratio: float | None  # measured / predicted
    status: str  # ok | slow | above | small | not comparable
    note: str = ""

    def as_dict(self) -> dict:
        return asdict(self)


def check_runs(rd: ResolvedDesign, runs: tuple[NcclTestRun, ...]
               ) -> tuple[tuple[CollectiveCheck, ...], list[Finding], list[str]]:
    """(rows, findings, notes) for the runs of an inventory's nccl-tests logs."""
    checks: list[CollectiveCheck] = []
    findings: list[Finding] = []
    notes: list[str] = []
    for run in runs:
        rows = _checks(rd, run)
        checks += rows
        findings += _findings(rd, run, rows)
    judged = [c for c in checks if c.status in ("ok", "slow", "above")]
    if checks and not judged:
        notes.append(f"no nccl-tests row of {format_bytes(JUDGE_MIN_BYTES)} or more could be "
                     "compared with the design: rows are reported, not judged (run the tests "
                     "up to -e 8G on jobs that fit the design)")
    return tuple(checks), findings, notes


def _checks(rd: ResolvedDesign, run: NcclTestRun) -> list[CollectiveCheck]:
    sizes = tuple(r.size_bytes for r in run.rows)
    why = "" if run.modelled else f"the model does not predict {run.op}"
    preds = []
    if not why:
        try:
            preds = collectives(rd, ops=(run.op,), gpus=(run.ranks,), sizes=sizes)
        except InfraError as exc:  # a job that does not fit, a GPU without a model
            why = exc.message
    out = []
    for i, r in enumerate(run.rows):
        base = dict(file=run.file, line=r.line, op=run.op, gpus=run.ranks, size_bytes=r.size_bytes,
                    measured_busbw_gbyte_s=r.busbw_gbyte_s, busbw_out_of_place=r.oop_busbw_gbyte_s,
                    busbw_in_place=r.ip_busbw_gbyte_s)
        if why:
            out.append(CollectiveCheck(**base, predicted_busbw_gbyte_s=None, algorithm=None,
                                       bottleneck=None, binds=None, nodes=None, ratio=None,
                                       status="not comparable", note=why))
            continue
        p = preds[i]
        ratio = r.busbw_gbyte_s / p.busbw_gbyte_s if p.busbw_gbyte_s > 0 else None
        if r.size_bytes < JUDGE_MIN_BYTES or ratio is None:
            status = "small"
        elif ratio < 1 - SLOW_BELOW:
            status = "slow"
        elif ratio > 1 + SLOW_BELOW:
            status = "above"
        else:
            status = "ok"
        binds = binding_factor(design_tiers(rd), run.op, run.ranks, r.size_bytes) \
            if status in ("slow", "ok", "above") else None
        out.append(CollectiveCheck(**base, predicted_busbw_gbyte_s=p.busbw_gbyte_s,
                                   algorithm=f"{p.algorithm} {p.protocol}", bottleneck=p.bottleneck,
                                   binds=binds, nodes=p.nodes,
                                   ratio=round(ratio, 4) if ratio is not None else None,
                                   status=status))
    return out


def binding_factor(t: DesignTiers, op: str, gpus: int, size: int) -> str | None:
    """The catalog factor whose 1 % change moves the prediction most (None: none moves it
    by 0.1 %, a latency-bound call)."""
    m = t.model
    if m is None:
        return None
    pl = place_job(t, gpus)
    base = predict(t, op, pl, size).busbw_gbyte_s
    best, best_drop = None, 0.001
    for f in FACTORS:
        v = getattr(m, f, None)
        if not v:
            continue
        moved = predict(replace(t, model=m.model_copy(update={f: v * 0.99})), op, pl, size)
        drop = 1 - moved.busbw_gbyte_s / base if base > 0 else 0.0
        if drop > best_drop:
            best, best_drop = f, drop
    return best


def _findings(rd: ResolvedDesign, run: NcclTestRun, rows: list[CollectiveCheck]) -> list[Finding]:
    out = []
    node = _hosts(run.hosts)
    slow = [c for c in rows if c.status == "slow"]
    judged = [c for c in rows if c.status in ("ok", "slow", "above")]
    if slow:
        c = max(slow, key=lambda x: x.size_bytes)
        pct = (1 - c.ratio) * 100  # type: ignore[operator]
        what = f"{c.algorithm.split()[0]} bound by {c.bottleneck}"  # type: ignore[union-attr]
        cause = (f"measured {c.measured_busbw_gbyte_s:.0f} GB/s is {pct:.0f} % below the predicted "
                 f"{c.predicted_busbw_gbyte_s:.0f} GB/s ({what}): {_checks_text(rd, c)}")
        out.append(Finding(
            "error", "collective-slow", None, None, node, None, None,
            f"{run.op} busbw about {c.predicted_busbw_gbyte_s:.0f} GB/s on {c.gpus} GPUs at "
            f"{format_bytes(c.size_bytes)} (at least {(1 - SLOW_BELOW) * c.predicted_busbw_gbyte_s:.0f})",  # type: ignore[operator]
            f"{c.measured_busbw_gbyte_s:g} GB/s ({len(slow)} of {len(judged)} rows of "
            f"{format_bytes(JUDGE_MIN_BYTES)} and more over {SLOW_BELOW * 100:.0f} % below)",
            cause, f"{run.file}:{c.line}"))
    wrong = [r for r in run.rows if r.wrong]
    if wrong:
        w = wrong[0]
        out.append(Finding(
            "error", "collective-wrong-results", None, None, node, None, None,
            "0 wrong elements", f"{sum(r.wrong or 0 for r in wrong):,} wrong elements in "
            f"{len(wrong)} row(s), first at {format_bytes(w.size_bytes)}",
            "the collective returned corrupted data: check GPU memory (nvidia-smi -q -d "
            "ECC, Xid in dmesg), NVLink and NIC error counters before trusting any bandwidth",
            f"{run.file}:{w.line}"))
    return out


def _checks_text(rd: ResolvedDesign, c: CollectiveCheck) -> str:
    mesh = design_tiers(rd).scale_up_topology == "mesh"
    if (c.nodes or 1) > 1:
        if c.binds in SCALE_UP_FACTORS:
            inside = "the xGMI links" if mesh else "NVLink and NVLS (nvidia-smi nvlink -s, NCCL_NVLS_ENABLE)"
            return (f"the job crosses {c.nodes} scale-up domains, where the network is the "
                    f"usual cause: {NET_CHECKS}; then {inside} inside a domain")
        return NET_CHECKS
    return XGMI_CHECKS if mesh else NVLINK_CHECKS


def _hosts(hosts: tuple[str, ...]) -> str | None:
    if not hosts:
        return None
    if len(hosts) <= 3:
        return ", ".join(hosts)
    return f"{hosts[0]}..{hosts[-1]} ({len(hosts)} hosts)"


__all__ = ["FACTORS", "JUDGE_MIN_BYTES", "SLOW_BELOW", "CollectiveCheck", "binding_factor",
           "check_runs"]
