"""``infra failures``: one design's failure review, flattened into metrics and tables.

Ties together the fleet view and job view (:mod:`infra.analysis.reliability.failures`) and the
domain availability (:mod:`infra.analysis.reliability.availability`). Reports only format
``as_dict()`` (``design``, ``metrics``, ``tables``), the same contract as ``infra design``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from infra.analysis.reliability.availability import (
    AvailabilityRow, availability_rows, closed_form, spare_domains_needed, spares_needed,
)
from infra.analysis.reliability.failures import (
    DAYS_PER_YEAR, CheckpointTimes, FailureRow, Geometry, JobView, check_job_gpus,
    checkpoint_times, default_job_gpus, domain_model, failure_rows, geometry, job_view,
    unmodelled,
)
from infra.analysis.summary import analyze_file
from infra.models.catalog_types import Catalog
from infra.models.rates import RateTable, load_rates
from infra.units import HOURS_PER_YEAR


@dataclass
class FailureReview:
    name: str
    source_file: str
    rates: RateTable
    geometry: Geometry
    rows: list[FailureRow]
    job: JobView
    availability: list[AvailabilityRow]
    target: float
    spare_trays_per_domain: int | None
    spare_domains: int | None
    unmodelled: list[str]
    checkpoint: CheckpointTimes | None = None  # where the write and restart times come from

    def metrics(self) -> dict[str, Any]:
        intr = [r for r in self.rows if r.interrupts and r.events_per_year]
        lost = sum(r.gpu_hours_lost_per_year or 0.0 for r in self.rows)
        full = self.availability[0] if self.availability else None
        j = self.job
        # the job's own row: the GPUs it places in each of its domains (a 36-GPU job in a
        # 72-GPU domain needs 9 healthy trays of 18, not all 18 that the first row needs)
        share = job_share(j.job_gpus, j.domains)
        mine = next((a for a in self.availability if a.job_gpus_per_domain == share), None)
        return {
            "gpus": self.geometry.gpus,
            "scale_up_domain_gpus": self.geometry.domain,
            "cluster_interruptions_per_day": _r(sum(r.events_per_year for r in intr) / DAYS_PER_YEAR),
            "gpu_hours_lost_per_year": _r(lost, 1),
            "gpu_hours_lost_fraction": _r(lost / (self.geometry.gpus * HOURS_PER_YEAR), 6),
            "job_gpus": j.job_gpus,
            "job_scale_up_domains": j.domains,
            "job_interruptions_per_day": _r(j.interruptions_per_day),
            "job_mtbi_hours": _r(j.mtbi_hours, 2),
            "checkpoint_write_seconds": _r(j.checkpoint_write_seconds),
            "restart_minutes": _r(j.restart_minutes),
            "young_checkpoint_interval_minutes": _r(j.young_interval_minutes, 2),
            "daly_checkpoint_interval_minutes": _r(j.daly_interval_minutes, 2),
            "job_goodput_fraction": _r(j.goodput_fraction),
            "domain_full_availability_fraction": _r(full.closed_form, 6) if full else None,
            "job_share_per_domain_gpus": share,
            "job_all_domains_availability_fraction": _r(mine.job_availability, 6) if mine else None,
            "availability_target_fraction": self.target,
            "spare_trays_per_domain_count": self.spare_trays_per_domain,
            "spare_domains_for_job_count": self.spare_domains,
        }

    def tables(self) -> dict[str, list[dict]]:
        return {
            "failures": [{k: _r(v) if isinstance(v, float) else v for k, v in asdict(r).items()}
                         for r in self.rows],
            "job_interruptions_by_kind": [
                {"component_kind": k, "interruptions_per_day": _r(v, 6),
                 "share_of_job_interruptions": _r(v / self.job.interruptions_per_day)}
                for k, v in self.job.by_kind_per_day],
            "domain_availability": [
                {k: _r(v, 6) if isinstance(v, float) else v for k, v in asdict(a).items()}
                for a in self.availability],
            "not_modelled": [{"component_kind": k, "rate_per_year": self.rates.rates[k].rate_per_year,
                              "why": "no such component in this design"} for k in self.unmodelled],
            "job_assumptions": self.job_assumptions(),
            "failure_rates": [
                {"kind": r.kind, "rate_per_year": r.rate_per_year, "rate_low_per_year": r.rate_low_per_year,
                 "rate_high_per_year": r.rate_high_per_year,
                 "replacement_rate_per_year": r.replacement_rate_per_year,
                 "repair_hours": r.repair_hours, "counted_as": r.blast_kind, "tag": r.tag,
                 "basis": r.basis, "source": r.sources[0].title, "url": r.sources[0].url}
                for r in self.rates.rates.values()],
        }

    def job_assumptions(self) -> list[dict[str, Any]]:
        """Where the checkpoint and restart times behind the goodput come from: given, the
        design's storage, or the rates file
        (:func:`~infra.analysis.reliability.failures.checkpoint_times`)."""
        if self.checkpoint is not None:
            return [dict(r) for r in self.checkpoint.rows]
        j, rates = self.job, self.rates.job
        rows = []
        for item, value, default, flag in (
                ("restart_minutes", j.restart_minutes, rates.restart_minutes,
                 "--restart-minutes"),
                ("checkpoint_write_seconds", j.checkpoint_write_seconds,
                 rates.checkpoint_write_seconds, "--checkpoint-seconds")):
            given = value != default
            rows.append({"item": item, "value": value,
                         "basis": flag if given else rates.job_source,
                         "tag": "given" if given else "assumption"})
        return rows

    def as_dict(self) -> dict[str, Any]:
        return {"design": {"name": self.name, "source_file": self.source_file,
                           "rates_files": [_display(f) for f in self.rates.files]},
                "metrics": self.metrics(), "tables": self.tables()}


def job_share(job_gpus: int, domains: int) -> int:
    """GPUs a job places in each of its domains, spread evenly: ceil(job_gpus / domains).

    >>> job_share(36, 1), job_share(100, 2), job_share(16384, 2048)
    (36, 50, 8)
    """
    return -(-job_gpus // max(domains, 1))


def _display(path) -> str:
    """A path relative to the working directory when it lies below it."""
    from pathlib import Path

    p = Path(path)
    try:
        return str(p.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(p)


def _r(x: float | None, nd: int = 4) -> float | None:
    return None if x is None else round(x, nd)


def review_file(
    path: Path | str,
    *,
    catalog: Catalog | None = None,
    rates_file: Path | str | None = None,
    job_gpus: int | None = None,
    checkpoint_write_seconds: float | None = None,
    restart_minutes: float | None = None,
    checkpoint_gbyte_per_gpu: float | None = None,
    target: float = 0.99,
    samples: int = 400_000,
    seed: int = 0,
    progress=None,
    site_rates: tuple[str, list[dict]] | None = None,
) -> FailureReview:
    """Failure review of design ``path`` (the Python API behind ``infra failures``).

    Rates: ``catalogs/rates/default.yaml``, then the design's ``failure_rates``, then
    ``site_rates`` (a label and rows in the rates-file schema: the site's own posteriors
    from :func:`infra.history.rates`), then ``rates_file``. ``job_gpus`` defaults to the
    largest multiple of the domain size that fits. Checkpoint write and restart times:
    given; else, where the design declares storage that all the job's GPUs reach, a
    checkpoint of ``checkpoint_gbyte_per_gpu`` (default 4 GB) per GPU written at the
    storage's bound and read back on each restart; else the rates file's ``job``
    (:func:`~infra.analysis.reliability.failures.checkpoint_times`).
    """
    a = analyze_file(path, catalog)
    rates = load_rates(design_rows=a.rd.design.failure_rates, design_file=a.rd.file,
                       override=rates_file, site_rows=site_rates[1] if site_rates else None,
                       site_source=site_rates[0] if site_rates else "<site history>")
    geo = geometry(a)
    rows = failure_rows(a, rates)
    n = job_gpus or default_job_gpus(geo)
    check_job_gpus(geo, n)  # before the storage is asked about a job that cannot run
    ck = checkpoint_times(a, rates, n, checkpoint_write_seconds, restart_minutes,
                          checkpoint_gbyte_per_gpu)
    job = job_view(rows, geo, n, ck.write_seconds, ck.restart_minutes)
    model = domain_model(rows, geo, rates)
    share = job_share(job.job_gpus, job.domains)
    avail = availability_rows(model, job.domains, samples, seed, progress, job_share=share)
    p_dom = closed_form(model, share)  # a spare domain stands in for one holding the job's share
    return FailureReview(a.rd.name, _display(a.rd.file), rates, geo, rows, job, avail, target,
                         spares_needed(model, target), spare_domains_needed(p_dom, job.domains, target),
                         unmodelled(a, rates), ck)
