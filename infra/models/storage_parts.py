"""Catalog type for storage: a storage appliance or node, or a whole published storage
system (kind ``storage_system``). Throughput is per unit, GB/s (10^9 bytes), sustained.

Example (Meta's Tectonic flash storage for Llama 3, one published system)::

    kind: storage_system
    slug: meta-tectonic-llama3
    read_gbyte_s: 2000      # "sustainable throughput of 2 TB/s"
    write_gbyte_s: 2000
    peak_gbyte_s: 7000      # "peak throughput of 7 TB/s"
"""

# No ``from __future__ import annotations`` (see parts.py: pydantic reads real annotations).

from typing import Literal

from pydantic import Field

from infra.models.base import PosFloat, PositiveCount
from infra.models.parts import Part, Powered


class StorageSystem(Part, Powered):
    kind: Literal["storage_system"] = "storage_system"
    read_gbyte_s: PosFloat = Field(description="Sustained read throughput of one unit, GB/s.")
    write_gbyte_s: PosFloat = Field(description="Sustained write throughput of one unit, GB/s.")
    peak_gbyte_s: PosFloat | None = Field(
        None, description="Published burst (peak) throughput of one unit, GB/s, where the vendor gives one.")
    capacity_tbyte: PosFloat | None = Field(None, description="Usable capacity of one unit, TB.")
    servers: PositiveCount | None = Field(
        None, description="Servers one unit is built of (a whole system's node count), for the record.")
    ports: PositiveCount | None = Field(
        None, description="Network ports of one unit; with port_gbit_s they bound its throughput and are "
        "counted on the fabric it attaches to.")
    port_gbit_s: PosFloat | None = Field(None, description="Speed of each network port, Gb/s.")
    u_height: PosFloat | None = Field(None, description="Rack units of one unit.")
    max_power_w: PosFloat | None = Field(None, description="Maximum power of one unit, W.")

    @property
    def port_gbyte_s(self) -> float | None:
        """Network bandwidth of one unit's ports, GB/s per direction (None: not stated)."""
        if self.ports is None or self.port_gbit_s is None:
            return None
        return self.ports * self.port_gbit_s / 8
