"""The power figures of one catalog part: maximum, typical, how sure, and overrides.

A part's maximum is its ``tdp_w`` (chips) or ``max_power_w`` (everything else); its
typical draw is ``typical_w`` where published, else the maximum (conservative). A
design's ``power_overrides`` replace both for a part type. A part whose power a
larger part's published figure already includes (``power_covered_by``) adds 0 W on
purpose; a part with no figure is *unknown* and carries its ``power_bound_w``.

Examples
--------
>>> from infra.models.catalog import load_catalog
>>> cat = load_catalog()
>>> f = part_figure(cat.get("nvidia-mms4x00-ns"), cat)
>>> f.max_w, f.typical_w, f.tag
(17.0, 16.0, 'D')
"""

from __future__ import annotations

from dataclasses import dataclass

from infra.models.parts import Part, Superchip

#: tags whose figure is not a vendor document's (the parts named when an envelope is off)
SOFT_TAGS = ("estimate", "AN", "assumption", "3P", "unknown", "override")


@dataclass(frozen=True)
class PartFigure:
    """Power of one part: None = unknown (then ``bound_w`` may bound it)."""

    max_w: float | None
    typical_w: float | None
    tag: str  # source tag of the maximum; "override", "covered" or "unknown"
    bound_w: float | None = None
    note: str = ""

    @property
    def unknown(self) -> bool:
        return self.max_w is None


def overrides_of(design) -> dict:
    """slug -> the design's PowerOverride for it."""
    return {o.type: o for o in getattr(design, "power_overrides", [])}


def check_overrides(rd) -> None:
    """Each ``power_overrides`` row names a catalog part and gives a figure."""
    from infra.errors import LOCATE, DesignError, did_you_mean

    seen: set[str] = set()
    for i, o in enumerate(rd.design.power_overrides):
        path = ("power_overrides", i)
        where = dict(file=str(rd.file), path=path, line=LOCATE)
        if o.type not in rd.catalog:
            raise DesignError(f"power override for unknown part type {o.type!r}", **where,
                              hint=did_you_mean(o.type, [e.slug for e in rd.catalog]))
        if o.max_w is None and o.typical_w is None:
            raise DesignError(f"power override for {o.type!r} gives no figure", **where,
                              hint="set max_w (and typical_w if known)")
        if o.max_w is not None and o.typical_w is not None and o.typical_w > o.max_w:
            raise DesignError(f"power override for {o.type!r}: typical_w {o.typical_w:g} W is "
                              f"above max_w {o.max_w:g} W", **where, hint="swap or fix the figures")
        if o.type in seen:
            raise DesignError(f"two power overrides for {o.type!r}", **where,
                              hint="keep one row per part type")
        seen.add(o.type)


def part_figure(part: Part, parts, overrides: dict | None = None) -> PartFigure:
    """Maximum and typical power of one part (see the module notes); ``parts`` looks up
    a superchip's chips (``parts.get(slug)``: the resolved design, or the catalog)."""
    o = (overrides or {}).get(part.slug)
    if o is not None and (o.max_w or o.typical_w):
        mx = o.max_w or o.typical_w
        return PartFigure(mx, o.typical_w or mx, "override", note=o.source)
    covered = getattr(part, "power_covered_by", None)
    if covered:
        return PartFigure(0.0, 0.0, "covered", note=f"included in {covered}")
    if isinstance(part, Superchip) and part.tdp_w is None:
        cpu, gpu = parts.get(part.cpu.type), parts.get(part.gpus.type)
        fc, fg = part_figure(cpu, parts, overrides), part_figure(gpu, parts, overrides)
        if fc.unknown or fg.unknown:
            return PartFigure(None, None, "unknown", getattr(part, "power_bound_w", None))
        n_c, n_g = part.cpu.count, part.gpus.count
        return PartFigure(n_c * fc.max_w + n_g * fg.max_w,
                          n_c * fc.typical_w + n_g * fg.typical_w, "DER",
                          note=f"sum of {n_c} x {cpu.slug} and {n_g} x {gpu.slug}")
    mx = part.power_w
    if mx is None:
        return PartFigure(None, None, "unknown", getattr(part, "power_bound_w", None))
    return PartFigure(mx, part.typical_power_w, part.source_of(part.power_field).tag)
