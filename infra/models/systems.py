"""Catalog types for systems: compute trays/servers, racks, power and cooling units.

A compute tray is a *template*: it lists components by type and count, and its
internal PCIe/C2C tree as explicit links between instance names. Instance names are
``<id><i>`` for component ``id`` (``nic0``, ``sc1``); a superchip's parts are
``<id><i>.cpu<j>`` / ``<id><i>.gpu<j>``; a NIC's named host link is ``nic0@cpu_side``
and a NIC's logical interface ``nic0:efa``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from infra.models.base import Lanes, NonNegFloat, PosFloat, PositiveCount, Slug, Strict
from infra.models.parts import Part

CoolingMedium = Literal["liquid", "air"]
Network = Literal["scale_out", "front_end", "converged", "management"]


class TrayComponent(Strict):
    id: str = Field(pattern=r"^[a-z][a-z_]*[a-z]$")
    type: Slug
    count: PositiveCount = 1
    cooling: CoolingMedium = "air"
    network: Network | None = None  # for NICs: which fabric they carry


class TrayLink(Strict):
    """One PCIe link: generation negotiates to the lower of the two ends."""

    a: str
    b: str
    lanes: Lanes


class NicAssignment(Strict):
    """Which GPU or CPU drives a NIC interface (``nic0`` or ``nic0:efa``)."""

    interface: str
    to: str


class ComputeTray(Part):
    kind: Literal["compute_tray"] = "compute_tray"
    form: Literal["tray", "server"] = "tray"
    u_height: PosFloat
    components: list[TrayComponent]
    links: list[TrayLink] = []
    nic_assignments: list[NicAssignment] = []
    max_power_w: PosFloat | None = None  # published whole-system figure, if any
    # CPU (DDR) memory the server is configured with, when it is a server property (x86
    # DIMMs) rather than the CPUs' own (Grace LPDDR5X); None: the CPUs' memory_gb sum.
    cpu_memory_gb: PosFloat | None = None
    overhead_w: NonNegFloat | None = None  # fans, boards, drives beyond listed parts
    analyst_only: list[str] = []  # what in this template rests only on analyst reports

    @model_validator(mode="after")
    def _unique_ids(self):  # noqa: ANN202
        ids = [c.id for c in self.components]
        dup = {i for i in ids if ids.count(i) > 1}
        if dup:
            raise ValueError(f"component ids must be unique; repeated: {sorted(dup)}")
        return self


class Rack(Part):
    kind: Literal["rack"] = "rack"
    u_height: PositiveCount
    cooling: Literal["air", "liquid", "hybrid"]
    max_power_kw: PosFloat | None = None  # feed / busbar limit when published
    reference_it_kw: PosFloat | None = None  # published (often analyst) whole-rack estimate


class PowerShelf(Part):
    kind: Literal["power_shelf"] = "power_shelf"
    u_height: PosFloat
    capacity_kw: PosFloat
    psus: PositiveCount | None = None
    psu_kw: PosFloat | None = None


class Pdu(Part):
    kind: Literal["pdu"] = "pdu"
    u_height: NonNegFloat = 0
    capacity_kw: PosFloat


class CoolingUnit(Part):
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


class GenericUnit(Part):
    """A rack-mounted unit with no analysis of its own (management switch, shelf...)."""

    kind: Literal["rack_unit"] = "rack_unit"
    u_height: NonNegFloat
    max_power_w: PosFloat | None = None
    cooling: CoolingMedium = "air"


__all__ = [
    "ComputeTray",
    "CoolingUnit",
    "GenericUnit",
    "NicAssignment",
    "Pdu",
    "PowerShelf",
    "Rack",
    "TrayComponent",
    "TrayLink",
]
