"""Base model for every catalog and design object: unknown keys are errors, frozen."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Slug = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]*[a-z0-9]$", max_length=80)]
Count = Annotated[int, Field(ge=0)]
PositiveCount = Annotated[int, Field(ge=1)]
NonNegFloat = Annotated[float, Field(ge=0)]
PosFloat = Annotated[float, Field(gt=0)]
PcieGen = Annotated[int, Field(ge=1, le=6)]
Lanes = Literal[1, 2, 4, 8, 16, 32, 48, 64, 80, 96, 128, 144]

# How sure a figure is (legend of hardware-facts.md §0), plus 'assumption' for a value
# this project chose where no public figure exists (stated in the entry's notes) and
# 'estimate' for a figure derived by a stated method (the source title gives the method)
# where no vendor publishes one.
SourceTag = Literal["D", "V", "A", "3P", "AN", "DER", "assumption", "estimate"]


class Strict(BaseModel):
    """Forbids unknown keys (a typo is an error, not silently ignored) and mutation."""

    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)


class Source(Strict):
    """A public document a figure comes from."""

    id: str
    title: str
    url: str | None = None
    tag: SourceTag

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

    sources: Annotated[list[Source], Field(min_length=1)]
    figure_sources: dict[str, str] = {}
    choices: dict[str, str] = {}
    notes: str | None = None

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
