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

from infra.ingest.base import as_path, na, norm_bus_id, parse_xml, to_int

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
    path = as_path(path)
    root = parse_xml(path, TOOL, "nvidia_smi_log", OTHER_ROOTS)
    top = _kids(root)
    gpus = tuple(_gpu(el) for el in root if el.tag == "gpu")
    return SmiLog(str(path), _text(top, "driver_version"), to_int(_text(top, "attached_gpus")),
                  gpus)


def _kids(el) -> dict:
    """Tag -> first child of that tag (what ``el.find(tag)`` returns), in one pass over
    the children: the 20 look-ups a GPU then cost a dict access each, not a scan."""
    return {} if el is None else {c.tag: c for c in reversed(el)}


def _text(kids: dict, *tags: str) -> str | None:
    """The first present, non-absent text among the children ``tags`` (older and newer
    names), as :func:`infra.ingest.base.find_text`."""
    for tag in tags:
        c = kids.get(tag)
        if c is not None:
            value = na(c.text)
            if value is not None:
                return value
    return None


def _gpu(el) -> SmiGpu:
    g = _kids(el)
    pci = _kids(g.get("pci"))
    link = _kids(pci.get("pci_gpu_link_info"))
    gen = _kids(link.get("pcie_gen"))
    width = _kids(link.get("link_widths"))
    plat = g.get("platformInfo")
    plat = _kids(plat if plat is not None else g.get("platform_info"))
    fab = _kids(g.get("fabric"))
    t = _one
    return SmiGpu(  # the fields in order
        norm_bus_id(t(pci, "pci_bus_id") or el.get("id")),
        t(g, "product_name"), t(g, "uuid"), t(g, "serial"), t(g, "board_part_number"),
        _device_id(t(pci, "pci_device_id")),
        to_int(t(plat, "module_id") or t(g, "gpu_module_id")),
        t(plat, "chassis_serial_number"), to_int(t(plat, "slot_number")),
        to_int(t(plat, "tray_index")), to_int(t(plat, "host_id")), t(g, "performance_state"),
        to_int(t(gen, "current_link_gen")), to_int(t(gen, "max_link_gen")),
        to_int(t(width, "current_link_width")), to_int(t(width, "max_link_width")),
        t(fab, "state"), t(fab, "status"), _text(fab, "clusterUuid", "cluster_uuid"),
        to_int(_text(fab, "cliqueId", "clique_id")), t(_kids(fab.get("health")), "summary"))


def _one(kids: dict, tag: str) -> str | None:
    """:func:`_text` of one tag."""
    c = kids.get(tag)
    return None if c is None else na(c.text)


def _device_id(value: str | None) -> str | None:
    """``233010DE`` (device id then vendor id, as nvidia-smi prints it) -> ``0x2330``."""
    if not value:
        return None
    v = value.lower().removeprefix("0x")
    if len(v) == 8:
        return "0x" + v[:4]
    return "0x" + v[-4:] if len(v) >= 4 else None
