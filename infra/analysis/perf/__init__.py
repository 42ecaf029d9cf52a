"""Performance models of a resolved design: collective communication (NCCL/RCCL).

:func:`collectives` predicts bus bandwidth, algorithm bandwidth and time of all-reduce,
all-gather, reduce-scatter, all-to-all and broadcast for jobs placed on the design
(:mod:`.inputs` reads the design, :mod:`.algorithms` holds the formulas,
:mod:`.collectives` chooses as NCCL does). Efficiency factors and latencies live in the
catalog (``catalogs/collectives``), each with its source.
"""

from infra.analysis.perf.collectives import CollectiveRow, collectives, key_figures, predict

__all__ = ["CollectiveRow", "collectives", "key_figures", "predict"]
