"""Failure rates per component kind: a sourced data file, merged with overrides.

A rates file (``catalogs/rates/default.yaml``) holds one row per component kind::

    rates:
      - kind: gpu
        rate_per_year: 0.0809      # job-interrupting events per GPU per year
        repair_hours: 40.4         # how long the GPU is out of service
        tag: DER
        basis: "Llama 3 Table 5 ...: 196 / 2,423.9 GPU-yr"
        sources: [{id: llama3, title: ..., url: ..., tag: 3P}]

Overrides come from a design's ``failure_rates:`` list and from ``--rates FILE``, in
that order (the command line wins). An override row names its ``kind`` and only the
fields it changes, plus ``basis`` (why); a kind absent from the defaults must be given
in full.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, ValidationError

from infra.errors import RatesError, did_you_mean
from infra.models.base import NonNegFloat, Source, Sourced, SourceTag, Strict
from infra.models.catalog import catalog_dir, validation_error
from infra.models.yamlio import line_of, read_yaml

# The blast-radius vocabulary (infra.analysis.reliability.blast_radius) plus kinds the field data
# splits out: hbm (fails inside a GPU) and software (stops a job, breaks no hardware).
BLAST_KINDS = (
    "gpu", "cpu", "superchip", "compute_tray", "nvlink_switch_chip", "nvlink_switch_tray",
    "nvlink_backplane", "nic", "pcie_switch", "tor_switch", "leaf_switch", "spine_switch",
    "power_shelf", "pdu", "cooling_unit", "rack",
)
RATE_KINDS = BLAST_KINDS + ("hbm", "software")
BlastKind = Literal[BLAST_KINDS]  # type: ignore[valid-type]
RateKind = Literal[RATE_KINDS]  # type: ignore[valid-type]


class FailureRate(Sourced):
    """Job-interrupting failure rate of one component kind (events per component-year)."""

    kind: RateKind
    rate_per_year: NonNegFloat
    rate_low_per_year: NonNegFloat | None = None
    rate_high_per_year: NonNegFloat | None = None
    replacement_rate_per_year: NonNegFloat | None = None  # parts swapped, not interruptions
    repair_hours: NonNegFloat  # MTTR: the failed unit's GPUs are out of service this long
    counted_as: BlastKind | None = None  # blast-radius kind giving count and radius
    takes_hardware_down: bool = True  # False: the job restarts, no GPU is lost
    tag: SourceTag
    basis: str

    @property
    def blast_kind(self) -> str:
        return self.counted_as or self.kind


class JobDefaults(Strict):
    restart_minutes: NonNegFloat = 20.0
    checkpoint_write_seconds: NonNegFloat = 60.0
    job_source: str = "assumption"


class RatesFile(Strict):
    description: str | None = None
    job: JobDefaults | None = None
    rates: Annotated[list[dict[str, Any]], Field(min_length=1)]


@dataclass(frozen=True)
class RateTable:
    """Merged rates: kind -> row, the job defaults, and the files they came from."""

    rates: dict[str, FailureRate]
    job: JobDefaults
    files: tuple[str, ...]

    def for_blast_kind(self, kind: str) -> list[FailureRate]:
        """Rate rows counted on blast-radius rows of ``kind`` (gpu -> gpu, hbm, software)."""
        return [r for r in self.rates.values() if r.blast_kind == kind]


def default_rates_path() -> Path:
    return catalog_dir() / "rates" / "default.yaml"


def load_rates(
    path: Path | str | None = None,
    *,
    design_rows: list[dict[str, Any]] | None = None,
    design_file: Path | str | None = None,
    override: Path | str | None = None,
    site_rows: list[dict[str, Any]] | None = None,
    site_source: str = "<site history>",
) -> RateTable:
    """Defaults (``path`` or the catalog's), then a design's rows, then ``site_rows``
    (the site's own posteriors, ``infra failures --rates-db``), then ``override``.

    Raises
    ------
    RatesError
        Missing file, malformed YAML, unknown kind, negative rate, unknown key, or an
        override of a kind the defaults lack that is not complete; the message names the
        file, YAML path and line.
    """
    base = Path(path) if path else default_rates_path()
    merged: dict[str, tuple[dict, Path, tuple]] = {}
    job = JobDefaults()
    files = []
    layers: list[tuple[Path, list, tuple, JobDefaults | None]] = []
    layers.append(_read_file(base))
    if design_rows:
        layers.append((Path(design_file or "<design>"), design_rows, ("failure_rates",), None))
    if site_rows:
        layers.append((Path(site_source), site_rows, ("rates",), None))
    if override:
        layers.append(_read_file(Path(override)))
    for file, rows, prefix, file_job in layers:
        files.append(str(file))
        if file_job is not None:
            job = file_job
        seen: dict[str, int] = {}
        for i, row in enumerate(rows):
            where = prefix + (i,)
            kind = _check_kind(row, file, where)
            if kind in seen:  # one file, one row per kind: a second would silently win
                raise RatesError(
                    f"kind {kind!r} appears twice (rows {seen[kind]} and {i})",
                    file=str(file), path=where + ("kind",), line=line_of(file, where + ("kind",)),
                    hint="merge the two rows into one")
            seen[kind] = i
            old = merged.get(kind, ({}, file, where))[0]
            merged[kind] = ({**old, **row}, file, where)
    rates = {}
    for kind, (row, file, where) in merged.items():
        try:
            rates[kind] = FailureRate.model_validate(row)
        except ValidationError as exc:
            raise validation_error(exc, file, RatesError, where) from None
    return RateTable(rates, job, tuple(files))


def _read_file(file: Path) -> tuple[Path, list, tuple, JobDefaults | None]:
    data = read_yaml(file, RatesError)
    try:
        parsed = RatesFile.model_validate(data)
    except ValidationError as exc:
        raise validation_error(exc, file, RatesError) from None
    return file, parsed.rates, ("rates",), parsed.job


def _check_kind(row: dict, file: Path, where: tuple) -> str:
    kind = row.get("kind")
    if kind not in RATE_KINDS:
        raise RatesError(
            f"unknown component kind {kind!r}" if kind is not None else "missing key 'kind'",
            file=str(file), path=where + ("kind",), line=line_of(file, where + ("kind",)),
            hint=did_you_mean(str(kind), RATE_KINDS) + f"; kinds: {', '.join(RATE_KINDS)}",
        )
    for key in ("rate_per_year", "repair_hours"):
        value = row.get(key)
        if isinstance(value, (int, float)) and value < 0:
            raise RatesError(
                f"{key} is {value}, a rate or time cannot be negative",
                file=str(file), path=where + (key,), line=line_of(file, where + (key,)),
                hint="use 0 for a kind that never interrupts a job",
            )
    return kind


__all__ = ["BLAST_KINDS", "FailureRate", "JobDefaults", "RATE_KINDS", "RateTable",
           "Source", "load_rates"]
