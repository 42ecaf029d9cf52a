"""Checkpoint interval and goodput of a job under Poisson interruptions (Young, Daly).

Symbols (all in hours): ``mtbi`` M = mean time between interruptions of the job,
``write`` delta = time to write one checkpoint (the job is stopped meanwhile),
``restart`` R = time from an interruption until the job computes again.

References
----------
J. W. Young, "A first order approximation to the optimum checkpoint interval",
CACM 17(9), 1974. J. T. Daly, "A higher order estimate of the optimum checkpoint
interval for restart dumps", FGCS 22(3), 2006, doi:10.1016/j.future.2004.11.016.
"""

from __future__ import annotations

import math


def young_interval(write: float, mtbi: float) -> float:
    """Young's optimum compute time between checkpoints: sqrt(2 delta M) (hours).

    Examples
    --------
    >>> round(young_interval(1.0, 50.0), 6)  # sqrt(2 x 1 x 50) = 10
    10.0
    """
    return math.sqrt(2.0 * write * mtbi)


def daly_interval(write: float, mtbi: float) -> float:
    """Daly's higher-order optimum (hours).

    tau = sqrt(2 delta M) [1 + (1/3) sqrt(delta/2M) + (1/9) (delta/2M)] - delta for
    delta < 2M, else M. Reproduces Daly's Fig. 3-5 captions (R = 10 min, delta = 5 min):
    M = 24 h -> 117 min, M = 6 h -> 57 min, M = 15 min -> 9.1 min.

    Examples
    --------
    >>> round(daly_interval(5 / 60, 24.0) * 60)
    117
    """
    if write >= 2.0 * mtbi:
        return mtbi
    x = write / (2.0 * mtbi)
    return math.sqrt(2.0 * write * mtbi) * (1.0 + math.sqrt(x) / 3.0 + x / 9.0) - write


def goodput(interval: float, write: float, restart: float, mtbi: float) -> float:
    """Expected share of wall time spent on preserved work (0..1).

    Daly's complete model with exponential failures that may also strike during a write
    or a restart: wall time per compute segment = M e^(R/M) (e^((tau + delta)/M) - 1),
    so goodput = tau / [M e^(R/M) (e^((tau + delta)/M) - 1)]. For tau, delta, R << M it
    tends to 1 - delta/tau - (tau/2 + R)/M (first order). ``mtbi`` = inf gives
    tau / (tau + delta). A checkpoint that costs nothing (delta = 0) is taken all the time
    (Daly's tau = 0): the limit tau -> 0, e^(-R/M), the share of time not restarting.

    Examples
    --------
    >>> round(goodput(1.0, 0.0, 0.0, 1e9), 6)  # nothing fails, nothing written
    1.0
    >>> goodput(1.0, 1e308, 1e308, 1e-3)  # restarts that never end: no goodput, no overflow
    0.0
    >>> round(goodput(0.0, 0.0, 1.0, 10.0), 6)  # free checkpoints: e^(-1/10)
    0.904837
    """
    if interval <= 0:
        if write == 0 and 0 < mtbi and not math.isinf(mtbi):
            return math.exp(-restart / mtbi)
        return 0.0 if write > 0 or mtbi <= 0 else 1.0
    if math.isinf(mtbi):
        return interval / (interval + write)
    if mtbi <= 0:
        return 0.0
    # log space: wall = M e^(R/M) (e^((tau + delta)/M) - 1) overflows for R, tau >> M
    x = (interval + write) / mtbi
    log_expm1 = math.log(math.expm1(x)) if x < 30.0 else x + math.log1p(-math.exp(-x))
    log_goodput = math.log(interval) - math.log(mtbi) - restart / mtbi - log_expm1
    return math.exp(log_goodput) if log_goodput > -745.0 else 0.0
