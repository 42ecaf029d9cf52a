"""Base model for every catalog and design object: unknown keys are errors, frozen."""

from __future__ import annotations

import types
import typing
from typing import Annotated, Literal

import annotated_types as at
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator
from pydantic import Strict as _StrictType

from infra.models.field_docs import field_description

# Numeric domains (issue 18). Every number read from a file is finite (no inf/NaN, also
# not as the strings "inf" or "1e999"), is a real number (no booleans: `count: yes`
# is an error) and has a physical upper bound that the JSON Schema states. Counts are
# exact integers (no 4.0). The bounds are far above any real part, so they only catch
# typos and absurd inputs; they keep every figure the analyses compute finite.
MAX_COUNT = 10**12  # any one count in a file
# The largest design supported, in GPUs (issue 31, D9: 3.2 x 10^10 passed): the site
# envelope's bound of 10 GW (PHYSICAL_MAX, _kw) powers about 10^7 GPUs at ~1 kW each
# with cooling; 10^8 leaves ten times that, and is several times every data-centre GPU
# shipped to date. A larger design is a count multiplied once too often.
MAX_GPUS = 10**8
MAX_PER_RACK = 1_000  # units of one type in one rack layout (a 60U rack of 0U PDUs...)
MAX_PER_PART = 1_000  # parts of one type inside one catalog part (the largest ships 16)

Slug = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]*[a-z0-9]$", max_length=80)]
Count = Annotated[int, _StrictType(), Field(ge=0, le=MAX_COUNT)]
PositiveCount = Annotated[int, _StrictType(), Field(ge=1, le=MAX_COUNT)]
PerRackCount = Annotated[int, _StrictType(), Field(ge=1, le=MAX_PER_RACK)]
PerPartCount = Annotated[int, _StrictType(), Field(ge=1, le=MAX_PER_PART)]
NonNegFloat = Annotated[float, _StrictType(), Field(ge=0)]
PosFloat = Annotated[float, _StrictType(), Field(gt=0)]
Probability = Annotated[float, _StrictType(), Field(ge=0, le=1)]
PcieGen = Annotated[int, _StrictType(), Field(ge=1, le=6)]


def _not_bool(v: object) -> object:
    if isinstance(v, bool):  # True == 1: a Literal of numbers would take it
        raise ValueError("a number is needed, not a boolean (true/false/yes/no)")
    return v


Lanes = Annotated[Literal[1, 2, 4, 8, 16, 32, 48, 64, 80, 96, 128, 144],
                  BeforeValidator(_not_bool)]

# How sure a figure is (legend of hardware-facts.md §0), plus 'assumption' for a value
# this project chose where no public figure exists (stated in the entry's notes) and
# 'estimate' for a figure derived by a stated method (the source title gives the method)
# where no vendor publishes one.
SourceTag = Literal["D", "V", "A", "3P", "AN", "DER", "assumption", "estimate"]


# Upper bounds by field name (units are in the names, see style.md): the first match
# wins. A field with its own upper bound keeps it.
PHYSICAL_MAX: tuple[tuple[str, str, float, str], ...] = (
    # (how the name matches: "in" / "end" / "start" / "is", key, bound, why)
    ("in", "fraction", 1.0, "a fraction"),
    ("is", "u_height", 60, "no rack is taller than 60U"),
    ("end", "_kg", 10_000.0, "no rack, loaded or not, weighs 10 t"),
    ("end", "_ghz", 10.0, "no CPU clocks above 10 GHz"),
    ("end", "_tbyte_s", 1_000.0, "1 PB/s per device"),
    ("end", "_gbyte_s", 100_000.0, "100 TB/s per link or device"),
    ("end", "gbit_s", 100_000.0, "100 Tb/s per port"),
    ("end", "_gb", 1_000_000.0, "1 PB of memory per device"),
    ("end", "_gib", 1_000_000.0, "1 PiB of memory per device"),
    ("end", "_kw", 10_000_000.0,
     "10 GW: a whole site's envelope; the largest campuses being built are 1-5 GW"),
    ("end", "_w", 100_000.0, "no single part draws 100 kW"),
    ("end", "_m", 1_000_000.0, "1,000 km"),
    ("end", "usd", 1e12, "a trillion dollars per item"),
    ("end", "_per_year", 10_000.0, "about one event an hour"),
    ("end", "_hours", 100_000.0, "11 years"),
    ("end", "_minutes", 1_000_000.0, "2 years"),
    ("end", "_seconds", 10_000_000.0, "4 months"),
    ("end", "_tflops", 1e7, "10 EFLOPS per device"),
    ("start", "fp", 1e7, "10 EFLOPS per device (TFLOPS)"),
    ("is", "tf32", 1e7, "10 EFLOPS per device (TFLOPS)"),
    ("is", "bf16", 1e7, "10 EFLOPS per device (TFLOPS)"),
    ("is", "int8", 1e7, "10 EFLOPS per device (TFLOPS)"),
)

# Lower bounds by field name, where a tiny positive value is as absurd as a huge one and
# would overflow a figure (a 1e-308 Gb/s port breaks out into 1e311 ports).
PHYSICAL_MIN: tuple[tuple[str, str, float, str], ...] = (
    ("end", "gbit_s", 1.0, "1 Gb/s: the slowest Ethernet a cluster uses (management)"),
)

_MATCH = {"in": lambda n, k: k in n, "end": str.endswith, "start": str.startswith,
          "is": str.__eq__}


def _numeric(annotation: object) -> type | None:
    """``int`` or ``float`` if the annotation is one (possibly optional), else None."""
    if annotation in (int, float):
        return annotation  # type: ignore[return-value]
    origin = typing.get_origin(annotation)
    if origin is Annotated:
        return _numeric(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        found = {_numeric(a) for a in typing.get_args(annotation) if a is not type(None)}
        return found.pop() if len(found) == 1 else None
    return None


def physical_bound(name: str, kind: type) -> tuple[float, str] | None:
    """The upper bound applied to a numeric field ``name`` (see :data:`PHYSICAL_MAX`).

    Examples
    --------
    >>> physical_bound("tdp_w", float)
    (100000.0, 'no single part draws 100 kW')
    >>> physical_bound("ports", int)
    (1000000000000, 'a count')
    """
    for how, key, bound, why in PHYSICAL_MAX:
        if _MATCH[how](name, key):
            return bound, why
    if kind is int:
        return MAX_COUNT, "a count"
    return None


def physical_minimum(name: str) -> tuple[float, str] | None:
    """The lower bound applied to a numeric field ``name`` (see :data:`PHYSICAL_MIN`).

    >>> physical_minimum("port_gbit_s")
    (1.0, '1 Gb/s: the slowest Ethernet a cluster uses (management)')
    """
    for how, key, bound, why in PHYSICAL_MIN:
        if _MATCH[how](name, key):
            return bound, why
    return None


def _has_minimum(metadata: list, low: float) -> bool:
    return any(isinstance(m, at.Ge) and m.ge >= low or isinstance(m, at.Gt) and m.gt >= low
               for m in metadata)


def _bounded(metadata: list) -> bool:
    return any(isinstance(m, (at.Le, at.Lt)) for m in metadata) or any(
        isinstance(m, at.Interval) and (m.le is not None or m.lt is not None) for m in metadata)


WEIGHT_DOC = ("Weight of the unit as installed, in kg without packaging (the vendor's figure; "
              "None: not published, named as missing in rack weights).")


class Strict(BaseModel):
    """Forbids unknown keys (a typo is an error, not silently ignored) and mutation.

    Numbers are finite and strict (no booleans, no strings, no 4.0 for a count), and
    each numeric field gets the physical upper bound of :func:`physical_bound`.
    """

    # defer_build: a model's validator is built on first use, once, with the metadata
    # added below; a run that reads the catalog from its cache never builds the parts'.
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True,
                              allow_inf_nan=False, defer_build=True)

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        changed = False
        for name, info in cls.model_fields.items():
            kind = _numeric(info.annotation)
            if kind is None:
                continue
            if not any(isinstance(m, _StrictType) for m in info.metadata):
                info.metadata.append(_StrictType())
                changed = True
            bound = physical_bound(name, kind)
            if bound is not None and not _bounded(info.metadata):
                info.metadata.append(at.Le(bound[0]))
                changed = True
            low = physical_minimum(name)
            if low is not None and not _has_minimum(info.metadata, low[0]):
                info.metadata.append(at.Ge(low[0]))
                changed = True
        for name, info in cls.model_fields.items():
            if not info.description:
                doc = field_description(cls.__name__, name, info.default)
                if doc:
                    info.description = doc
                    changed = True
        if changed and cls.__pydantic_complete__:  # built already (defer_build turned off)
            cls.model_rebuild(force=True)


class Source(Strict):
    """A public document a figure comes from."""

    id: str = Field(description="Short id that figure_sources and envelopes refer to.")
    title: str = Field(description="The document's title (for an estimate: the method).")
    url: str | None = Field(None, description="The document's address (not a homepage).")
    tag: SourceTag = Field(description="How sure: D, V, A, 3P, AN, DER, assumption or estimate.")

    @model_validator(mode="after")
    def _url_needed(self):  # noqa: ANN202
        if self.url is None and self.tag not in ("assumption", "DER", "estimate"):
            raise ValueError(f"source {self.id!r} ({self.tag}) needs a url")
        return self


class Sourced(Strict):
    """Mixin for catalog entries: every figure traces to a source.

    ``sources[0]`` covers every figure not named in ``figure_sources`` (dotted field
    name -> source id). ``choices`` records, per field, which value was chosen where
    sources disagree and why.
    """

    sources: Annotated[list[Source], Field(min_length=1)] = Field(
        description="Documents the figures come from; the first covers every figure not in figure_sources.")
    figure_sources: dict[str, str] = Field(
        {}, description="Dotted field name -> id of the source of that figure.")
    choices: dict[str, str] = Field(
        {}, description="Field -> which value was chosen where sources disagree, and why.")
    notes: str | None = Field(None, description="Free notes on the entry.")

    @model_validator(mode="after")
    def _check_figure_sources(self):  # noqa: ANN202 - pydantic hook
        ids = [s.id for s in self.sources]
        if len(set(ids)) != len(ids):
            raise ValueError(f"duplicate source ids in sources: {ids}")
        for field, sid in self.figure_sources.items():
            if sid not in ids:
                raise ValueError(
                    f"figure_sources.{field} names source {sid!r}, not among sources {ids}"
                )
            if _lookup(self, field) is _MISSING:
                raise ValueError(f"figure_sources names {field!r}, which is not a field here")
        return self

    def source_of(self, field: str) -> Source:
        """The source of one figure (its own, or the entry's first source)."""
        sid = self.figure_sources.get(field)
        if sid is None:
            sid = self.figure_sources.get(field.split(".")[0].split("[")[0])
        for s in self.sources:
            if s.id == sid:
                return s
        return self.sources[0]


_MISSING = object()


def _lookup(obj: object, dotted: str) -> object:
    for part in dotted.split("."):
        if isinstance(obj, BaseModel):
            if part not in type(obj).model_fields:
                return _MISSING
            obj = getattr(obj, part)
        elif isinstance(obj, dict):
            obj = obj.get(part, _MISSING)
        else:
            return _MISSING
    return obj


def numeric_figures(model: BaseModel, prefix: str = "") -> list[tuple[str, float]]:
    """All numeric figures set on ``model`` as (dotted field, value), for Sources sheets."""
    out: list[tuple[str, float]] = []
    for name in type(model).model_fields:
        value = getattr(model, name)
        key = f"{prefix}{name}"
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, (int, float)):
            out.append((key, float(value)))
        elif isinstance(value, BaseModel) and not isinstance(value, Source):
            out.extend(numeric_figures(value, key + "."))
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, BaseModel) and not isinstance(item, Source):
                    label = getattr(item, "name", None) or getattr(item, "id", None) or i
                    out.extend(numeric_figures(item, f"{key}[{label}]."))
    return out
