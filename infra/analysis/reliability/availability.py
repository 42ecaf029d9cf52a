"""Availability of one scale-up domain for a job that needs k of its GPUs, and spares.

Model (steady state, independent units, exponential up and repair times)
------------------------------------------------------------------------
- A unit with failure rate lambda (per hour) and repair time r (hours) is down with
  probability u = lambda r / (1 + lambda r) (availability A = MTBF / (MTBF + MTTR)).
- The domain is G groups (racks) of n compute trays of t GPUs. The tray is the unit that
  is scheduled and replaced: any failure inside it (GPU, HBM, CPU, host parts, a NIC or
  PCIe switch whose loss stops a GPU) takes the whole tray out until repaired. This is
  conservative for a parked GPU in NVIDIA's full-bandwidth mode (3 of 4 GPUs could run).
- Group parts (per rack: NVLink switch trays, cable cartridge, rack power, in-rack CDU)
  take their rack's GPUs out of any partition; split parts (the cross-rack NVLink cable
  set) leave each rack as its own partition; domain parts (a pod's in-row heat
  exchanger, or a rack holding a tray-sized domain) take the whole domain out.
  Which part is which comes from the blast-radius rows (GPUs lost, domains broken).
- A job needing k GPUs needs m = ceil(k / t) healthy trays in ONE partition. Partitions:
  all racks together when every group part and the split parts are up; otherwise each
  healthy rack alone.

Closed form: with a = P(tray up), q_j = P(Binomial(j n, a) >= m),
P = A_dom [A_split A_grp^G q_G + sum_{j=0..G} C(G,j) A_grp^j (1-A_grp)^(G-j)
(1 - (1 - q_1)^j) - A_split A_grp^G (1 - (1 - q_1)^G)].
The Monte Carlo samples every unit's state independently (vectorised numpy) and applies
the partition rule directly; it checks the combinatorics, not the independence
assumption. Repair crews are unlimited (no queueing for repairs).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from infra.units import HOURS_PER_YEAR

Z99 = 2.5758293035489004  # two-sided 99 % normal quantile
MAX_SAMPLED_TRAYS = 100_000_000  # samples x trays per domain: ~1 GB of numpy arrays


@dataclass(frozen=True)
class Part:
    name: str
    count: float  # per tray, per group or per domain (fractional: shared with others)
    down: float  # steady-state probability that one such unit is down


@dataclass(frozen=True)
class DomainModel:
    groups: int
    trays_per_group: int
    gpus_per_tray: int
    tray_parts: tuple[Part, ...] = ()
    group_parts: tuple[Part, ...] = ()
    split_parts: tuple[Part, ...] = ()
    domain_parts: tuple[Part, ...] = ()

    @property
    def gpus(self) -> int:
        return self.groups * self.trays_per_group * self.gpus_per_tray


@dataclass(frozen=True)
class AvailabilityRow:
    job_gpus_per_domain: int
    spare_trays: int
    closed_form: float
    monte_carlo: float
    mc_ci_low: float
    mc_ci_high: float
    agrees: bool
    job_availability: float  # closed form ** domains of the job


def unavailability(rate_per_year: float, repair_hours: float) -> float:
    """u = lambda r / (1 + lambda r), lambda in events per hour.

    Examples
    --------
    >>> round(unavailability(8760 / 99, 1.0), 6)  # lambda = 1/99 per h, r = 1 h -> 1/100
    0.01
    """
    x = rate_per_year / HOURS_PER_YEAR * repair_hours
    return x / (1.0 + x)


def _up(parts: tuple[Part, ...]) -> float:
    """P(every unit up) for ONE domain: a shared unit (fractional count) counts whole.

    A rack shared by 4 one-server domains has count 1/4 per domain, but each of those
    domains is down whenever the rack is: raising (1 - u) to 1/4 made the domain look
    more available than it is (and disagree with the Monte Carlo, which samples the
    whole unit).
    """
    return math.prod((1.0 - p.down) ** math.ceil(p.count) for p in parts)


def _log_pmf(n: int, i: int, log_a: float, log_b: float) -> float:
    return (math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1)
            + (i * log_a if i else 0.0) + ((n - i) * log_b if n - i else 0.0))


def _tail(n: int, a: float, m: int) -> float:
    """P(Binomial(n, a) >= m), summed in log space (no overflow for large n).

    Examples
    --------
    >>> round(_tail(4, 0.9, 3), 6)  # 0.9^4 + 4 x 0.9^3 x 0.1
    0.9477
    >>> 0.0 < _tail(5000, 0.999, 4990) < 1.0  # C(5000, 2500) ~ 1e1503 as a float overflows
    True
    """
    if m <= 0:
        return 1.0
    if m > n:
        return 0.0
    if a >= 1.0:
        return 1.0
    if a <= 0.0:
        return 0.0
    log_a, log_b = math.log(a), math.log1p(-a)
    return min(1.0, math.fsum(math.exp(_log_pmf(n, i, log_a, log_b)) for i in range(m, n + 1)))


def _binom_pmf(n: int, i: int, a: float) -> float:
    if a >= 1.0:
        return 1.0 if i == n else 0.0
    if a <= 0.0:
        return 1.0 if i == 0 else 0.0
    return math.exp(_log_pmf(n, i, math.log(a), math.log1p(-a)))


def job_availability(model: DomainModel, job_gpus: int, domains: int) -> float:
    """P(all ``domains`` domains of a job can host ``job_gpus`` GPUs each).

    Domain parts shared by several domains (a rack of four one-server domains) are
    counted once per unit: (1 - u)^(count x domains), count being units per domain;
    everything else is independent per domain. Computed in log space (no underflow
    error, no overflow, at any number of domains).

    Examples
    --------
    Four one-tray domains share one rack (count 1/4, down 0.01); trays down 0.1:
    0.9^4 x 0.99 (the rack once), not (0.9 x 0.99)^4.

    >>> m = DomainModel(1, 1, 8, tray_parts=(Part("tray", 1, 0.1),),
    ...                 domain_parts=(Part("rack", 0.25, 0.01),))
    >>> round(job_availability(m, 8, 4), 6) == round(0.9**4 * 0.99, 6)
    True
    """
    domains = max(domains, 1)
    own = DomainModel(model.groups, model.trays_per_group, model.gpus_per_tray,
                      model.tray_parts, model.group_parts, model.split_parts, ())
    p = closed_form(own, job_gpus)
    if p <= 0.0:
        return 0.0
    log_p = domains * math.log(p)
    for part in model.domain_parts:
        if part.down >= 1.0:
            return 0.0
        units = math.ceil(part.count * domains - 1e-9)  # distinct shared units under the job
        log_p += units * math.log1p(-part.down)
    return math.exp(log_p) if log_p > -745.0 else 0.0


def closed_form(model: DomainModel, job_gpus: int) -> float:
    """Probability that the domain can host a job of ``job_gpus`` GPUs (closed form).

    Examples
    --------
    A single rack of 2 trays, each up with probability 0.9, nothing shared:
    hosting 1 tray's GPUs needs >= 1 of 2 up: 1 - 0.1^2 = 0.99.

    >>> m = DomainModel(1, 2, 4, tray_parts=(Part("tray", 1, 0.1),))
    >>> round(closed_form(m, 4), 6)
    0.99
    """
    G, n = model.groups, model.trays_per_group
    m = math.ceil(job_gpus / model.gpus_per_tray)
    a = _up(model.tray_parts)
    a_grp, a_split, a_dom = _up(model.group_parts), _up(model.split_parts), _up(model.domain_parts)
    one = _tail(n, a, m)
    alone = sum(_binom_pmf(G, j, a_grp) * (1 - (1 - one) ** j) for j in range(G + 1))
    if G == 1:
        return a_dom * alone
    joined = a_split * a_grp**G
    return a_dom * (joined * _tail(G * n, a, m) + alone - joined * (1 - (1 - one) ** G))


def monte_carlo(model: DomainModel, job_gpus: int, samples: int = 400_000,
                seed: int = 0) -> tuple[float, float, float]:
    """Sampled probability of hosting ``job_gpus`` and its 99 % interval (vectorised).

    Every unit is sampled: per tray (and per shared group), "every unit of every part
    up" is one Bernoulli draw of probability prod (1 - down)^count over the parts, the
    same event as Binomial(count, down) == 0 for each part (fractional counts of shared
    parts are rounded up, which is exact for the counts that occur: 1 shared unit per
    domain).
    """
    G, n, t = model.groups, model.trays_per_group, model.gpus_per_tray
    if samples * G * n > MAX_SAMPLED_TRAYS:
        from infra.errors import InfraError

        raise InfraError(f"{samples:,} samples x {G * n:,} trays per domain is over the "
                         f"{MAX_SAMPLED_TRAYS:,} tray states one Monte Carlo run may hold",
                         hint=f"use --samples {max(1000, MAX_SAMPLED_TRAYS // (G * n)):,} or fewer")
    rng = np.random.default_rng(seed)

    def sample(parts: tuple[Part, ...], shape: tuple[int, ...]) -> np.ndarray:
        # "no unit of any part down" is one Bernoulli draw with P = prod (1 - down)^count
        # (independent units), taken in log space: one uniform array instead of one
        # binomial array per part, 6-10x faster and the same distribution
        log_up = sum(math.ceil(p.count) * math.log1p(-p.down) if p.down < 1 else -math.inf
                     for p in parts)
        return rng.random(size=shape) < math.exp(log_up)

    trays_up = sample(model.tray_parts, (samples, G, n)).sum(axis=2)  # (S, G)
    grp_up = sample(model.group_parts, (samples, G))
    split_up = sample(model.split_parts, (samples,))
    dom_up = sample(model.domain_parts, (samples,))
    healthy = trays_up * grp_up
    joined = np.where(split_up & grp_up.all(axis=1), healthy.sum(axis=1), 0)
    capacity = np.maximum(joined, healthy.max(axis=1)) * t
    ok = dom_up & (capacity >= job_gpus)
    p = float(ok.mean())
    half = Z99 * math.sqrt(max(p * (1 - p), 1e-300) / samples)
    if p in (0.0, 1.0):  # rule of three for an all-or-nothing sample
        half = 3.0 / samples
    return p, max(0.0, p - half), min(1.0, p + half)


def availability_sizes(model: DomainModel, job_share: int | None = None) -> list[int]:
    """Job sizes per domain that :func:`availability_rows` evaluates (one Monte Carlo each);
    ``job_share`` (a job's GPUs per domain) is added when it is not already one of them."""
    t, n = model.gpus_per_tray, model.trays_per_group
    sizes = [model.gpus - s * t for s in (0, 1, 2) if model.gpus - s * t > 0]
    if model.groups > 1:
        sizes += [n * t, n * t - t]
    if job_share is not None and 0 < job_share <= model.gpus:
        sizes.append(job_share)
    return list(dict.fromkeys(sizes))


def availability_rows(model: DomainModel, domains_in_job: int, samples: int = 400_000,
                      seed: int = 0, progress=None,
                      job_share: int | None = None) -> list[AvailabilityRow]:
    """Full domain, one and two spare trays, (multi-rack domains) one rack's worth, and
    ``job_share`` (the GPUs a job places in each of its domains) when it is none of those.
    ``progress(1)`` is called after each Monte Carlo row (for a progress bar)."""
    t = model.gpus_per_tray
    rows = []
    for k in availability_sizes(model, job_share):
        cf = closed_form(model, k)
        p, lo, hi = monte_carlo(model, k, samples, seed)
        rows.append(AvailabilityRow(k, (model.gpus - k) // t, cf, p, lo, hi, lo <= cf <= hi,
                                    job_availability(model, k, domains_in_job)))
        if progress:
            progress(1)
    return rows


def spares_needed(model: DomainModel, target: float, domains: int = 1) -> int | None:
    """Fewest spare trays per domain so that ``domains`` domains all host their share.

    A job uses (n G - s) trays of each of ``domains`` domains; returns the smallest s
    with :func:`job_availability` >= target, or None when the shared parts alone cap the
    availability below the target (spares cannot help against them).

    Examples
    --------
    Trays up with probability 0.9, 4 per domain, target 0.99: s = 0 gives 0.9^4 = 0.656;
    s = 1: P(>= 3 of 4) = 0.9^4 + 4 x 0.9^3 x 0.1 = 0.9477; s = 2: 0.9963.

    >>> spares_needed(DomainModel(1, 4, 1, tray_parts=(Part("tray", 1, 0.1),)), 0.99)
    2
    """
    total = model.groups * model.trays_per_group
    for s in range(total):
        if job_availability(model, (total - s) * model.gpus_per_tray, domains) >= target:
            return s
    return None


def spare_domains_needed(p_domain: float, domains: int, target: float) -> int | None:
    """Fewest spare domains so that ``domains`` of the pool can host their share.

    P(at least D of D + s domains up) = P(Binomial(D + s, 1 - p) <= s) >= target.
    Treats domains as independent: racks shared by several small domains (4 servers
    per rack) make this slightly optimistic. None if 1 000 spares do not reach it.

    Examples
    --------
    One domain up with probability 0.9: s = 1 gives 1 - 0.1^2 = 0.99 >= 0.99.

    >>> spare_domains_needed(0.9, 1, 0.99)
    1
    """
    q = 1.0 - p_domain
    if q <= 0.0:
        return 0
    for s in range(1001):
        n = domains + s
        log_q, log_p = math.log(q), math.log(p_domain) if p_domain > 0 else -math.inf
        ok = sum(math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1)
                          + i * log_q + (n - i) * log_p) for i in range(s + 1))
        if ok >= target:
            return s
    return None
