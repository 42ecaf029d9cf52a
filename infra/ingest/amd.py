"""Readers for AMD nodes: ``amd-smi static`` (``--json`` or its text form), ``rocm-smi``
(the concise table: each GPU's PCI device id) and ``rocm-smi --showtopo`` (the GPU pair
matrices: link type, hops, weight; NUMA nodes).

Shapes (ROCm 6.x and 7.x; interop-report.md §5):

* ``amd-smi static --json``: a list of GPU objects, or ``{"gpu_data": [...]}`` (newer
  releases), each with ``gpu``, ``asic`` (``market_name``, ``device_id``, ``asic_serial``,
  ``oam_id``), ``bus`` (``bdf``, ``max_pcie_width``, ``pcie_interface_version``); the text
  form prints the same keys upper-cased, nested by indentation under ``GPU: <n>``.
* ``rocm-smi``: one row per GPU starting with its index and holding its device id,
  ``0       [0x74a1 : 0x00] ...`` (ROCm 6.0-6.2) or ``0       2     0x74a2,   1017 ...``
  (ROCm 6.3+).
* ``rocm-smi --showtopo``: ``====== Link Type between two GPUs ======`` then a ``GPU0
  GPU1 ...`` header and one row per GPU (``0``, ``XGMI``, ``PCIE``); the same for
  ``Hops`` and ``Weight``; ``GPU[3]  : (Topology) Numa Node: 0`` lines.

An OAM position (``oam_id``, 0-based on the 8-GPU UBB) is the GPU's module id + 1, so
the diff maps GPUs by position as it does SXM module ids. A GPU's Infinity Fabric links
are the peers ``--showtopo`` reaches over ``XGMI`` in one hop (MI300X: 7, one per peer).

Examples
--------
>>> text = '''=============== Link Type between two GPUs ===============
...        GPU0         GPU1         GPU2
... GPU0   0            XGMI         PCIE
... GPU1   XGMI         0            XGMI
... GPU2   PCIE         XGMI         0
... =============== Hops between two GPUs ===============
...        GPU0         GPU1         GPU2
... GPU0   0            1            2
... GPU1   1            0            1
... GPU2   2            1            0
... '''
>>> t = parse_showtopo_text(text, "t.txt")
>>> [t.xgmi_links(g) for g in range(3)]
[1, 2, 1]
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from infra.ingest.base import InventoryError, na, norm_bus_id, read_text, small_int, to_int

STATIC_TOOL = "amd-smi static --json"
ROCM_SMI_TOOL = "rocm-smi"
SHOWTOPO_TOOL = "rocm-smi --showtopo"
_MAX_GPUS = 4096  # no node has more; a larger index is no reading


@dataclass(frozen=True)
class AmdGpu:
    index: int
    product: str | None
    pci_device_id: str | None  # '0x74a1'
    serial: str | None  # asic_serial
    module_id: int | None  # oam_id + 1
    bus_id: str | None
    pcie_max_gen: int | None
    pcie_max_width: int | None


@dataclass(frozen=True)
class AmdTopo:
    file: str
    gpus: tuple[int, ...]
    link_type: dict[tuple[int, int], str]  # (i, j) -> XGMI / PCIE
    hops: dict[tuple[int, int], int]
    numa: dict[int, int]

    def xgmi_links(self, gpu: int) -> int:
        """Peers reached over Infinity Fabric in one hop (hops unknown: over XGMI)."""
        return sum(1 for j in self.gpus if j != gpu
                   and self.link_type.get((gpu, j)) == "XGMI"
                   and self.hops.get((gpu, j), 1) == 1)


def parse_amd_static(path: Path | str) -> tuple[AmdGpu, ...]:
    """``amd-smi static`` output, JSON (``--json``) or text, one :class:`AmdGpu` a GPU."""
    path = Path(path)
    text = read_text(path, STATIC_TOOL)
    if text.lstrip().startswith(("[", "{")):
        return _from_json(text, str(path))
    return tuple(_gpu(i, g) for i, g in enumerate(_text_tree(text, str(path))))


def _from_json(text: str, file: str) -> tuple[AmdGpu, ...]:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:  # also a number over the int digit limit
        line = getattr(exc, "lineno", None)
        raise InventoryError(f"malformed or truncated JSON ({type(exc).__name__})", file=file,
                             line=line, hint=f"capture the whole output again: {STATIC_TOOL}"
                             ) from None
    if isinstance(data, dict):
        data = data.get("gpu_data", data.get("gpus"))
    if not isinstance(data, list) or not all(isinstance(g, dict) for g in data):
        raise InventoryError("not a list of GPU objects (or {\"gpu_data\": [...]}): not "
                             f"`{STATIC_TOOL}` output", file=file,
                             hint=f"save the output of `{STATIC_TOOL}`")
    if not data:
        raise InventoryError("no GPU in the output", file=file,
                             hint="run it on the node with the amdgpu driver loaded")
    return tuple(_gpu(i, g) for i, g in enumerate(data))


def _text_tree(text: str, file: str) -> list[dict]:
    """The text form (``GPU: 0`` then indented ``KEY: value`` lines) as one nested dict
    per GPU, keys lower-cased."""
    gpus: list[dict] = []
    stack: list[tuple[int, dict]] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or ":" not in line:
            continue
        indent = len(line) - len(line.lstrip(" "))
        key, _, value = line.strip().partition(":")
        key, value = key.strip().lower(), value.strip()
        if indent == 0:
            if key != "gpu":
                continue  # CPU and NIC sections of newer releases are not read
            gpus.append({"gpu": value})
            stack = [(0, gpus[-1])]
            continue
        if not stack:
            continue
        while len(stack) > 1 and stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1]
        if value:
            parent[key] = value
        else:
            parent[key] = child = {}
            stack.append((indent, child))
    if not gpus:
        raise InventoryError("no `GPU: <n>` section: not `amd-smi static` output", file=file,
                             hint=f"save the output of `{STATIC_TOOL}`")
    return gpus


def _get(d: dict, *path: str):
    for key in path:
        if not isinstance(d, dict):
            return None
        d = d.get(key, d.get(key.upper()))
    if isinstance(d, dict):  # {"value": 32, "unit": "GT/s"}
        d = d.get("value")
    return None if d is None else na(str(d))


def _gpu(i: int, g: dict) -> AmdGpu:
    oam = to_int(_get(g, "asic", "oam_id"))
    dev = _get(g, "asic", "device_id")
    gen = _get(g, "bus", "pcie_interface_version")
    m = re.search(r"(\d{1,2})\s*$", gen or "")
    idx = to_int(_get(g, "gpu"))
    return AmdGpu(idx if idx is not None and idx < _MAX_GPUS else i,
                  _get(g, "asic", "market_name"),
                  dev.lower() if dev and re.fullmatch(r"0x[0-9a-fA-F]{4}", dev) else None,
                  _get(g, "asic", "asic_serial"),
                  oam + 1 if oam is not None and oam < _MAX_GPUS else None,
                  norm_bus_id(_get(g, "bus", "bdf")),
                  int(m.group(1)) if m else None,
                  to_int(_get(g, "bus", "max_pcie_width")))


_ROW = re.compile(r"^\s*(\d{1,4})\s+(?:\[)?.*?\b(0x[0-9a-fA-F]{4})\b")


def parse_rocm_smi(path: Path | str) -> dict[int, str]:
    """GPU index -> PCI device id from the concise ``rocm-smi`` table."""
    path = Path(path)
    out: dict[int, str] = {}
    for line in read_text(path, ROCM_SMI_TOOL).splitlines():
        m = _ROW.match(line)
        if m and "=" not in line:
            out.setdefault(int(m.group(1)), m.group(2).lower())
    if not out:
        raise InventoryError("no GPU row with a device id (`0  [0x74a1 : 0x00] ...`): not "
                             "the concise `rocm-smi` output", file=str(path),
                             hint=f"save the output of `{ROCM_SMI_TOOL}`")
    return out


_SECTION = re.compile(r"^=+\s*(.*?)\s*=+\s*$")
_NUMA = re.compile(r"^GPU\[(\d{1,4})\]\s*:\s*\(Topology\) Numa Node:\s*(\d{1,4})\s*$")


def parse_showtopo(path: Path | str) -> AmdTopo:
    path = Path(path)
    return parse_showtopo_text(read_text(path, SHOWTOPO_TOOL), str(path))


def parse_showtopo_text(text: str, file: str) -> AmdTopo:
    """Parse ``rocm-smi --showtopo``; the link-type matrix is required."""
    section = None
    header: list[int] | None = None
    link: dict[tuple[int, int], str] = {}
    hops: dict[tuple[int, int], int] = {}
    numa: dict[int, int] = {}
    for n, line in enumerate(text.splitlines(), start=1):
        m = _SECTION.match(line.strip())
        if m:
            section, header = m.group(1).lower(), None
            continue
        toks = line.split()
        if not toks:
            continue
        if (m := _NUMA.match(line.strip())) is not None:
            numa[int(m.group(1))] = int(m.group(2))
            continue
        if section is None or not ("link type" in section or section.startswith("hops")):
            continue
        if all(re.fullmatch(r"GPU\d{1,4}", t) for t in toks):
            header = [int(t[3:]) for t in toks]
            continue
        if header is None or not re.fullmatch(r"GPU\d{1,4}", toks[0]):
            continue
        row, vals = int(toks[0][3:]), toks[1:]
        if len(vals) != len(header):
            raise InventoryError(f"row {toks[0]} has {len(vals)} cells, the header names "
                                 f"{len(header)} GPUs", file=file, line=n)
        for col, v in zip(header, vals):
            if "link type" in section:
                link[(row, col)] = v.upper()
            elif v.isascii() and v.isdigit():
                hops[(row, col)] = small_int(v, file, n, "a hop count")
    if not link:
        raise InventoryError("no `Link Type between two GPUs` matrix: not `rocm-smi "
                             "--showtopo` output", file=file,
                             hint=f"save the output of `{SHOWTOPO_TOOL}`")
    gpus = tuple(sorted({i for i, _ in link}))
    return AmdTopo(file, gpus, link, hops, numa)
