"""``infra``: cluster hardware inventory and AI-datacenter design toolkit.

The Python API (:mod:`infra.api`) is exposed here lazily, so ``import infra`` stays
fast: ``infra.analyze``, ``infra.load_design``, ``infra.compare``, ``infra.failures``,
``infra.sweep``, ``infra.diff_designs``, ``infra.export``, ``infra.collectives``,
``infra.train``, ``infra.synthesize``, ``infra.frame``.
"""

from __future__ import annotations

__version__ = "0.1.0"

_API = ("Comparison", "CostAssumptions", "DesignAnalysis", "FailureReview", "ResolvedDesign",
        "SweepResult", "analyze", "collectives", "compare", "diff_designs", "export",
        "failures", "frame", "synthesize", "train",
        "load_catalog", "load_design", "sweep")


def __getattr__(name: str):
    if name in _API:
        from infra import api

        return getattr(api, name)
    raise AttributeError(f"module 'infra' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(list(globals()) + list(_API))
