"""Design *instances*: racks laid out from catalog types, grouped into repeated pods.

A design never copies a catalog figure; it names types by slug and says how many::

    racks:                       # rack layouts: a rack type and what is mounted in it
      nvl36:
        type: aws-nvl36-rack
        contents:
          - {type: aws-gb200-compute-tray, count: 9}
    pods:                        # repeated blocks of racks (and of other pods)
      ultraserver:
        racks: {nvl36: 2}
        scale_up: {racks_per_domain: 2}
    build: {ultraserver: 1}      # how many of each pod or rack layout the cluster has
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from infra.models.base import Count, PerRackCount, PosFloat, PositiveCount, Slug, Source, Strict
from infra.models.fabric import FabricSpec
from infra.models.systems import Redundancy

Name = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", max_length=64)]


class RackContent(Strict):
    type: Slug
    count: PerRackCount = 1
    role: str | None = None  # e.g. tor, management; free text shown in reports
    cooling: Literal["liquid", "air"] | None = None  # heat path of a non-tray unit


class RackLayout(Strict):
    type: Slug  # a catalog rack
    contents: list[RackContent]
    # How the rack's power shelves / PDUs back each other up: N+1 (one spare unit),
    # N+N (half the units on feed A, half on feed B). None: not stated (installed sum).
    power_redundancy: Redundancy | None = None


class ScaleUp(Strict):
    """How NVLink domains are formed from the pod's racks."""

    racks_per_domain: PositiveCount = 1
    cross_rack_cable: Slug | None = None  # the cable set joining the racks' switch trays


class PodCooling(Strict):
    """An in-row or room cooling unit shared by the pod's racks."""

    type: Slug
    count: PositiveCount | None = None  # None: sized by the cooling analysis


class Pod(Strict):
    racks: dict[Name, PositiveCount] = {}
    pods: dict[Name, PositiveCount] = {}
    scale_up: ScaleUp | None = None
    cooling: list[PodCooling] = []


class Assumptions(Strict):
    pue: Annotated[float, Field(ge=1.0, le=3.0)] = 1.3
    pue_source: str = "assumed"
    # Air heat per rack above which a warning is given (None: the default, see cooling.py).
    air_heat_limit_kw_per_rack: PosFloat | None = None
    nvlink_partition_mode: Literal["full_bandwidth", "adaptive_bandwidth"] = "full_bandwidth"
    notes: list[str] = []


class PowerOverride(Strict):
    """A design's own figure for a part type (e.g. a vendor quote), used instead of the
    catalog's and listed under Assumptions."""

    type: Slug
    max_w: PosFloat | None = None
    typical_w: PosFloat | None = None
    source: str  # where the figure comes from (quote, measurement, ...)


class DesignEnvelope(Strict):
    """A published power envelope for the design, or for each instance of one pod
    (``per_pod``), compared with the computed IT power (e.g. NVIDIA's 1.2 MW per SU)."""

    label: str
    max_kw: PosFloat
    per_pod: Name | None = None
    source: Source


class Design(Strict):
    name: str
    description: str | None = None
    assumptions: Assumptions = Assumptions()
    racks: dict[Name, RackLayout]
    pods: dict[Name, Pod] = {}
    fabrics: dict[Name, FabricSpec] = {}
    build: Annotated[dict[Name, PositiveCount], Field(min_length=1)]
    # Overrides of catalogs/rates/default.yaml for `infra failures` (checked there):
    # rows of {kind, and the fields changed, e.g. rate_per_year, repair_hours, basis}.
    failure_rates: list[dict[str, Any]] = []
    power_overrides: list[PowerOverride] = []
    envelopes: list[DesignEnvelope] = []


__all__ = ["Assumptions", "Count", "Design", "DesignEnvelope", "Pod", "PowerOverride", "PodCooling", "PosFloat", "RackContent",
           "RackLayout", "ScaleUp"]
