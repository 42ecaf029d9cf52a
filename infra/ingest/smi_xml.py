"""Reader for ``nvidia-smi -q -x``: per-GPU identity, PCIe link state and NVLink fabric.

Tolerates the element sets of drivers 535 (v12 DTD: top-level ``<gpu_module_id>``,
``<fabric>`` with state/status only) through 570-590 (``<platformInfo><module_id>``,
``chassis_serial_number``, ``slot_number``, ``tray_index``, ``host_id``; ``<fabric>``
with ``cliqueId``, ``clusterUuid``, ``health``); see interop-formats.md §6. A renamed
or missing element reads as absent (None), never as an error; ``N/A`` reads as None.

Examples
--------
>>> from pathlib import Path
>>> root = Path(__file__).resolve().parents[2] / "tests/fixtures/inventory/gb200-nvl72"
>>> log = parse_smi_xml(root / "r001n01/nvidia-smi-q.xml")
>>> [(g.module_id, g.serial[-3:], g.clique_id) for g in log.gpus][:2]
[(2, '001', 1), (1, '001', 1)]
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import xml.etree.ElementTree as ET

from infra.ingest.base import find_text, norm_bus_id, parse_xml, to_int

TOOL = "nvidia-smi -q -x"
OTHER_ROOTS = {"system": "NCCL_TOPO_DUMP_FILE (NCCL topology)", "topology": "lstopo --of xml",
               "graphml": "a GraphML export"}


@dataclass(frozen=True)
class SmiGpu:
    """One ``<gpu>`` element; None where the driver did not report the field."""

    bus_id: str | None  # for joining dumps of the same node only, never an identity
    product_name: str | None
    uuid: str | None
    serial: str | None  # board / superchip serial (two GB200 GPUs share one)
    board_part_number: str | None
    pci_device_id: str | None  # e.g. '0x2330' (device id only, lower case)
    module_id: int | None
    chassis_serial: str | None
    slot_number: int | None
    tray_index: int | None
    host_id: int | None
    performance_state: str | None  # P0 busy ... P8 idle (idle GPUs may downclock PCIe)
    pcie_gen: int | None  # current
    pcie_max_gen: int | None
    pcie_width: int | None  # current lanes
    pcie_max_width: int | None
    fabric_state: str | None
    fabric_status: str | None
    cluster_uuid: str | None
    clique_id: int | None
    fabric_health: str | None


@dataclass(frozen=True)
class SmiLog:
    file: str
    driver_version: str | None
    attached_gpus: int | None
    gpus: tuple[SmiGpu, ...]


def parse_smi_xml(path: Path | str) -> SmiLog:
    """Parse one node's ``nvidia-smi -q -x`` output.

    Parameters
    ----------
    path : Path or str
        The saved XML.

    Returns
    -------
    SmiLog
        Driver version, the attached-GPU count the driver printed and one
        :class:`SmiGpu` per ``<gpu>`` element, in file order.

    Raises
    ------
    InventoryError
        Binary, truncated or non-``nvidia_smi_log`` XML.
    """
    path = Path(path)
    root = parse_xml(path, TOOL, "nvidia_smi_log", OTHER_ROOTS)
    gpus = tuple(_gpu(el) for el in root.findall("gpu"))
    return SmiLog(str(path), find_text(root, "driver_version"),
                  to_int(find_text(root, "attached_gpus")), gpus)


def _gpu(el) -> SmiGpu:
    pci = el.find("pci")
    link = pci.find("pci_gpu_link_info") if pci is not None else None
    gen = link.find("pcie_gen") if link is not None else None
    width = link.find("link_widths") if link is not None else None
    plat = el.find("platformInfo")
    if plat is None:
        plat = el.find("platform_info")
    fab = el.find("fabric")
    none = _NONE  # an absent parent: every child reads as absent
    pci, gen, width, plat, fab = (x if x is not None else none for x in (pci, gen, width, plat, fab))
    return SmiGpu(
        bus_id=norm_bus_id(find_text(pci, "pci_bus_id") or el.get("id")),
        product_name=find_text(el, "product_name"),
        uuid=find_text(el, "uuid"),
        serial=find_text(el, "serial"),
        board_part_number=find_text(el, "board_part_number"),
        pci_device_id=_device_id(find_text(pci, "pci_device_id")),
        module_id=to_int(find_text(plat, "module_id") or find_text(el, "gpu_module_id")),
        chassis_serial=find_text(plat, "chassis_serial_number"),
        slot_number=to_int(find_text(plat, "slot_number")),
        tray_index=to_int(find_text(plat, "tray_index")),
        host_id=to_int(find_text(plat, "host_id")),
        performance_state=find_text(el, "performance_state"),
        pcie_gen=to_int(find_text(gen, "current_link_gen")),
        pcie_max_gen=to_int(find_text(gen, "max_link_gen")),
        pcie_width=to_int(find_text(width, "current_link_width")),
        pcie_max_width=to_int(find_text(width, "max_link_width")),
        fabric_state=find_text(fab, "state"),
        fabric_status=find_text(fab, "status"),
        cluster_uuid=find_text(fab, "clusterUuid", "cluster_uuid"),
        clique_id=to_int(find_text(fab, "cliqueId", "clique_id")),
        fabric_health=find_text(fab, "health/summary"),
    )


_NONE = ET.Element("absent")  # stands for a missing parent element


def _device_id(value: str | None) -> str | None:
    """``233010DE`` (device id then vendor id, as nvidia-smi prints it) -> ``0x2330``."""
    if not value:
        return None
    v = value.lower().removeprefix("0x")
    if len(v) == 8:
        return "0x" + v[:4]
    return "0x" + v[-4:] if len(v) >= 4 else None
