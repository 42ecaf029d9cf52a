"""Reader for ``lspci -tv`` / ``lspci -tvnn``: the PCIe tree (root ports, switches, devices).

Shape (pciutils ``ls-tree.c``; interop-formats.md §10): roots ``-[dddd:bb]-``, bridges
``NN.N-[ss-ee]--`` (secondary-subordinate bus range), devices ``NN.N``, branches
``+-``, ``\\-`` and ``|``; with ``-v`` two spaces and the pci.ids name. Nesting is read
from the column each entry starts at, so a bridge's children may continue on the same
line or on the following ones. Grace-Blackwell trays have several PCI domains (0008,
0009, 0018, 0019): several roots. ``lspci`` shows no link speed or width; the NCCL dump
and ``nvidia-smi -q -x`` give those.

Examples
--------
>>> text = '''-[0000:53]-+-00.0-[54-7b]----00.0-[55-7b]--+-04.0-[56-6b]--+-00.0  Mellanox CX-7 [15b3:1021]
...            |                               |               \\\\-08.0  NVIDIA H100 [10de:2330]
...            \\\\-01.0  Intel Root Port'''
>>> tree = parse_lspci_text(text, "l.txt")
>>> [d.bus_id for d in tree.devices if d.vendor_device]
['0000:56:00.0', '0000:56:08.0']
>>> tree.common_bridge("0000:56:00.0", "0000:56:08.0")
'0000:55:04.0'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from infra.ingest.base import MEMO_BYTES, InventoryError, as_path, read_text

TOOL = "lspci -tv"
_ROOT = re.compile(r"\[([0-9a-fA-F]{4}):([0-9a-fA-F]{2})\]-")
_DEV = re.compile(r"(?<=[-+\\])([0-9a-fA-F]{2}\.[0-7])(?:-\[([0-9a-fA-F]{2})(?:-([0-9a-fA-F]{2}))?\])?")
_IDS = re.compile(r"\[([0-9a-f]{4}):([0-9a-f]{4})\]\s*(?:\(rev [0-9a-f]+\))?\s*$")


@dataclass(frozen=True)
class PciDevice:
    bus_id: str  # dddd:bb:dd.f (for the tree of this node only, never an identity)
    name: str | None
    parent: str | None  # upstream bridge, None under a root
    secondary: int | None  # a bridge's secondary bus
    vendor_device: str | None  # "10de:2330" with -nn
    root: str = ""  # the host bridge (root) it hangs under, "dddd:bb"


@dataclass(frozen=True)
class PciTree:
    file: str
    devices: tuple[PciDevice, ...]

    def upstream(self, bus_id: str) -> list[str]:
        """Bridges above ``bus_id``, nearest first."""
        by = {d.bus_id: d for d in self.devices}
        out, cur = [], by.get(bus_id)
        while cur is not None and cur.parent:
            out.append(cur.parent)
            cur = by.get(cur.parent)
        return out

    def common_bridge(self, a: str, b: str) -> str | None:
        """The nearest bridge above both devices (None when they meet only at a root)."""
        up_b = set(self.upstream(b))
        return next((x for x in self.upstream(a) if x in up_b), None)


def parse_lspci(path: Path | str) -> PciTree:
    path = as_path(path)
    return parse_lspci_text(read_text(path, TOOL), str(path))


# text -> its devices: identical servers print the same tree, read once
_READ: dict[str, tuple[PciDevice, ...]] = {}


def parse_lspci_text(text: str, file: str) -> PciTree:
    """Parse ``lspci -tv`` text; raises InventoryError when no root is found."""
    devices = _READ.get(text)
    if devices is None:
        devices = _devices(text, file)
        if len(text) <= MEMO_BYTES:  # 64 distinct trees kept, of at most 256 kB each
            if len(_READ) >= 64:
                _READ.clear()
            _READ[text] = devices
    return PciTree(file, devices)


def _devices(text: str, file: str) -> tuple[PciDevice, ...]:
    devices: list[PciDevice] = []
    stack: list[tuple[int, str | None, int, str]] = []  # (column, bus_id, secondary, domain)
    domain, root_bus = None, None
    for n, line in enumerate(text.splitlines(), start=1):
        m = _ROOT.search(line)
        if m:
            domain, root_bus = m.group(1).lower(), int(m.group(2), 16)
            stack = [(m.start(), None, root_bus, domain)]
        if domain is None:
            if line.strip():
                raise InventoryError("no `-[dddd:bb]-` root: not `lspci -tv` output", file=file,
                                     line=n, hint="save the output of `lspci -tvnn`")
            continue
        last, end = None, 0
        for dm in _DEV.finditer(line):
            col = dm.start()
            while len(stack) > 1 and stack[-1][0] >= col:
                stack.pop()
            _, parent, bus, dom = stack[-1]
            bus_id = f"{dom}:{bus:02x}:{dm.group(1).lower()}"
            sec = int(dm.group(2), 16) if dm.group(2) else None
            last, end = len(devices), dm.end()
            devices.append(PciDevice(bus_id, None, parent, sec, None, f"{domain}:{root_bus:02x}"))
            if sec is not None:
                stack.append((col, bus_id, sec, dom))
        tail = line[end:]
        if last is not None and tail.startswith("  ") and tail.strip():
            name = tail.strip()
            ids = _IDS.search(name)
            d = devices[last]
            devices[last] = PciDevice(d.bus_id, name, d.parent, d.secondary,
                                      f"{ids.group(1)}:{ids.group(2)}" if ids else None, d.root)
    if not devices:
        raise InventoryError("no device entries: not `lspci -tv` output", file=file,
                             hint="save the output of `lspci -tvnn`")
    return tuple(devices)
