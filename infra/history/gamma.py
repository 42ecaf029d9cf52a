"""The Gamma distribution's CDF and quantiles, for Gamma-Poisson failure-rate posteriors.

No SciPy: the regularized lower incomplete gamma function P(a, x) by its series
(x < a + 1) or its continued fraction (Lentz), as in Numerical Recipes §6.2, to about
1e-14; quantiles by bisection on P. Rate parameterisation: Gamma(shape a, rate b) has
mean a / b; its quantile is the unit-rate quantile divided by b.

Examples
--------
>>> round(gamma_cdf(2.0, 2.0), 6)  # shape 2: 1 - e^-2 (1 + 2)
0.593994
>>> round(gamma_ppf(0.5, 1.0), 6)  # exponential median: ln 2
0.693147
"""

from __future__ import annotations

import math

EPS = 1e-15
ITMAX = 10_000


def gamma_cdf(x: float, a: float) -> float:
    """P(a, x): probability that a unit-rate Gamma(shape ``a``) variable is <= ``x``."""
    if x <= 0:
        return 0.0
    if a <= 0:
        raise ValueError("shape must be positive")
    lead = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:  # series
        term = total = 1.0 / a
        ap = a
        for _ in range(ITMAX):
            ap += 1
            term *= x / ap
            total += term
            if abs(term) < abs(total) * EPS:
                break
        return min(1.0, total * math.exp(lead))
    tiny = 1e-300  # continued fraction for Q = 1 - P (modified Lentz)
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, ITMAX):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        step = d * c
        h *= step
        if abs(step - 1) < EPS:
            break
    return max(0.0, 1.0 - math.exp(lead) * h)


def gamma_ppf(q: float, a: float, rate: float = 1.0) -> float:
    """The ``q`` quantile of Gamma(shape ``a``, rate ``rate``)."""
    if not 0 < q < 1:
        raise ValueError("q must be in (0, 1)")
    lo, hi = 0.0, max(1.0, a)
    while gamma_cdf(hi, a) < q:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if gamma_cdf(mid, a) < q:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-13 * hi:
            break
    return (lo + hi) / 2 / rate


def shape_for_ratio(ratio: float, q: float = 0.95) -> float:
    """The shape whose central ``q`` interval spans high/low = ``ratio`` (how many
    events' worth of evidence a published interval is); bisection on log(shape)."""
    if ratio <= 1:
        raise ValueError("high must exceed low")
    tail = (1 - q) / 2

    def spread(a: float) -> float:
        return gamma_ppf(1 - tail, a) / gamma_ppf(tail, a)

    lo, hi = math.log(1e-3), math.log(1e6)
    for _ in range(80):
        mid = (lo + hi) / 2
        if spread(math.exp(mid)) > ratio:  # spread falls as the shape grows
            lo = mid
        else:
            hi = mid
    return math.exp((lo + hi) / 2)
