"""``infra history rates``: the site's own failure rates, from exposure and events.

Exposure (component-years) comes from the placements: each part counts from its install
(or the window's start) to its removal (or the window's end, by default the last time a
capture was seen). Kinds and where their exposure comes from:

- gpu, hbm, software: the GPUs the dumps list (a missing GPU adds nothing);
- compute_tray: the hosts; cpu, superchip, pcie_switch, nic and the rack-level kinds
  (nvlink_switch_tray, power_shelf, pdu, cooling_unit, tor_switch, rack): the hosts
  times the per-host count the design gives (``parts`` of a host; rack-level parts as a
  share: an NVL72 rack's 9 switch trays over its 18 compute trays is 0.5 a host);
- leaf, spine and ToR switches: the fabric's switches, their kind from their name;
- nic without a design: the adapters the dumps list.

Events: ``failure`` and ``interruption`` rows count as failures (one row per incident:
the catalog's rates are job-interrupting events); ``rma`` and ``replaced`` rows as
replacements; ``repaired`` is kept for the record only.

Posterior (Gamma-Poisson, conjugate): prior Gamma(a0, b0) with mean a0 / b0 = the
catalog's published rate r0. Its strength a0 is what the catalog's own interval says
(the shape whose central 95 % interval spans the published high / low), capped at
``prior_events`` (default 10): the published figures come from another fleet (Llama 3's
early-life H100), so they count for at most 10 events' worth here; a rate without an
interval, or a placeholder (tag assumption or estimate: its interval is a guess, not
evidence), gets a0 = 1. With n events over T component-years the posterior is
Gamma(a0 + n, b0 + T): mean (a0 + n) / (b0 + T), and a 90 % credible interval from its
5 % and 95 % quantiles.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field

from sqlalchemy import func, select

from infra.history.db import HistoryError, iso
from infra.history.gamma import gamma_ppf, shape_for_ratio
from infra.history.schema import events, placements, snapshots
from infra.units import HOURS_PER_YEAR

SECONDS_PER_YEAR = HOURS_PER_YEAR * 3600  # 8,760 h: the convention of the catalog's rates
DEFAULT_PRIOR_EVENTS = 10.0
CREDIBLE = 0.90
FAILURE_EVENTS = ("failure", "interruption")
REPLACEMENT_EVENTS = ("rma", "replaced")
GPU_KINDS = ("gpu", "hbm", "software")
UNITS = {"gpu": "GPU", "hbm": "GPU", "software": "GPU", "compute_tray": "tray"}


@dataclass(frozen=True)
class Posterior:
    prior_rate: float
    prior_shape: float
    events: int
    exposure_years: float

    @property
    def shape(self) -> float:
        return self.prior_shape + self.events

    @property
    def rate_param(self) -> float:
        return self.prior_shape / self.prior_rate + self.exposure_years

    @property
    def mean(self) -> float:
        return self.shape / self.rate_param

    def interval(self, q: float = CREDIBLE) -> tuple[float, float]:
        t = (1 - q) / 2
        return (gamma_ppf(t, self.shape, self.rate_param),
                gamma_ppf(1 - t, self.shape, self.rate_param))


def prior_shape(rate, cap: float = DEFAULT_PRIOR_EVENTS) -> float:
    """How many events' worth the catalog's rate ``rate`` (a FailureRate) is, capped.

    Only a measured rate's interval is evidence: a placeholder (tag ``assumption`` or
    ``estimate``) counts as one event, its mean and nothing more."""
    lo, hi = rate.rate_low_per_year, rate.rate_high_per_year
    measured = rate.tag not in ("assumption", "estimate")
    a = shape_for_ratio(hi / lo) if measured and lo and hi and hi > lo else 1.0
    return min(a, cap)


def posterior(prior_rate: float, a0: float, events_n: int, exposure_years: float) -> Posterior:
    """Gamma-Poisson update of a prior with mean ``prior_rate`` and shape ``a0``."""
    if prior_rate <= 0 or a0 <= 0:
        raise ValueError("a prior needs a positive rate and shape")
    return Posterior(prior_rate, a0, events_n, exposure_years)


@dataclass
class SiteRates:
    since_ts: int
    until_ts: int
    rows: list[dict] = field(default_factory=list)
    prior_events: float = DEFAULT_PRIOR_EVENTS
    rates_files: tuple[str, ...] = ()
    prior_sources: dict[str, list[dict]] = field(default_factory=dict, repr=False)

    def as_dict(self) -> dict:
        return {"since": iso(self.since_ts), "until": iso(self.until_ts),
                "credible_interval": CREDIBLE, "prior_events_cap": self.prior_events,
                "prior_files": list(self.rates_files), "rates": self.rows}

    def override_rows(self, source: str) -> list[dict]:
        """Rows in the rates-file schema for ``infra failures --rates-db``: the posterior
        of every kind with exposure (catalog values kept for the rest)."""
        out = []
        for r in self.rows:
            if r["posterior_rate_per_year"] is None:
                continue
            out.append({
                "kind": r["kind"], "rate_per_year": r["posterior_rate_per_year"],
                "rate_low_per_year": r["posterior_low_per_year"],
                "rate_high_per_year": r["posterior_high_per_year"], "tag": "DER",
                "basis": (f"site history {iso(self.since_ts)}..{iso(self.until_ts)}: "
                          f"{r['events']} events over {r['exposure_years']:,.1f} "
                          f"{r['unit']}-years; Gamma-Poisson posterior mean, 90 % interval; "
                          f"prior {r['prior_rate_per_year']:g}/yr worth "
                          f"{r['prior_events']:.1f} events"),
                # the site's figures first; the catalog's sources stay (they are the
                # prior, and its other figures, e.g. repair hours, still cite them)
                "sources": [{"id": "site-history", "title": f"infra history rates ({source})",
                             "tag": "DER"}] + self.prior_sources.get(r["kind"], [])})
        return out


def _window(conn, since_ts, until_ts) -> tuple[int, int]:
    first, last = conn.execute(select(func.min(snapshots.c.taken_ts),
                                      func.max(snapshots.c.seen_until_ts))).one()
    if first is None:
        raise HistoryError("no snapshot recorded: no exposure to divide the events by",
                           hint="record the fleet first: infra history record INVENTORY --design D")
    start = first if since_ts is None else max(first, since_ts)
    end = last if until_ts is None else min(last, until_ts)
    if end <= start:
        raise HistoryError(f"empty window {iso(start)}..{iso(end)}: the snapshots cover "
                           f"{iso(first)}..{iso(last)}",
                           hint="pick --since before the last capture, or record a later one")
    return start, end


def exposure(conn, start: int, end: int) -> tuple[dict[str, float], dict[str, str]]:
    """Component-years per rate kind in [start, end), and the unit each is counted in."""
    p = placements.c
    lo = func.max if conn.dialect.name == "sqlite" else func.greatest
    hi = func.min if conn.dialect.name == "sqlite" else func.least
    span = hi(func.coalesce(p.until_ts, end), end) - lo(p.since_ts, start)
    overlap = [p.since_ts < end, func.coalesce(p.until_ts, end + 1) > start]
    secs: dict[str, float] = defaultdict(float)
    units: dict[str, str] = {}
    for kind, total in conn.execute(select(p.kind, func.sum(span)).where(*overlap,
                                    p.kind.in_(("gpu", "nic"))).group_by(p.kind)):
        secs[f"tracked_{kind}"] = float(total or 0)
    design_nic = 0.0
    for attrs, s, u in conn.execute(select(p.attrs, p.since_ts, p.until_ts)
                                    .where(*overlap, p.kind == "host")):
        dur = min(u if u is not None else end, end) - max(s, start)
        secs["compute_tray"] += dur
        for k, n in (json.loads(attrs).get("parts") or {}).items():
            if k != "gpu":
                secs[k] += dur * n
                design_nic += dur * n if k == "nic" else 0
    for attrs, s, u in conn.execute(select(p.attrs, p.since_ts, p.until_ts)
                                    .where(*overlap, p.kind == "switch")):
        role = json.loads(attrs).get("role", "leaf_switch")
        secs[role] += min(u if u is not None else end, end) - max(s, start)
    out = {k: v / SECONDS_PER_YEAR for k, v in secs.items() if not k.startswith("tracked_")}
    for k in GPU_KINDS:
        out[k] = secs.get("tracked_gpu", 0.0) / SECONDS_PER_YEAR
    if not design_nic and secs.get("tracked_nic"):
        out["nic"] = secs["tracked_nic"] / SECONDS_PER_YEAR
        units["nic"] = "adapter (as dumped)"
    return out, units


def site_rates(conn, *, since_ts=None, until_ts=None, rates_file=None,
               prior_events: float = DEFAULT_PRIOR_EVENTS) -> SiteRates:
    """Exposure, events and the posterior of every rate kind (see the module docstring)."""
    from infra.models.rates import load_rates

    if prior_events <= 0:
        raise HistoryError("--prior-events must be positive", hint="10 is the default")
    start, end = _window(conn, since_ts, until_ts)
    expo, units = exposure(conn, start, end)
    e = events.c
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for comp, ev, n in conn.execute(select(e.component, e.event, func.count())
                                    .where(e.ts >= start, e.ts <= end)
                                    .group_by(e.component, e.event)):
        counts[(comp, ev)] += n
    table = load_rates(override=rates_file)
    res = SiteRates(start, end, prior_events=prior_events, rates_files=table.files,
                    prior_sources={k: [src.model_dump(exclude_none=True) for src in r.sources
                                       if src.id != "site-history"]
                                   for k, r in table.rates.items()})
    kinds = list(table.rates) + sorted({c for c, _ in counts} - set(table.rates))
    for kind in kinds:
        prior = table.rates.get(kind)
        n = sum(counts.get((kind, ev), 0) for ev in FAILURE_EVENTS)
        repl = sum(counts.get((kind, ev), 0) for ev in REPLACEMENT_EVENTS)
        t = expo.get(kind, 0.0)
        if t <= 0 and not n and not repl:
            continue
        row = {"kind": kind, "unit": units.get(kind, UNITS.get(kind, kind.replace("_", " "))),
               "events": n, "exposure_years": round(t, 3),
               "site_rate_per_year": round(n / t, 6) if t > 0 else None,
               "prior_rate_per_year": prior.rate_per_year if prior else None,
               "prior_events": None, "posterior_rate_per_year": None,
               "posterior_low_per_year": None, "posterior_high_per_year": None,
               "posterior_vs_prior": None, "prior_share_of_mean": None, "replacements": repl,
               "replacement_rate_per_year": round(repl / t, 6) if t > 0 else None, "note": ""}
        if t <= 0:
            row["note"] = "no exposure recorded for this kind (no such part in the snapshots)"
        elif prior is None or prior.rate_per_year <= 0:
            row["note"] = ("the catalog rate is 0 by construction (its events count under "
                           "another kind): site rate only" if prior else "no catalog prior")
        else:
            a0 = prior_shape(prior, prior_events)
            post = posterior(prior.rate_per_year, a0, n, t)
            low, high = post.interval()
            row.update({"prior_events": round(a0, 2),
                        "posterior_rate_per_year": round(post.mean, 6),
                        "posterior_low_per_year": round(low, 6),
                        "posterior_high_per_year": round(high, 6),
                        "posterior_vs_prior": round(post.mean / prior.rate_per_year, 3)})
            # the posterior mean is w r0 + (1 - w) n / T with w = b0 / (b0 + T)
            row["prior_share_of_mean"] = round((post.rate_param - t) / post.rate_param, 4)
        res.rows.append(row)
    return res
