"""The Python API: every ``infra`` command as a function for notebooks and scripts.

``import infra`` exposes these lazily (nothing heavy is imported until first use)::

    import infra
    a = infra.analyze("designs/aws_nvl36x2.yaml")     # DesignAnalysis
    a.metrics()["gpus"]                                 # 72
    infra.frame(a.tables()["bill_of_materials"])        # a pandas DataFrame
    c = infra.compare("designs/aws_nvl36x2.yaml", "designs/gb200_nvl72.yaml")
    r = infra.failures("designs/dgx_h100_su.yaml")      # FailureReview
    s = infra.sweep("designs/gb200_nvl72_576.yaml", "sweeps/nvl72_nic_oversub.yaml")
    s.frame()                                           # one row per scenario
    infra.export("designs/gb200_nvl72_576.yaml", "slurm", output="out/")  # topology.conf ...

Examples
--------
>>> import infra
>>> a = infra.analyze("designs/aws_nvl36x2.yaml")
>>> a.metrics()["gpus"], a.metrics()["scale_up_domain_gpus"]
(72, 72)
>>> df = infra.frame(a.tables()["bill_of_materials"])
>>> int(df.loc[df["kind"] == "gpu", "count"].sum())
72
>>> sorted(f.path for f in infra.export("designs/aws_nvl36x2.yaml", "slurm").files)[:2]
['slurm/topology.block.conf', 'slurm/topology.yaml']
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from infra.analysis.summary import DesignAnalysis, analyze_file
from infra.analysis.summary import analyze as _analyze
from infra.analysis.cost.tco import CostAssumptions
from infra.models.catalog import Catalog, load_catalog
from infra.models.prices import load_prices
from infra.models.resolve import ResolvedDesign, load_design

if TYPE_CHECKING:
    from infra.analysis.cost.compare import Comparison
    from infra.analysis.reliability.failure_review import FailureReview
    from infra.sweeps import SweepResult

__all__ = ["Comparison", "CostAssumptions", "DesignAnalysis", "FailureReview",
           "ResolvedDesign", "SweepResult", "analyze", "collectives", "compare", "diff_designs",
           "synthesize", "train",
           "export", "failures", "frame", "load_catalog", "load_design", "sweep"]

# Imported on first use: ``infra.analyze`` needs neither the comparison nor the failure
# review nor sweeps (which bring numpy and multiprocessing).
_LAZY = {"Comparison": "infra.analysis.cost.compare",
         "FailureReview": "infra.analysis.reliability.failure_review",
         "SweepResult": "infra.sweeps", "diff_designs": "infra.sweeps", "sweep": "infra.sweeps"}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(list(globals()) + list(_LAZY))


def analyze(design: ResolvedDesign | Path | str, catalog: Catalog | None = None) -> DesignAnalysis:
    """Run every design analysis (what ``infra design`` prints and reports).

    Parameters
    ----------
    design : ResolvedDesign or path
        A design file, or one already loaded with :func:`load_design`.
    catalog : Catalog, optional
        Default: the shipped catalog (or ``$INFRA_CATALOG``).

    Returns
    -------
    DesignAnalysis
        ``.metrics()`` (flat figures, unit in each name), ``.tables()`` (name -> rows),
        ``.as_dict()`` (the JSON report's contract).
    """
    if isinstance(design, ResolvedDesign):
        return _analyze(design)
    return analyze_file(design, catalog)


def compare(*keys: str, prices: tuple[Path | str, ...] = (), catalog: Catalog | None = None,
            assumptions: CostAssumptions | None = None, target=None) -> Comparison:
    """Compare GPU slugs, compute-tray slugs and design files (``infra compare``).

    Parameters
    ----------
    *keys : str
        Options, as on the command line.
    prices : paths, optional
        Price files (default ``catalogs/prices``).
    assumptions : CostAssumptions, optional
        Energy price, PUE override, years, maintenance, precision.
    target : Target, optional
        Size every option to a capacity (:func:`infra.analysis.cost.target.parse_target`).

    Returns
    -------
    Comparison
        ``.rows()`` (one per metric), ``.as_dict()``.
    """
    from infra.analysis.cost.compare import compare as _compare

    cat = catalog or load_catalog()
    return _compare(list(keys), load_prices(list(prices) or None, catalog=cat), cat,
                    assumptions, target)


def failures(design: Path | str, **options: Any) -> FailureReview:
    """Failure review of a design file (``infra failures``); options as for
    :func:`infra.analysis.reliability.failure_review.review_file` (``rates_file``, ``job_gpus``,
    ``samples``, ``seed``, ...)."""
    from infra.analysis.reliability.failure_review import review_file

    return review_file(design, **options)


def export(design: ResolvedDesign | Path | str, to: str, output: Path | str | None = None,
           catalog: Catalog | None = None, **options: Any):
    """Export a design (``infra export``): ``to`` is ``slurm | nccl | k8s | netbox |
    graphml | cabling``; options as for :func:`infra.exports.export_design` (``pattern``,
    ``scope``, ``geometry``).

    Returns
    -------
    Export
        ``.files`` (path and text of each file) and ``.warnings``; written under
        ``output`` (atomically) when it is given.
    """
    from infra.exports import export_design
    from infra.exports.common import write_export

    rd = design if isinstance(design, ResolvedDesign) else load_design(design, catalog)
    ex = export_design(rd, to, **options)
    if output is not None:
        write_export(ex, output)
    return ex


def collectives(design: ResolvedDesign | Path | str, ops=None, gpus=(), sizes=None,
                algorithms=None, partition: int | None = None, catalog: Catalog | None = None,
                collective_models: tuple[Path | str, ...] = ()):
    """Predicted collective performance (``infra collectives``).

    Parameters
    ----------
    design : ResolvedDesign or path
    ops : op names, default all (all_reduce, all_gather, reduce_scatter, all_to_all,
        broadcast)
    gpus : job sizes in GPUs, default 8 / one domain / two domains / the whole design
    sizes : message sizes in bytes (nccl-tests' size), default 1 MiB to 16 GiB in powers of 4
    algorithms : restrict NCCL's choice, e.g. ``{"Ring", "Tree"}`` (as ``NCCL_ALGO``)
    partition : GPUs per NVLink partition when domains are split (NVL72 run as NVL8s)
    collective_models : paths of ``collective_model`` entries (a site's calibration, as
        ``infra diff --calibrate`` writes ``<slug>.calibrated.yaml``), each replacing the
        catalog entry of its slug (``--collective-model``)

    Returns
    -------
    list of CollectiveRow
        ``op, gpus, nodes, size_bytes, algorithm, protocol, busbw_gbyte_s,
        algbw_gbyte_s, time_s, bottleneck, placement`` (``.as_dict()`` for each).

    Examples
    --------
    >>> import infra
    >>> r = infra.collectives("designs/dgx_h100_su.yaml", ops=["all_reduce"], gpus=[8],
    ...                       sizes=[8 * 2**30])[0]
    >>> r.algorithm, round(r.busbw_gbyte_s)
    ('NVLS', 481)
    """
    from infra.analysis.perf.algorithms import OPS
    from infra.analysis.perf.collectives import DEFAULT_SIZES
    from infra.analysis.perf.collectives import collectives as _collectives

    if collective_models:
        from infra.models.catalog import with_overrides

        if isinstance(collective_models, (str, Path)):
            collective_models = (collective_models,)
        base = catalog or (design.catalog if isinstance(design, ResolvedDesign) else None)
        catalog, _ = with_overrides(base or load_catalog(), collective_models,
                                    "collective_model")
        if isinstance(design, ResolvedDesign):  # the model is looked up when predicting
            from dataclasses import replace

            design = replace(design, catalog=catalog)
    rd = design if isinstance(design, ResolvedDesign) else load_design(design, catalog)
    return _collectives(rd, ops or OPS, gpus or (), sizes or DEFAULT_SIZES, algorithms,
                        partition)


def train(design: ResolvedDesign | Path | str, model: str, tokens: float,
          gpus: int | None = None, precision: str = "bf16", parallelism: str | dict | None = None,
          batch_tokens: int | None = None, sequence_length: int | None = None,
          framework="megatron-lm", catalog: Catalog | None = None):
    """Time, energy and cost to train ``model`` on ``tokens`` (``infra train``).

    Parameters
    ----------
    design : ResolvedDesign or path
    model : a ``model`` catalog slug (``catalogs/models``), e.g. ``"llama-3-70b"``
    tokens : training tokens
    gpus : job size (default: the design's GPUs in whole scale-up domains)
    precision : ``"bf16"`` or ``"fp8"``
    parallelism : ``"tp=8,pp=16"`` or a dict; the keys not given are chosen
    batch_tokens, sequence_length : override the model entry's
    framework : a ``training_framework`` slug (``catalogs/training``) or such an entry

    Returns
    -------
    TrainingRun
        ``.as_dict()``: ``mfu_fraction``, ``tokens_per_s``, ``step_time_s``, ``days``,
        ``gpu_hours``, ``facility_energy_mwh``, ``goodput_fraction``, ``parallelism``,
        ``breakdown``...

    Examples
    --------
    >>> import infra
    >>> r = infra.train("designs/dgx_h100_su.yaml", "llama-3-8b", 1e12)
    >>> r.gpus, r.step.parallelism.tp <= 8
    (256, True)
    """
    from infra.analysis.perf.training import parse_parallelism
    from infra.analysis.perf.training_run import train as _train

    rd = design if isinstance(design, ResolvedDesign) else load_design(design, catalog)
    cat = rd.catalog
    arch = cat.get(model, "model")
    if sequence_length:
        arch = arch.model_copy(update={"sequence_length": sequence_length})
    fw = (cat.get(framework, "training_framework") if isinstance(framework, str)
          else framework)
    given = parallelism if isinstance(parallelism, dict) else parse_parallelism(parallelism)
    return _train(_analyze(rd), arch, tokens, fw, gpus=gpus, precision=precision, given=given,
                  batch_tokens=batch_tokens)


def synthesize(power_mw: float, capex_usd: float | None = None, gpus: int | None = None,
               train: str | None = None, tokens: float | None = None, days: float | None = None,
               skus=(), cooling: str | None = None, objectives: str | None = None,
               families=(), catalog: Catalog | None = None, workers: int = 1,
               dask: bool = False, scheduler: str | None = None,
               oversubscriptions=(1.0, 2.0), every_count: bool = False,
               rail_only: bool = True):
    """Candidate designs within a budget and their Pareto front (``infra synthesize``).

    Parameters
    ----------
    power_mw : facility power budget
    capex_usd : capex budget (candidates whose capex is unknown are then rejected)
    gpus : at least this many GPUs
    train, tokens, days : a training target (model slug, tokens, at most days)
    skus : only families of these GPUs; cooling : ``"liquid"`` or ``"air"``
    families : only these families (shipped design stems, e.g. ``"dgx_h100_su"``)
    objectives : e.g. ``"days:min,capex:min"``
    workers, dask, scheduler : the sweep executors that run the candidates' analyses
    oversubscriptions : first fabric tier's down : up ratios tried in every family
    every_count : try each block count (default: every count to 8, then about 1.4x apart)
    rail_only : also try each rail-optimized fabric rail-only (a switch a rail, no spine)

    Returns
    -------
    SynthesisResult
        ``.front_rows()``, ``.rejected`` (family and the bound or check that rejected it),
        ``.as_dict()``.

    Examples
    --------
    >>> import infra
    >>> r = infra.synthesize(power_mw=1.0, skus=["h100"])
    >>> sorted({row["family"] for row in r.front_rows()})
    ['dgx_h100_su', 'hgx_h100_liquid_512']
    """
    from infra.synthesis import Budget
    from infra.synthesis import synthesize as _synthesize

    return _synthesize(Budget(power_mw, capex_usd, gpus, train, tokens, days), skus=tuple(skus),
                       cooling=cooling, objectives=objectives, only=tuple(families),
                       catalog=catalog, workers=workers, dask=dask, scheduler=scheduler,
                       oversubscriptions=tuple(oversubscriptions), every_count=every_count,
                       rail_only=rail_only)


def frame(rows: list[dict[str, Any]]):
    """A table (list of row dicts, as ``tables()`` and ``rows()`` return) as a pandas
    DataFrame, columns in row order."""
    import pandas as pd

    return pd.DataFrame(rows).convert_dtypes()
