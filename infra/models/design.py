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
from infra.models.fabric import FabricSpec, StorageSpec
from infra.models.systems import Redundancy

Name = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", max_length=64)]


class RackContent(Strict):
    type: Slug = Field(description="Slug of the catalog part mounted (tray, switch, power shelf, PDU, CDU...).")
    count: PerRackCount = Field(1, description="How many of this part the rack holds (1 to 1,000).")
    role: str | None = Field(None, description="Free text shown in reports, e.g. tor, management.")
    cooling: Literal["liquid", "air"] | None = Field(
        None, description="Heat path of a unit that is not a compute tray (trays state it per component).")


class RackLayout(Strict):
    type: Slug = Field(description="Slug of a catalog rack (kind: rack).")
    contents: list[RackContent] = Field(description="What is mounted in the rack, top to bottom; must fit its U height.")
    # How the rack's power shelves / PDUs back each other up: N+1 (one spare unit),
    # N+N (half the units on feed A, half on feed B). None: not stated (installed sum).
    power_redundancy: Redundancy | None = Field(
        None, description="How the rack's power shelves or PDUs back each other up: N, N+1, N+2 (spare units) or "
        "N+N (half on feed A, half on feed B). Unset: the installed sum is used.")


class ScaleUp(Strict):
    """How NVLink domains are formed from the pod's racks."""

    racks_per_domain: PositiveCount = Field(
        1, description="Consecutive racks of the pod joined into one NVLink domain (1: each rack its own; "
        "2: NVL36x2). Must divide the pod's racks. Racks holding only NVLink switch trays are a second "
        "tier, shared evenly over the domains (DGX GH200).")
    cross_rack_cable: Slug | None = Field(
        None, description="Catalog cable set joining the racks' NVLink switch trays (counted in the BOM).")
    torus: list[PositiveCount] | None = Field(
        None, description="Switchless ring or torus domain: chips per dimension, wrap-around in each "
        "(TPU v5p pod [16, 20, 28]; Trn2 UltraServer [4, 4, 4]). One instance of the pod is one domain; "
        "its chips (ring / torus GPUs, catalog scale_up.topology) must number the product.")
    block: list[PositiveCount] | None = Field(
        None, description="Torus only: chips per block (a rack's 4x4x4 cube), numbered first, x fastest; "
        "blocks then fill the torus. Each entry must divide the torus's. Unset: the whole torus.")
    block_joins: Literal["cables", "optical_circuit_switch"] = Field(
        "cables", description="Torus only: how blocks join. optical_circuit_switch: the links between "
        "blocks pass an OCS (TPU), so a failed block is switched out of the torus and the rest stays one.")


class PodCooling(Strict):
    """An in-row or room cooling unit shared by the pod's racks."""

    type: Slug = Field(description="Slug of a catalog cooling unit (kind: cooling_unit).")
    count: PositiveCount | None = Field(None, description="Units installed; unset: sized by the cooling analysis.")
    spares: Count | None = Field(
        None, description="Spare units beyond those the heat needs (N + spares). Unset: 1 when the "
        "analysis sizes the units (N+1, so one unit's failure leaves no heat unremoved), none "
        "required when count is given; 0: N, no spare. With count, fewer than N + spares is a finding.")


class Pod(Strict):
    racks: dict[Name, PositiveCount] = Field({}, description="Rack layout name -> how many in one instance of the pod.")
    pods: dict[Name, PositiveCount] = Field({}, description="Nested pod name -> how many in one instance of this pod.")
    scale_up: ScaleUp | None = Field(
        None, description="How NVLink (scale-up) domains span the pod's racks; unset: one domain per rack.")
    cooling: list[PodCooling] = Field([], description="In-row or room cooling units shared by the pod's racks.")


class Assumptions(Strict):
    pue: Annotated[float, Field(ge=1.0, le=3.0)] = Field(
        1.3, description="Power usage effectiveness of the hall (facility power / IT power), 1.0 to 3.0.")
    pue_source: str = Field("assumed", description="Where the PUE comes from.")
    # Air heat per rack above which a warning is given (None: the default, see cooling.py).
    air_heat_limit_kw_per_rack: PosFloat | None = Field(
        None, description="Air heat per rack (kW) above which a warning is given; unset: the default.")
    nvlink_partition_mode: Literal["full_bandwidth", "adaptive_bandwidth"] = Field(
        "full_bandwidth", description="How NVLink partitions are counted after switch failures.")
    notes: list[str] = Field([], description="Free notes listed under the report's Assumptions.")


class PowerOverride(Strict):
    """A design's own figure for a part type (e.g. a vendor quote), used instead of the
    catalog's and listed under Assumptions."""

    type: Slug = Field(description="Slug of the catalog part whose power figures are replaced.")
    max_w: PosFloat | None = Field(None, description="Maximum power of one unit, W.")
    typical_w: PosFloat | None = Field(None, description="Typical power of one unit, W.")
    source: str = Field(description="Where the figure comes from (vendor quote, measurement...).")


class DesignEnvelope(Strict):
    """A published power envelope for the design, or for each instance of one pod
    (``per_pod``), compared with the computed IT power (e.g. NVIDIA's 1.2 MW per SU)."""

    label: str = Field(description="What the envelope is, as shown in reports.")
    max_kw: PosFloat = Field(description="The envelope, kW.")
    per_pod: Name | None = Field(None, description="Pod whose every instance the envelope applies to; unset: the design.")
    source: Source = Field(description="The document the envelope comes from.")


class Design(Strict):
    name: str = Field(description="The design's name, shown in reports.")
    description: str | None = Field(None, description="A sentence or two on what the design is.")
    # model_construct(): the default without building a validator at import (equal to
    # Assumptions(); tests/test_startup.py)
    assumptions: Assumptions = Field(Assumptions.model_construct(),
                                     description="PUE, warning thresholds and notes.")
    racks: dict[Name, RackLayout] = Field(description="Rack layouts by name: a catalog rack and its contents.")
    pods: dict[Name, Pod] = Field({}, description="Repeated blocks of racks and of other pods (SUs), by name.")
    fabrics: dict[Name, FabricSpec] = Field(
        {}, description="Scale-out, front-end or management networks, by name.")
    storage: dict[Name, StorageSpec] = Field(
        {}, description="Storage systems the nodes reach (catalog storage_system), by name, and the "
        "fabric or NICs that carry their traffic.")
    build: Annotated[dict[Name, PositiveCount], Field(min_length=1)] = Field(
        description="Top-level rack layouts or pods -> how many the cluster has.")
    # Overrides of catalogs/rates/default.yaml for `infra failures` (checked there):
    # rows of {kind, and the fields changed, e.g. rate_per_year, repair_hours, basis}.
    failure_rates: list[dict[str, Any]] = Field(
        [], description="Rows overriding catalogs/rates/default.yaml for `infra failures`: a kind and "
        "the fields changed (rate_per_year, repair_hours, basis).")
    power_overrides: list[PowerOverride] = Field(
        [], description="Your own power figures for part types, used instead of the catalog's.")
    envelopes: list[DesignEnvelope] = Field(
        [], description="Published or budgeted power envelopes compared with the computed IT power.")


__all__ = ["Assumptions", "Count", "Design", "DesignEnvelope", "Pod", "PowerOverride", "PodCooling", "PosFloat", "RackContent",
           "RackLayout", "ScaleUp"]
