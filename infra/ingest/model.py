"""The as-built model: what an inventory directory says was installed.

Everything is keyed on stable identities: a GPU on its UUID (or serial plus module id),
an adapter on its port GUID, a node on its host name. PCI bus IDs are kept only to
join two dumps taken on the same node and are never an identity (they differ between
VMs and bare metal).
"""

from __future__ import annotations

from dataclasses import dataclass

from infra.ingest.base import zero_uuid
from infra.ingest.ibnet import IbAdapter, IbFabric
from infra.ingest.lspci import PciTree
from infra.ingest.smi_text import TopoMatrix


@dataclass(frozen=True)
class BuiltGpu:
    """One GPU as reported by its node."""

    uuid: str | None
    serial: str | None
    module_id: int | None  # SXM / superchip position, 1-based; not the device index
    product: str | None
    pci_device_id: str | None
    chassis_serial: str | None
    slot_number: int | None
    tray_index: int | None
    performance_state: str | None
    pcie_gen: int | None
    pcie_max_gen: int | None
    pcie_width: int | None
    pcie_max_width: int | None
    fabric_state: str | None
    fabric_status: str | None
    cluster_uuid: str | None
    clique_id: int | None
    nvlinks_active: int | None  # None: no dump said
    nvlinks_inactive: int | None
    nvlink_line_gbyte_s: float | None  # per-link line rate as the tool printed it
    nvlink_source: str | None
    bus_id: str | None = None  # joins dumps of this node's one capture; never an identity

    @property
    def key(self) -> str:
        """Stable identity: UUID, else serial + module id."""
        return self.uuid or f"{self.serial}/m{self.module_id}"

    @property
    def fabric_attached(self) -> bool:
        """In an NVLink fabric cluster: state Completed, status Success, non-zero cluster
        UUID (the rule GPU Feature Discovery applies; interop-formats.md §3.2)."""
        return ((self.fabric_state or "").lower() == "completed"
                and (self.fabric_status or "success").lower() == "success"
                and not zero_uuid(self.cluster_uuid))

    @property
    def clique(self) -> tuple[str, int | None] | None:
        return (self.cluster_uuid, self.clique_id) if self.fabric_attached else None  # type: ignore[return-value]


@dataclass(frozen=True)
class BuiltNic:
    name: str | None  # device name, e.g. mlx5_3
    port_guid: str | None
    gbit_s: float | None
    source: str


@dataclass(frozen=True)
class BuiltNode:
    host: str
    gpus: tuple[BuiltGpu, ...]
    nics: tuple[BuiltNic, ...]
    driver_version: str | None
    attached_gpus: int | None
    files: tuple[str, ...]
    topo: TopoMatrix | None = None
    pcie: PciTree | None = None  # lspci -tv
    nvlink_unmatched: int = 0  # GPUs of nvlink -s whose UUID no GPU of -q -x has


@dataclass(frozen=True)
class FabricPort:
    """One adapter-to-switch cable as discovered."""

    switch: str  # switch node GUID
    switch_name: str
    switch_port: int
    host: str
    hca: str | None
    hca_rank: int  # 0-based order of this host's adapters on this fabric (name number)
    adapter_guid: str
    width: int | None
    speed: str | None
    gbit_s: float | None


@dataclass(frozen=True)
class Inventory:
    root: str
    nodes: tuple[BuiltNode, ...]
    fabric: IbFabric | None
    ports: tuple[FabricPort, ...]
    unmapped_adapters: tuple[IbAdapter, ...]

    def node(self, host: str) -> BuiltNode | None:
        return next((n for n in self.nodes if n.host == host), None)
