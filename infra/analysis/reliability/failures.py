"""Failure-domain review: interruptions, GPU-hours lost and a job's view, from rates.

Fleet view (one row per blast-radius row and rate kind)
-------------------------------------------------------
events per year = count in the cluster x rate (events per component-year); a row
*interrupts* when one failure stops a job on the GPUs under it: GPUs lost, a GPU left
with no scale-out path (bandwidth fraction 0), a domain split (cross-rack cable set),
or a software fault. GPU-hours lost per year = events x GPUs out of service x repair
hours (hardware downtime; the job's rework is in the job view).

Job view
--------
A job on N GPUs spans ceil(N / g) of each scope of g GPUs (GPU 1, tray, rack, domain,
pod) and picks up every interrupting component of those scopes once:
Lambda = sum(count in the job x rate) (Poisson, independent). Interruptions per day =
Lambda / 365; mean time between interruptions (MTBI) = 8760 / Lambda hours. Checkpoint
interval and goodput: :mod:`infra.analysis.reliability.checkpoint`.

Checkpoint write and restart times (:func:`checkpoint_times`), first that applies:
``--checkpoint-seconds`` (given); the design's storage (its ``storage:`` entries, the
fastest-writing one that all the job's GPUs reach): a checkpoint of G GB per GPU (4 GB,
the largest per-GPU model state Meta gives for Llama 3, unless given) written at the
storage's bound for the job (:func:`infra.analysis.network.storage.checkpoint_seconds`)
and read back on every restart (added to the restart time); else the rates file's
``job`` section (an assumption).

Assumptions: rates are constant in time (no infant mortality, no wear-out); failures are
independent (no common cause beyond the shared parts modelled); every interruption
costs one restart. Redundant units (N+1 power shelves) are charged their events but do
not interrupt; a second failure before repair is not modelled in the fleet view.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from infra.analysis.reliability.availability import DomainModel, Part, unavailability
from infra.analysis.reliability.blast_radius import BlastRow
from infra.analysis.summary import DesignAnalysis
from infra.errors import InfeasibleDesignError
from infra.models.rates import FailureRate, RateTable
from infra.units import HOURS_PER_YEAR

DAYS_PER_YEAR = HOURS_PER_YEAR / 24  # 365: the convention of the rates' calibration
# Llama 3 (Meta, arXiv 2407.21783) section 3.3.1: "each GPU's model state" is 1 MB to
# 4 GB; the largest is taken (a longer write, a lower goodput), as catalogs/storage/
# meta-tectonic-llama3.yaml and the fabrics-storage guide relay it.
CHECKPOINT_GBYTE_PER_GPU = 4.0
CHECKPOINT_SIZE_SOURCE = ("Llama 3 (arXiv 2407.21783) section 3.3.1: a GPU's model state is "
                          "1 MB to 4 GB; the largest is taken (--checkpoint-gb-per-gpu to change)")
TRAY_KINDS = ("compute_tray", "superchip", "cpu", "nic", "pcie_switch")
NVLINK_KINDS = ("nvlink_switch_chip", "nvlink_switch_tray", "nvlink_backplane")


@dataclass(frozen=True)
class Geometry:
    """GPUs per scope in the design's main scale-up domain shape."""

    gpus: int
    tray: int
    rack: int
    domain: int
    domain_scope: str  # rack | tray
    groups: int  # racks per domain (1 for a tray domain)


@dataclass(frozen=True)
class FailureRow:
    component_kind: str
    component: str
    count: int
    rate_per_year: float | None
    tag: str
    gpus_lost: int
    gpus_degraded: int
    degraded_bandwidth_fraction: float | None
    interrupts: bool
    scope: str
    scope_gpus: int
    events_per_year: float | None
    events_per_day: float | None
    repair_hours: float | None
    gpu_hours_lost_per_year: float | None
    share_of_interruptions: float | None
    note: str


@dataclass(frozen=True)
class JobView:
    job_gpus: int
    domains: int
    trays: int
    racks: int
    interruptions_per_day: float
    mtbi_hours: float
    checkpoint_write_seconds: float
    restart_minutes: float
    young_interval_minutes: float
    daly_interval_minutes: float
    goodput_fraction: float
    by_kind_per_day: tuple[tuple[str, float], ...]


@dataclass(frozen=True)
class CheckpointTimes:
    """A job's checkpoint write and restart times, with what each rests on."""

    write_seconds: float
    restart_minutes: float
    read_seconds: float | None  # reading the checkpoint back on a restart (storage only)
    gbyte_per_gpu: float | None  # checkpoint size per GPU (storage only)
    storage: str | None  # the storage entry used, if any
    rows: tuple[dict, ...]  # job_assumptions rows: item, value, basis, tag


def job_storage(a: DesignAnalysis, job_gpus: int):
    """The fastest-writing storage that every GPU of a ``job_gpus`` job reaches, or None."""
    if not a.rd.design.storage:
        return None
    from infra.analysis.network.storage import design_storage

    reach = [s for s in design_storage(a.rd, a.fabrics) if s.gpus >= job_gpus]
    return max(reach, key=lambda s: s.job_gbyte_s(job_gpus, True), default=None)


def checkpoint_times(a: DesignAnalysis, rates: RateTable, job_gpus: int,
                     write_seconds: float | None = None, restart_minutes: float | None = None,
                     gbyte_per_gpu: float | None = None) -> CheckpointTimes:
    """Checkpoint write and restart times of a job of ``job_gpus`` GPUs on design ``a``.

    ``write_seconds`` given wins; else the storage all the job's GPUs reach writes a
    checkpoint of ``gbyte_per_gpu`` (default :data:`CHECKPOINT_GBYTE_PER_GPU`) GB per
    GPU at its bound, and a restart (``restart_minutes``, default the rates file's) reads
    it back (the read is added unless ``restart_minutes`` is given: given, it is the
    whole restart); else the rates file's ``job`` section. Each row's basis says which.
    """
    job = rates.job
    store = job_storage(a, job_gpus) if write_seconds is None else None
    if store is None:
        if write_seconds is not None:
            w_basis, w_tag = "--checkpoint-seconds" + (
                " (the design's storage is not used)" if a.rd.design.storage else ""), "given"
        else:
            write_seconds, w_tag = job.checkpoint_write_seconds, "assumption"
            if not a.rd.design.storage:
                why = "the design declares no storage"
            else:
                why = f"no storage of the design reaches all {job_gpus:,} GPUs of the job"
            unused = "; --checkpoint-gb-per-gpu unused" if gbyte_per_gpu is not None else ""
            w_basis = f"{job.job_source} (rates file; {why}{unused})"
        rows = [_row("restart_minutes", restart_minutes, job.restart_minutes, "--restart-minutes",
                     job.job_source),
                {"item": "checkpoint_write_seconds", "value": write_seconds, "basis": w_basis,
                 "tag": w_tag}]
        restart = job.restart_minutes if restart_minutes is None else restart_minutes
        return CheckpointTimes(write_seconds, restart, None, None, None, tuple(rows))
    from infra.analysis.network.storage import checkpoint_seconds

    gb = CHECKPOINT_GBYTE_PER_GPU if gbyte_per_gpu is None else gbyte_per_gpu
    total = gb * 1e9 * job_gpus
    write_s = checkpoint_seconds(store, total, job_gpus)
    read_s = checkpoint_seconds(store, total, job_gpus, write=False)
    where = f"{store.name!r} ({store.slug})"
    size = f"{gb:g} GB per GPU x {job_gpus:,} GPUs = {total / 1e12:,.4g} TB"

    def at(write: bool) -> str:
        return (f"{size} at {store.job_gbyte_s(job_gpus, write):,.4g} GB/s "
                f"{'write' if write else 'read'} (bound: {store.binds(job_gpus, write)})")

    if restart_minutes is None:
        restart = job.restart_minutes + read_s / 60.0
        r_row = {"item": "restart_minutes", "value": round(restart, 4),
                 "basis": f"{job.restart_minutes:g} min ({job.job_source}) + {read_s:,.4g} s "
                          f"reading the checkpoint back from storage {where}",
                 "tag": "assumption + storage"}
    else:
        restart = restart_minutes
        r_row = {"item": "restart_minutes", "value": restart,
                 "basis": "--restart-minutes (the whole restart; the storage read-back is "
                          "not added)", "tag": "given"}
    rows = [r_row,
            {"item": "checkpoint_write_seconds", "value": round(write_s, 4),
             "basis": f"{where}: {at(True)}", "tag": "storage"},
            {"item": "checkpoint_read_seconds", "value": round(read_s, 4),
             "basis": f"{where}: {at(False)}", "tag": "storage"},
            {"item": "checkpoint_gigabytes_per_gpu", "value": gb,
             "basis": "--checkpoint-gb-per-gpu" if gbyte_per_gpu is not None
             else CHECKPOINT_SIZE_SOURCE,
             "tag": "given" if gbyte_per_gpu is not None else "assumption"}]
    return CheckpointTimes(write_s, restart, read_s, gb, store.name, tuple(rows))


def _row(item: str, given: float | None, default: float, flag: str, source: str) -> dict:
    if given is not None:
        return {"item": item, "value": given, "basis": flag, "tag": "given"}
    return {"item": item, "value": default, "basis": source, "tag": "assumption"}


def geometry(a: DesignAnalysis) -> Geometry:
    """Scopes of the domain shape holding the most GPUs (mixed designs: the main one)."""
    doms = a.bandwidth.domains
    if not doms:
        raise InfeasibleDesignError("the design has no GPUs: nothing can fail",
                                    file=str(a.rd.file))
    dom = max(doms, key=lambda d: d.gpus * d.count)
    trays = sum(a.rd.tray_counts().values())
    racks = sum(n for ln, n in a.rd.rack_counts.items()
                if a.rd.layouts[ln].count("compute_tray"))
    gpus = a.compute.gpus
    per_tray = gpus // trays
    scope = "rack" if dom.scope == "rack" else "tray"
    return Geometry(gpus, per_tray, gpus // racks, dom.gpus, scope,
                    dom.racks if scope == "rack" else 1)


def _is_split(b: BlastRow) -> bool:
    return b.component_kind == "nvlink_backplane" and b.gpus_lost == 0 and b.domains_broken > 0


def _scope(b: BlastRow, geo: Geometry) -> tuple[str, int]:
    k = b.component_kind
    if k == "gpu":
        return "gpu", 1
    if k in TRAY_KINDS or (k in NVLINK_KINDS and geo.domain_scope == "tray"):
        return "tray", geo.tray
    if _is_split(b):
        return "domain", geo.domain
    if k in NVLINK_KINDS or b.gpus_lost <= geo.rack:
        return "rack", geo.rack
    return "pod", b.gpus_lost


def _interrupts(b: BlastRow, r: FailureRate | None) -> bool:
    if r is not None and not r.takes_hardware_down:
        return True
    path_lost = b.gpus_degraded > 0 and b.degraded_bandwidth_fraction == 0
    return b.gpus_lost > 0 or path_lost or _is_split(b)


def failure_rows(a: DesignAnalysis, rates: RateTable) -> list[FailureRow]:
    """Per blast-radius row and rate kind: events, GPU-hours lost, share of interruptions."""
    geo = geometry(a)
    rows: list[tuple] = []
    for b in a.blast:
        scope, g = _scope(b, geo)
        for r in rates.for_blast_kind(b.component_kind) or [None]:
            rows.append((b, r, scope, g))
    out = []
    total = sum(b.count * r.rate_per_year for b, r, *_ in rows if r and _interrupts(b, r))
    for b, r, scope, g in rows:
        hw = r is None or r.takes_hardware_down
        lost = b.gpus_lost if hw else 0
        down = lost + (b.gpus_degraded if hw and b.degraded_bandwidth_fraction == 0 else 0)
        ev = None if r is None else b.count * r.rate_per_year
        intr = _interrupts(b, r)
        what = b.component if r is None or r.kind == b.component_kind else \
            f"{r.kind} ({b.component})"
        out.append(FailureRow(
            r.kind if r else b.component_kind, what, b.count,
            r.rate_per_year if r else None, r.tag if r else "", lost,
            b.gpus_degraded if hw else 0, b.degraded_bandwidth_fraction if hw else None,
            intr, scope, g, ev, None if ev is None else ev / DAYS_PER_YEAR,
            r.repair_hours if r else None,
            None if ev is None else ev * down * r.repair_hours,
            None if ev is None else (ev / total if intr and total else 0.0),
            "no rate for this kind: add one with --rates" if r is None else
            ("job restart only, no hardware lost" if not hw else b.note)))
    return out


def unmodelled(a: DesignAnalysis, rates: RateTable) -> list[str]:
    """Rate kinds with a non-zero rate that the design has no component of."""
    present = {b.component_kind for b in a.blast}
    return [k for k, r in rates.rates.items() if r.rate_per_year > 0 and r.blast_kind not in present]


def job_count(row: FailureRow, geo: Geometry, job_gpus: int) -> float:
    """Components of ``row`` under a job of ``job_gpus`` GPUs, each shared one once."""
    if row.scope == "domain" and job_gpus <= geo.rack:
        return 0.0  # the cross-rack set does not stop a job inside one rack
    per_scope = row.count * row.scope_gpus / geo.gpus
    return min(float(row.count), math.ceil(job_gpus / row.scope_gpus) * per_scope)


def default_job_gpus(geo: Geometry) -> int:
    """The largest multiple of the domain size that fits the cluster."""
    return geo.gpus // geo.domain * geo.domain


def check_job_gpus(geo: Geometry, job_gpus: int) -> None:
    """Refuse a job that does not fit the cluster (exit 2)."""
    if not 1 <= job_gpus <= geo.gpus:
        raise InfeasibleDesignError(
            f"a job of {job_gpus} GPUs does not fit a cluster of {geo.gpus} GPUs",
            hint=f"use --job-gpus between 1 and {geo.gpus}")


def job_view(rows: list[FailureRow], geo: Geometry, job_gpus: int, checkpoint_write_s: float,
             restart_min: float) -> JobView:
    """Interruptions, MTBI, checkpoint interval and goodput of a job of ``job_gpus``."""
    from infra.analysis.reliability.checkpoint import daly_interval, goodput, young_interval

    check_job_gpus(geo, job_gpus)
    by_kind: dict[str, float] = {}
    for r in rows:
        if r.interrupts and r.rate_per_year:
            per_day = job_count(r, geo, job_gpus) * r.rate_per_year / DAYS_PER_YEAR
            by_kind[r.component_kind] = by_kind.get(r.component_kind, 0.0) + per_day
    lam_day = sum(by_kind.values())
    mtbi = 24.0 / lam_day if lam_day else math.inf
    write_h, restart_h = checkpoint_write_s / 3600.0, restart_min / 60.0
    young = young_interval(write_h, mtbi) if lam_day else math.inf
    daly = daly_interval(write_h, mtbi) if lam_day else math.inf
    gp = goodput(daly, write_h, restart_h, mtbi) if lam_day else 1.0
    return JobView(job_gpus, math.ceil(job_gpus / geo.domain), math.ceil(job_gpus / geo.tray),
                   math.ceil(job_gpus / geo.rack), lam_day, mtbi, checkpoint_write_s,
                   restart_min, young * 60, daly * 60, gp,
                   tuple(sorted(by_kind.items(), key=lambda kv: -kv[1])))


def domain_model(rows: list[FailureRow], geo: Geometry, rates: RateTable) -> DomainModel:
    """The main domain's parts for :mod:`infra.analysis.reliability.availability` (hardware rows that
    interrupt; counts per tray, rack or domain from the rows' scopes)."""
    parts: dict[str, list[Part]] = {"tray": [], "group": [], "split": [], "domain": []}
    for r in rows:
        rate = rates.rates.get(r.component_kind)
        if not (r.interrupts and rate and rate.takes_hardware_down and r.rate_per_year):
            continue
        u = unavailability(r.rate_per_year, r.repair_hours or 0.0)
        if r.scope in ("gpu", "tray"):
            where, count = "tray", r.count * geo.tray / geo.gpus
        elif r.scope == "domain":
            where, count = "split", r.count * geo.domain / geo.gpus
        elif r.scope_gpus >= geo.domain:
            where, count = "domain", r.count * r.scope_gpus / geo.gpus
        else:
            where, count = "group", r.count * geo.rack / geo.gpus
        parts[where].append(Part(r.component, count, u))
    n = geo.domain // geo.groups // geo.tray
    return DomainModel(geo.groups, n, geo.tray, *(tuple(parts[k]) for k in parts))
