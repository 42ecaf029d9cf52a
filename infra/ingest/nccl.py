"""Reader for NCCL topology dumps (``NCCL_TOPO_DUMP_FILE``): GPUs, NVLink, C2C and NICs.

A tolerant reader of the tree NCCL writes (interop-formats.md §2): ``system`` >
``cpu`` > nested ``pci`` > ``gpu`` (``nvlink``, ``c2c``) or ``nic`` > ``net``. MNNVL
dumps hold several ``cpu host_hash=...`` hosts; all are read. NVSwitch targets are
recognised by ``tclass="0x068000"``, never by the bus-ID sentinel.

Examples
--------
>>> from pathlib import Path
>>> root = Path(__file__).resolve().parents[2] / "tests/fixtures/inventory/gb200-nvl72"
>>> topo = parse_nccl_topo(root / "r001n07/nccl-topo.xml")
>>> [(g.dev, g.nvswitch_links) for g in topo.gpus]
[(0, 17), (1, 18), (2, 18), (3, 18)]
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from infra.ingest.base import as_path, norm_bus_id, parse_xml, to_int

TOOL = "NCCL_TOPO_DUMP_FILE (NCCL topology dump)"
NVSWITCH_CLASS = "0x068000"
OTHER_ROOTS = {"nvidia_smi_log": "nvidia-smi -q -x", "topology": "lstopo --of xml"}
# NCCL link_speed strings ("32.0 GT/s PCIe", kernel <= 5.6: "32 GT/s") -> PCIe generation
GT_S_TO_GEN = {2.5: 1, 5.0: 2, 8.0: 3, 16.0: 4, 32.0: 5, 64.0: 6}


@dataclass(frozen=True)
class NcclGpu:
    host_hash: str | None
    dev: int | None
    rank: int | None
    sm: int | None
    bus_id: str | None  # joins with nvidia-smi of the same capture only
    pcie_gen: int | None
    pcie_width: int | None
    nvswitch_links: int  # sum of count over nvlink rows with tclass NVSwitch
    gpu_links: int  # direct GPU-GPU links
    c2c_gbyte_s: float | None  # bw x count / 1000, NCCL's own model


@dataclass(frozen=True)
class NcclNet:
    host_hash: str | None
    name: str | None
    dev: int | None
    speed_gbit_s: float | None  # net@speed is Mb/s
    guid: str | None
    port: int | None
    bus_id: str | None


@dataclass(frozen=True)
class NcclTopo:
    file: str
    version: int | None
    hosts: tuple[str, ...]
    gpus: tuple[NcclGpu, ...]
    nets: tuple[NcclNet, ...]


def parse_nccl_topo(path: Path | str) -> NcclTopo:
    """Parse one NCCL topology dump.

    Raises
    ------
    InventoryError
        Binary, truncated XML, or a root other than ``<system>``.
    """
    path = as_path(path)
    return nccl_topo(read_nccl_xml(path), str(path))


def read_nccl_xml(path: Path | str, tree: bool = True):
    """The dump's checked ``<system>`` element (:func:`nccl_topo` reads it): a malformed
    dump is refused here, whether its figures are then needed or not (``tree`` False:
    checked only, None returned where no tree was needed to check it)."""
    return parse_xml(as_path(path), TOOL, "system", OTHER_ROOTS, tree)


def nccl_topo(root, file: str) -> NcclTopo:
    """The GPUs, NICs and hosts of a dump's ``<system>`` element."""
    gpus: list[NcclGpu] = []
    nets: list[NcclNet] = []
    hosts: list[str] = []
    for cpu in root.iter("cpu"):
        host = cpu.get("host_hash")
        if host and host not in hosts:
            hosts.append(host)
        _walk(cpu, host, None, gpus, nets)
    return NcclTopo(file, to_int(root.get("version")), tuple(hosts), tuple(gpus), tuple(nets))


def _walk(el, host, pci, gpus: list, nets: list) -> None:
    """GPUs and NICs under ``el``, each with its nearest ``pci`` parent; iterative (a
    dump nested thousands of ``<pci>`` deep is read, not a RecursionError)."""
    stack = [(iter(el), pci)]  # depth first, in file order, as a recursive walk
    while stack:
        children, parent = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
        elif child.tag == "pci":
            stack.append((iter(child), child))
        elif child.tag == "gpu":
            gpus.append(_gpu(child, host, parent))
        elif child.tag == "nic":
            for net in child.iter("net"):
                speed = to_int(net.get("speed"))
                nets.append(NcclNet(host, net.get("name"), to_int(net.get("dev")),
                                    speed / 1000 if speed is not None else None,
                                    net.get("guid"), to_int(net.get("port")),
                                    norm_bus_id(parent.get("busid")) if parent is not None
                                    else None))


def _gpu(el, host, pci) -> NcclGpu:
    nvs = gpu = 0
    for nv in el.iter("nvlink"):
        count = to_int(nv.get("count")) or 0
        if (nv.get("tclass") or "").lower() == NVSWITCH_CLASS:
            nvs += count
        else:
            gpu += count
    c2c = None
    for c in el.iter("c2c"):
        bw, count = to_int(c.get("bw")), to_int(c.get("count"))
        if bw is not None and count is not None:
            c2c = (c2c or 0.0) + bw * count / 1000
    gen = width = bus = None
    if pci is not None:
        bus = norm_bus_id(pci.get("busid"))
        width = to_int(pci.get("link_width"))
        gen = _gen(pci.get("link_speed"))
    return NcclGpu(host, to_int(el.get("dev")), to_int(el.get("rank")), to_int(el.get("sm")),
                   bus, gen, width, nvs, gpu, c2c)


def _gen(speed: str | None) -> int | None:
    if not speed:
        return None
    try:
        return GT_S_TO_GEN.get(float(speed.split()[0]))
    except ValueError:
        return None
