"""Published power envelopes beside the computed figures, with the difference in %.

Rows come from rack types' ``envelopes`` (per rack: maximum, liquid, air), from
compute trays with a published system maximum (the sum of their parts beside it, for
information) and from a design's own ``envelopes`` (per design or per pod instance,
e.g. NVIDIA's 1.2 MW per GB200 scalable unit). A computed figure more than
:data:`WARN_PCT` from its envelope is a warning naming the parts whose figures are
estimates, analyst figures or unknown, largest first.

Examples
--------
>>> round(diff_pct(131.2, 132), 2)
-0.61
"""

from __future__ import annotations

from dataclasses import dataclass

from infra.analysis.power.it_power import DesignPower, RackPower
from infra.analysis.power.power_figures import SOFT_TAGS
from infra.models.resolve import ResolvedDesign

WARN_PCT = 10.0


@dataclass(frozen=True)
class EnvelopeRow:
    scope: str  # "rack:<layout>", "tray:<slug>", "design" or "pod:<name>"
    figure: str  # "it_max" | "liquid" | "air" | "parts_sum"
    label: str
    computed_kw: float
    published_kw: float
    source: str
    tag: str
    responsible: str = ""
    warning: str = ""

    @property
    def diff_pct(self) -> float:
        return diff_pct(self.computed_kw, self.published_kw)


def diff_pct(computed: float, published: float) -> float:
    """(computed - published) / published, in %."""
    return (computed - published) / published * 100.0


def _soft_parts(racks: list[tuple[RackPower, int]], medium: str | None = None, n: int = 5) -> str:
    """The parts with soft figures in these racks (of one heat path when ``medium``), by
    kW contribution (largest first)."""
    kw: dict[str, float] = {}
    for rp, mult in racks:
        for up, cnt in rp.units:
            for p in up.parts or ():
                if p.tag in SOFT_TAGS and up.basis != "published system figure" \
                        and medium in (None, p.medium):
                    kw[p.slug] = kw.get(p.slug, 0.0) + p.total_max_w * cnt * mult / 1000
    top = sorted(kw.items(), key=lambda x: -x[1])[:n]
    return ", ".join(f"{s} ({v:.1f} kW, {_tag_of(racks, s)})" for s, v in top)


def _tag_of(racks, slug: str) -> str:
    for rp, _ in racks:
        for up, _ in rp.units:
            for p in up.parts or ():
                if p.slug == slug:
                    return p.tag
    return "?"


def _row(scope, figure, label, computed, published, src, racks, soft=None) -> EnvelopeRow:
    """One envelope row; ``soft``: a memo of :func:`_soft_parts` for one-rack rows."""
    d = diff_pct(computed, published)
    medium = figure if figure in ("liquid", "air") else None
    if soft is None or len(racks) != 1:
        resp = _soft_parts(racks, medium)
    else:  # layouts that hold the same units (shared unit figures) give the same parts
        (rp, mult), = racks
        key = (tuple((id(u), c) for u, c in rp.units), mult, medium)
        resp = soft.get(key)
        if resp is None:
            resp = soft[key] = _soft_parts(racks, medium)
    warn = ""
    if abs(d) > WARN_PCT:
        warn = (f"{scope}: computed {figure.replace('_', ' ')} {computed:.1f} kW is {d:+.1f} % from "
                f"{label} ({published:g} kW, {src.title} [{src.tag}])"
                + (f"; figures to check: {resp}" if resp else ""))
    return EnvelopeRow(scope, figure, label, round(computed, 3), published, src.title, src.tag,
                       resp, warn)


def design_envelopes(rd: ResolvedDesign, power: DesignPower) -> list[EnvelopeRow]:
    """Every published envelope that applies to the design, beside the computed figure."""
    rows: list[EnvelopeRow] = []
    trays: set[EnvelopeRow] = set()  # each tray type's row once (rows are frozen: hashable)
    soft: dict[tuple, str] = {}  # keyed by unit ids: every rack's units live until we return
    sources: dict[tuple[str, str], object] = {}  # (rack slug, source id) -> its source
    for rp in power.racks:
        rack = rd.layouts[rp.layout].rack
        for e in rack.envelopes:
            src = sources.get((rack.slug, e.source))
            if src is None:  # once per rack type, not per layout
                src = sources[(rack.slug, e.source)] = next(s for s in rack.sources
                                                            if s.id == e.source)
            for fig, pub, comp in (("it_max", e.max_kw, rp.it_kw), ("liquid", e.liquid_kw, rp.liquid_kw),
                                   ("air", e.air_kw, rp.air_kw)):
                if pub:
                    rows.append(_row(f"rack:{rp.layout}", fig, e.label, comp, pub, src, [(rp, 1)],
                                     soft))
        for up, _ in rp.units:
            if up.basis == "published system figure" and up.parts_sum_w and up.kind == "compute_tray":
                tray = rd.part(up.slug)
                src = tray.source_of(tray.power_field)
                what = "estimated maximum" if src.tag == "estimate" else "published maximum"
                row = EnvelopeRow(f"tray:{up.slug}", "parts_sum", f"{tray.name} {what}",
                                  round(up.parts_sum_w / 1000, 3), up.power_w / 1000, src.title,
                                  src.tag, "information: the published system figure is used")
                if row not in trays:
                    trays.add(row)
                    rows.append(row)
    for e in rd.design.envelopes:
        n = rd.pod_counts.get(e.per_pod, 0) if e.per_pod else 1
        if not n:
            continue
        scope = f"pod:{e.per_pod}" if e.per_pod else "design"
        rows.append(_row(scope, "it_max", e.label, power.it_kw / n, e.max_kw, e.source,
                         [(r, r.racks) for r in power.racks]))
    return rows


def envelope_table(rows: list[EnvelopeRow]) -> list[dict]:
    """Rows for the ``power_envelopes`` table (JSON, xlsx, terminal)."""
    return [{"scope": r.scope, "figure": r.figure, "computed_kw": r.computed_kw,
             "published_kw": r.published_kw, "difference_pct": round(r.diff_pct, 1),
             "envelope": r.label, "source": f"{r.source} [{r.tag}]",
             "parts_with_soft_figures": r.responsible, "warning": r.warning} for r in rows]
