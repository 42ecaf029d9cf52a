"""Catalog types for systems: compute trays/servers, racks, power and cooling units.

A compute tray is a *template*: it lists components by type and count, and its
internal PCIe/C2C tree as explicit links between instance names. Instance names are
``<id><i>`` for component ``id`` (``nic0``, ``sc1``); a superchip's parts are
``<id><i>.cpu<j>`` / ``<id><i>.gpu<j>``; a NIC's named host link is ``nic0@cpu_side``
and a NIC's logical interface ``nic0:efa``.
"""

# No ``from __future__ import annotations`` here: pydantic would evaluate each field's
# annotation from its string (a compile per field) when the class is created; with
# real annotations it reads them as they are (same types; schemas/ unchanged).

from typing import Literal

from pydantic import Field, model_validator

from infra.models.base import (WEIGHT_DOC, Lanes, NonNegFloat, PerPartCount, PosFloat, PositiveCount,
                               Slug, Strict)
from infra.models.parts import Part, Powered

CoolingMedium = Literal["liquid", "air"]
# Supply redundancy: N (no spare), N+1 / N+2 (spare units), N+N (two feeds, each able
# to carry the load on its half of the units).
Redundancy = Literal["N", "N+1", "N+2", "N+N"]


def usable_units(units: int, redundancy: Redundancy | None) -> int:
    """Units whose capacity is usable under ``redundancy`` (None: all, as installed).

    Examples
    --------
    >>> usable_units(6, "N+1"), usable_units(6, "N+2"), usable_units(8, "N+N")
    (5, 4, 4)
    """
    spare = {None: 0, "N": 0, "N+1": 1, "N+2": 2}.get(redundancy)
    if spare is None:  # N+N
        return units // 2
    return max(units - spare, 0)
Network = Literal["scale_out", "front_end", "converged", "management"]


class TrayComponent(Strict):
    id: str = Field(pattern=r"^[a-z][a-z_]*[a-z]$", description=(
        "Component id; its instances are named <id><i> (nic0, nic1...) in links and "
        "nic_assignments."))
    type: Slug = Field(description="Slug of the catalog part (GPU, superchip, NIC, PCIe switch...).")
    count: PerPartCount = Field(1, description="How many of this part the tray holds.")
    cooling: CoolingMedium = Field("air", description="Where the part's heat goes: liquid or air.")
    network: Network | None = Field(
        None, description="For NICs: the fabric they carry (scale_out, front_end, converged, management).")


class TrayLink(Strict):
    """One PCIe link: generation negotiates to the lower of the two ends."""

    a: str = Field(description="One end: an instance (nic0, pcisw1), a superchip's part (sc0.cpu0, "
                   "sc0.gpu1) or a NIC's named host link (nic0@gpu_side).")
    b: str = Field(description="The other end, named as for a.")
    lanes: Lanes = Field(description="PCIe lanes of the link; the generation is the lower of the two ends'.")


class NicAssignment(Strict):
    """Which GPU or CPU drives a NIC interface (``nic0`` or ``nic0:efa``)."""

    interface: str = Field(description="A NIC or DPU instance (nic0), one of its ports (dpu0:p0) or a named "
                           "logical interface (nic0:efa).")
    to: str = Field(description="The GPU or CPU instance the interface serves (sc0.gpu0, gpu3, sc1.cpu0).")


class ComputeTray(Part, Powered):
    kind: Literal["compute_tray"] = "compute_tray"
    form: Literal["tray", "server"] = Field(
        "tray", description="tray (part of a rack-scale system) or server (stands alone).")
    u_height: PosFloat = Field(description="Rack units the tray or server occupies.")
    components: list[TrayComponent] = Field(description="Parts by type and count; instances <id><i>.")
    links: list[TrayLink] = Field([], description="The PCIe tree: links between instance names.")
    nic_assignments: list[NicAssignment] = Field(
        [], description="Which GPU or CPU drives each NIC interface.")
    max_power_w: PosFloat | None = None  # published whole-system figure, if any
    weight_kg: PosFloat | None = Field(None, description=WEIGHT_DOC)
    # CPU (DDR) memory the server is configured with, when it is a server property (x86
    # DIMMs) rather than the CPUs' own (Grace LPDDR5X); None: the CPUs' memory_gb sum.
    cpu_memory_gb: PosFloat | None = None
    overhead_w: NonNegFloat | None = None  # fans, boards, drives beyond listed parts
    overhead_typical_w: NonNegFloat | None = None  # typical of the same (default: overhead_w)
    psus: PositiveCount | None = None  # the server's own PSUs, when it has them
    psu_w: PosFloat | None = None
    psu_redundancy: Redundancy | None = None
    analyst_only: list[str] = Field(
        [], description="What in this template rests only on analyst reports.")

    @model_validator(mode="after")
    def _unique_ids(self):  # noqa: ANN202
        ids = [c.id for c in self.components]
        dup = {i for i in ids if ids.count(i) > 1}
        if dup:
            raise ValueError(f"component ids must be unique; repeated: {sorted(dup)}")
        return self


class Envelope(Strict):
    """A published power envelope of a whole rack or system, shown beside the tool's
    computed figure. ``source`` is the id of one of the entry's sources."""

    label: str
    max_kw: PosFloat | None = None
    typical_kw: PosFloat | None = None
    liquid_kw: PosFloat | None = None
    air_kw: PosFloat | None = None
    source: str


class Rack(Part):
    kind: Literal["rack"] = "rack"
    u_height: PositiveCount
    cooling: Literal["air", "liquid", "hybrid"]
    max_power_kw: PosFloat | None = None  # feed / busbar limit when published
    reference_it_kw: PosFloat | None = None  # published (often analyst) whole-rack estimate
    weight_kg: PosFloat | None = Field(None, description="The empty enclosure's weight, kg.")
    static_load_kg: PosFloat | None = Field(
        None, description="The enclosure's static load rating: the most its units may weigh, kg.")
    loaded_weight_kg: PosFloat | None = Field(
        None, description="The vendor's weight of the whole rack as shipped full, kg (shown "
        "beside the weight computed from its units).")
    envelopes: list[Envelope] = []

    @model_validator(mode="after")
    def _envelope_sources(self):  # noqa: ANN202
        ids = {s.id for s in self.sources}
        for e in self.envelopes:
            if e.source not in ids:
                raise ValueError(f"envelope {e.label!r}: source {e.source!r} not among {sorted(ids)}")
        return self


class PowerShelf(Part):
    kind: Literal["power_shelf"] = "power_shelf"
    u_height: PosFloat
    capacity_kw: PosFloat
    psus: PositiveCount | None = None
    psu_kw: PosFloat | None = None
    psu_redundancy: Redundancy | None = None  # None: not published (installed sum used)
    efficiency: float | None = Field(default=None, gt=0, le=1)  # AC->DC, when published
    weight_kg: PosFloat | None = Field(None, description=WEIGHT_DOC)

    @property
    def usable_kw(self) -> float:
        """Capacity usable under the shelf's PSU redundancy."""
        if self.psus is None or self.psu_kw is None or self.psu_redundancy is None:
            return self.capacity_kw
        return min(self.capacity_kw, usable_units(self.psus, self.psu_redundancy) * self.psu_kw)


class Pdu(Part):
    kind: Literal["pdu"] = "pdu"
    u_height: NonNegFloat = 0
    capacity_kw: PosFloat
    weight_kg: PosFloat | None = Field(None, description=WEIGHT_DOC)


class CoolingUnit(Part, Powered):
    """A unit that removes heat: CDU (liquid), heat exchanger or CRAH (air).

    ``capacity_kw`` is the heat the unit removes. Modular units (AWS's IRHX adds fan
    cabinets with the row's load) give ``module_capacity_kw`` instead when known.
    """

    kind: Literal["cooling_unit"] = "cooling_unit"
    cooling_kind: Literal["in_rack_cdu", "in_row_cdu", "in_row_heat_exchanger", "crah", "crac"]
    removes: Literal["liquid", "air", "both"]
    placement: Literal["in_rack", "in_row", "room"]
    u_height: NonNegFloat = 0
    capacity_kw: PosFloat | None = None
    module_name: str | None = None
    module_capacity_kw: PosFloat | None = None
    max_power_w: PosFloat | None = None
    weight_kg: PosFloat | None = Field(None, description=WEIGHT_DOC)


class GenericUnit(Part, Powered):
    """A rack-mounted unit with no analysis of its own (management switch, shelf...)."""

    kind: Literal["rack_unit"] = "rack_unit"
    u_height: NonNegFloat
    max_power_w: PosFloat | None = None
    weight_kg: PosFloat | None = Field(None, description=WEIGHT_DOC)
    cooling: CoolingMedium = "air"


__all__ = [
    "ComputeTray",
    "CoolingUnit",
    "Envelope",
    "GenericUnit",
    "NicAssignment",
    "Pdu",
    "PowerShelf",
    "Rack",
    "TrayComponent",
    "TrayLink",
]
