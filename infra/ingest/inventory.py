"""Load an inventory directory into the as-built model.

Layout (one directory per host, named by its host name; the fabric files at the top)::

    INVENTORY/
      ibnetdiscover.txt        # `ibnetdiscover` run on one host per fabric segment
      guid-map.txt             # optional node-name-map: 0x<node guid> "<host> <hca>"
      r001n01/
        nvidia-smi-q.xml       # `nvidia-smi -q -x`
        topo-m.txt             # `nvidia-smi topo -m`            (optional)
        nvlink-s.txt           # `nvidia-smi nvlink -s`          (optional)
        nccl-topo.xml          # NCCL_TOPO_DUMP_FILE             (optional)
        lspci-tv.txt           # `lspci -tvnn`                   (optional)
      nccl-tests/              # nccl-tests stdout, *.txt (read by infra.ingest.nccl_tests)

Examples
--------
>>> from pathlib import Path
>>> inv = load_inventory(Path(__file__).resolve().parents[2] / "tests/fixtures/inventory/gb200-nvl72")
>>> len(inv.nodes), sum(len(n.gpus) for n in inv.nodes)
(18, 72)
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

from infra.ingest.amd import SHOWTOPO_TOOL, parse_amd_static, parse_rocm_smi, parse_showtopo
from infra.ingest.base import InventoryError, inventory_root, norm_bus_id
from infra.ingest.ibnet import IbFabric, parse_guid_map, parse_ibnet
from infra.ingest.model import BuiltGpu, BuiltNic, BuiltNode, FabricPort, Inventory
from infra.ingest.lspci import parse_lspci
from infra.ingest.nccl import NcclTopo, nccl_topo, read_nccl_xml
from infra.ingest.nccl_tests import DIRECTORY as NCCL_TESTS_DIR
from infra.ingest.smi_text import NvlinkGpu, TopoMatrix, parse_nvlink, parse_topo
from infra.ingest.smi_xml import SmiGpu, parse_smi_xml

SMI_FILES = ("nvidia-smi-q.xml", "nvidia-smi.xml", "smi.xml")
TOPO_FILES = ("topo-m.txt", "nvidia-smi-topo-m.txt")
NVLINK_FILES = ("nvlink-s.txt", "nvidia-smi-nvlink-s.txt")
NCCL_FILES = ("nccl-topo.xml", "nccl_topo.xml")
LSPCI_FILES = ("lspci-tv.txt", "lspci-tvnn.txt")
IB_FILES = ("ibnetdiscover.txt", "ibnetdiscover.out")
GUID_MAP_FILES = ("guid-map.txt", "node-name-map.txt")
AMD_STATIC_FILES = ("amd-smi-static.json", "amd-smi-static.txt")  # an AMD node: these
ROCM_SMI_FILES = ("rocm-smi.txt",)
SHOWTOPO_FILES = ("rocm-smi-showtopo.txt", "showtopo.txt")


def load_inventory(root: Path | str) -> Inventory:
    """Read every dump under ``root`` (layout in the module docstring) into memory.

    For a whole site, :func:`iter_nodes` and :func:`read_fabric` read one host at a time
    (what ``infra diff`` and ``infra ingest`` do).

    Raises
    ------
    InventoryError
        Missing directory, a host directory without ``nvidia-smi -q -x`` output, or any
        malformed dump (the file is named).
    """
    root = _root(root)
    with inventory_root(root):  # no dump is read through a link out of the directory
        nodes = tuple(read_node(d) for d in host_dirs(root))
        return Inventory(str(root), nodes, *read_fabric(root, bool(nodes)))


def _root(root: Path | str) -> Path:
    root = Path(root)
    if not root.is_dir():
        raise InventoryError("inventory directory not found", file=str(root),
                             hint="pass a directory with one sub-directory per host")
    return root


def host_dirs(root: Path | str) -> list[Path]:
    """The host directories of the inventory ``root``, sorted by name."""
    root = _root(root)
    return sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")
                  and p.name != NCCL_TESTS_DIR)


def iter_nodes(root: Path | str, nics: bool = True) -> Iterator[BuiltNode]:
    """Each host of ``root`` read in turn (one node's dumps in memory at a time);
    ``nics``: as :func:`read_node`."""
    root = _root(root)
    with inventory_root(root):
        for d in host_dirs(root):
            yield read_node(d, nics)


def read_fabric(root: Path | str, has_nodes: bool = True
                ) -> tuple[IbFabric | None, tuple[FabricPort, ...], tuple]:
    """(fabric, adapter cables, unmapped adapters) of ``root``'s ``ibnetdiscover`` dump,
    parsed once; raises when the directory holds nothing to read (no host, no fabric
    dump, no nccl-tests logs)."""
    root = _root(root)
    with inventory_root(root):
        ib = _first(root, IB_FILES)
        gmap = _first(root, GUID_MAP_FILES)
        fabric = parse_ibnet(ib, parse_guid_map(gmap) if gmap else None) if ib else None
    if not has_nodes and fabric is None and not (root / NCCL_TESTS_DIR).is_dir():
        raise InventoryError("no host directories, no ibnetdiscover.txt and no nccl-tests/",
                             file=str(root),
                             hint="see `infra diff --help` for the directory layout")
    ports, unmapped = _ports(fabric) if fabric else ((), ())
    return fabric, ports, unmapped


def _first(d: Path, names: tuple[str, ...], present: set[str] | None = None) -> Path | None:
    """The first of ``names`` present in ``d`` (``present``: the directory's listing, when
    already read): anything there, even a FIFO or a link, is then read (and refused with
    its reason) rather than silently taken as absent."""
    if present is None:
        return next((d / n for n in names if os.path.lexists(d / n)), None)
    return next((d / n for n in names if n in present), None)


def read_node(d: Path, nics: bool = True) -> BuiltNode:
    """One host directory's dumps as the as-built node.

    Every dump present is read and checked (a malformed one raises). With ``nics``
    False (``infra diff``, whose checks never read a node's NICs) the node's ``nics``
    are left empty and the NCCL topology dump's figures are read only where a GPU
    needs them: its NVLink count (no ``nvlink -s`` line for it) or PCIe link (none in
    ``nvidia-smi -q -x``)."""
    try:
        present = set(os.listdir(d))
    except OSError as exc:
        raise InventoryError(f"cannot list the host directory: {exc.strerror or exc}",
                             file=str(d)) from None
    smi_path = _first(d, SMI_FILES, present)
    if smi_path is None:
        amd = [_first(d, names, present) for names in (AMD_STATIC_FILES, ROCM_SMI_FILES,
                                                        SHOWTOPO_FILES)]
        if any(amd):
            return amd_node(d.name, *amd)
        raise InventoryError(f"host directory without {SMI_FILES[0]} (an AMD node: "
                             f"{AMD_STATIC_FILES[0]}, {ROCM_SMI_FILES[0]} or "
                             f"{SHOWTOPO_FILES[0]})", file=str(d),
                             hint=f"save `nvidia-smi -q -x > {d.name}/{SMI_FILES[0]}` "
                                  f"(AMD: `amd-smi static --json > {d.name}/"
                                  f"{AMD_STATIC_FILES[0]}`)")
    smi = parse_smi_xml(smi_path)
    files = [str(smi_path)]
    topo = nvl = nccl = pcie = nccl_xml = None
    if p := _first(d, TOPO_FILES, present):
        topo = parse_topo(p)
        files.append(str(p))
    if p := _first(d, NVLINK_FILES, present):
        nvl = parse_nvlink(p)
        files.append(str(p))
    if p := _first(d, NCCL_FILES, present):
        nccl_xml = read_nccl_xml(p, tree=nics), p  # checked now, read below when needed
        files.append(str(p))
    if p := _first(d, LSPCI_FILES, present):
        pcie = parse_lspci(p)
        files.append(str(p))
    by_uuid = {g.uuid: g for g in nvl or () if g.uuid}
    if nccl_xml is not None and (nics or any(
            g.uuid not in by_uuid or g.pcie_gen is None or g.pcie_width is None
            for g in smi.gpus)):
        el, p = nccl_xml
        nccl = nccl_topo(el if el is not None else read_nccl_xml(p), str(p))
    nccl_gpus = _local(nccl)
    gpus = tuple(_gpu(g, by_uuid.get(g.uuid), nccl_gpus.get(g.bus_id), nvl, nccl) for g in smi.gpus)
    uuids = {g.uuid for g in smi.gpus if g.uuid}
    unmatched = sum(1 for g in nvl or () if g.uuid not in uuids)
    return BuiltNode(d.name, gpus, _nics(nccl, topo) if nics else (), smi.driver_version,
                     smi.attached_gpus, tuple(files), topo, pcie, unmatched)


def amd_node(host: str, static: Path | None, concise: Path | None,
             topo_path: Path | None) -> BuiltNode:
    """An AMD node from ``amd-smi static`` (identity, OAM position, PCIe maximum),
    ``rocm-smi`` (device ids, where amd-smi is absent) and ``rocm-smi --showtopo``
    (Infinity Fabric links: peers over XGMI in one hop)."""
    files = [str(p) for p in (static, concise, topo_path) if p is not None]
    gpus = {g.index: g for g in parse_amd_static(static)} if static else {}
    ids = parse_rocm_smi(concise) if concise else {}
    topo = parse_showtopo(topo_path) if topo_path else None
    order = sorted(set(gpus) | set(ids) | set(topo.gpus if topo else ()))
    built = []
    for i in order:
        a = gpus.get(i)
        links = topo.xgmi_links(i) if topo is not None and i in topo.gpus else None
        built.append(BuiltGpu(
            None, a.serial if a else None, a.module_id if a else None,
            a.product if a else None, (a.pci_device_id if a else None) or ids.get(i),
            None, None, None, None, None, a.pcie_max_gen if a else None, None,
            a.pcie_max_width if a else None, None, None, None, None, links, None, None,
            SHOWTOPO_TOOL if links is not None else None, a.bus_id if a else None))
    return BuiltNode(host, tuple(built), (), None, len(order), tuple(files))


def _local(nccl: NcclTopo | None) -> dict:
    """Bus ID -> NCCL GPU of the dump's first host (MNNVL dumps list the whole clique)."""
    if nccl is None:
        return {}
    first = nccl.hosts[0] if nccl.hosts else None
    return {g.bus_id: g for g in nccl.gpus if g.host_hash == first and g.bus_id}


def _gpu(g: SmiGpu, nvl: NvlinkGpu | None, nc, nvl_dump, nccl_dump) -> BuiltGpu:
    active = inactive = rate = src = None
    if nvl is not None:
        active, inactive, rate = nvl.active, nvl.inactive, nvl.fastest
        src = "nvidia-smi nvlink -s"
    elif nc is not None and (nc.nvswitch_links or nc.gpu_links):
        active, inactive, src = nc.nvswitch_links + nc.gpu_links, None, "NCCL topology dump"
    gen, width = g.pcie_gen, g.pcie_width
    if gen is None and nc is not None:
        gen = nc.pcie_gen
    if width is None and nc is not None:
        width = nc.pcie_width
    return BuiltGpu(g.uuid, g.serial, g.module_id, g.product_name, g.pci_device_id,
                    g.chassis_serial, g.slot_number, g.tray_index, g.performance_state,
                    gen, g.pcie_max_gen, width, g.pcie_max_width, g.fabric_state,
                    g.fabric_status, g.cluster_uuid, g.clique_id, active, inactive, rate, src,
                    g.bus_id)


def _nics(nccl: NcclTopo | None, topo: TopoMatrix | None) -> tuple[BuiltNic, ...]:
    if nccl is not None and nccl.nets:
        first = nccl.hosts[0] if nccl.hosts else None
        return tuple(BuiltNic(n.name, n.guid, n.speed_gbit_s, "NCCL topology dump")
                     for n in nccl.nets if n.host_hash == first)
    if topo is not None:
        return tuple(BuiltNic(n, None, None, "nvidia-smi topo -m") for n in topo.nics)
    return ()


def _ports(fabric: IbFabric):
    by_host: dict[str, list] = {}
    for link in fabric.links:
        ad = fabric.adapters.get(link.peer) if link.peer_kind == "H" else None
        if ad is not None and ad.host:
            by_host.setdefault(ad.host, []).append((link, ad))
    ports = []
    for host, items in by_host.items():
        order = sorted({ad.hca or "" for _, ad in items}, key=_natural)
        for link, ad in items:
            sw = fabric.switches[link.switch]
            ports.append(FabricPort(link.switch, sw.name, link.switch_port, host, ad.hca,
                                    order.index(ad.hca or ""), ad.guid, link.width, link.speed,
                                    link.gbit_s))
    unmapped = tuple(a for a in fabric.adapters.values() if a.host is None)
    ports.sort(key=lambda p: (_natural(p.host), p.hca_rank))
    return tuple(ports), unmapped


def _natural(text: str) -> tuple:
    """``mlx5_10`` after ``mlx5_9``; ``HCA-2`` after ``HCA-1``."""
    return tuple(int(t) if t.isascii() and t.isdigit() else t for t in re.split(r"(\d+)", text))


__all__ = ["host_dirs", "iter_nodes", "load_inventory", "norm_bus_id", "read_fabric", "read_node"]
