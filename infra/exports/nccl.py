"""NCCL topology XML, one file per tray type, in NCCL's own dump style.

Style (``ncclTopoDumpXmlRec`` in NCCL's ``src/graph/xml.cc``): no XML declaration, two
spaces per level, no tabs, every element on one line with its attributes, ``<tag .../>``
with no space before the slash, ``<system version="1">``. Units: ``net@speed`` in Mb/s,
``c2c@bw`` in MB/s per link, PCIe ``link_speed`` as ``"32.0 GT/s PCIe"``; classes
0x060400 (PCIe switch), 0x030200 (GPU), 0x020700 / 0x020000 (InfiniBand / Ethernet NIC);
NVLink rows with ``tclass="0x068000"`` (NVSwitch).

Bus IDs are placeholders (``0000:01:00.0`` upward in tree order; ``fffffff:ffff:ff``
for NVSwitches outside the tray, NCCL's own sentinel). NCCL drops branches whose bus IDs
do not match the machine, so a file is a *reference* to diff an ``NCCL_TOPO_DUMP_FILE``
against, and a usable ``NCCL_TOPO_FILE`` only once real bus IDs come from an ingested
node. Every file is checked by :mod:`infra.exports.nccl_check` before it is returned.

Examples
--------
>>> from infra.models.resolve import load_design
>>> ex = nccl_export(load_design("designs/gb200_nvl72.yaml"))
>>> print(ex.files[0].text.splitlines()[3])
    <pci busid="0000:01:00.0" class="0x030200" link_speed="64.0 GT/s PCIe" link_width="16">
"""

from __future__ import annotations

from infra.analysis.network.host_topo import NVS, HostCpu, HostDevice, HostTopology, host_topologies
from infra.exports.common import Export, ExportError, ExportFile
from infra.exports.nccl_check import check_nccl_xml
from infra.models.resolve import ResolvedDesign
from infra.units import PCIE_GT_S, gbit_to_mbit, gbyte_to_mbyte

CLASS = {"pcie_switch": "0x060400", "gpu": "0x030200", "ib": "0x020700", "eth": "0x020000"}
NVSWITCH_CLASS = "0x068000"
NVS_SENTINEL = "fffffff:ffff:ff"
WARNING = ("NCCL XML bus IDs are placeholders: use the files to diff against "
           "NCCL_TOPO_DUMP_FILE dumps; as NCCL_TOPO_FILE only after real bus IDs are filled in "
           "from an ingested node (NCCL silently drops branches whose bus IDs do not match)")


def nccl_export(rd: ResolvedDesign) -> Export:
    """``nccl/<tray slug>.xml`` per tray type with GPUs; ExportError if there is none."""
    files = []
    for h in host_topologies(rd):
        if not h.gpus:
            continue
        text = host_xml(h)
        check_nccl_xml(text, f"nccl/{h.tray}.xml")
        files.append(ExportFile(f"nccl/{h.tray}.xml", text))
    if not files:
        raise ExportError(f"{rd.file}: design {rd.name!r} has no tray with GPUs, so no NCCL "
                          "topology")
    return Export("nccl", tuple(files), (WARNING,))


class _Bus:
    """Placeholder bus IDs and ``net@dev`` numbers of one file, in tree order."""

    def __init__(self) -> None:
        self.n = 0
        self.net = -1

    def next_net(self) -> int:
        self.net += 1
        return self.net

    def next(self) -> str:
        self.n += 1
        if self.n > 0xFF:
            raise ExportError("more than 255 PCIe devices in one tray: placeholder bus IDs ran out")
        return f"0000:{self.n:02x}:00.0"


def host_xml(h: HostTopology) -> str:
    """The NCCL XML text of one tray type."""
    bus = _Bus()
    chips = {c: None for c in h.nvswitch_chips}
    lines = ['<system version="1">',
             f"  <!-- infra export: design reference for tray {h.tray}; bus IDs are "
             "placeholders, not this machine's -->"]
    devices = []
    for cpu in h.cpus:
        lines.append("  " + _tag("cpu", _cpu_attrs(cpu), close=False))
        for d in cpu.devices:
            devices += _pci(d, 2, bus, lines)
        lines.append("  </cpu>")
    for c in chips:  # NVSwitch chips on the tray get bus IDs after the tree
        chips[c] = bus.next()
    out = []
    for line in lines:  # fill NVLink targets now that chip bus IDs exist
        for c, b in chips.items():
            line = line.replace(f'target="@{c}"', f'target="{b}"')
        out.append(line.replace(f'target="@{NVS}"', f'target="{NVS_SENTINEL}"'))
    out.append("</system>")
    return "\n".join(out) + "\n"


def _cpu_attrs(cpu: HostCpu) -> list[tuple[str, str]]:
    attrs = [("numaid", str(cpu.numa))]
    if cpu.isa:
        attrs.append(("arch", cpu.isa))
    if cpu.vendor:
        attrs.append(("vendor", cpu.vendor))
    if cpu.family is not None:
        attrs.append(("familyid", str(cpu.family)))
    if cpu.model is not None:
        attrs.append(("modelid", str(cpu.model)))
    return attrs


def _pci(d: HostDevice, depth: int, bus: _Bus, lines: list[str]) -> list[HostDevice]:
    pad = "  " * depth
    cls = CLASS["ib" if d.infiniband else "eth"] if d.kind == "nic" else CLASS[d.kind]
    speed = f"{float(PCIE_GT_S[d.pcie_gen]):.1f} GT/s PCIe"
    lines.append(pad + _tag("pci", [("busid", bus.next()), ("class", cls), ("link_speed", speed),
                                    ("link_width", str(d.lanes))], close=False))
    if d.kind == "gpu":
        _gpu(d, depth + 1, lines)
    elif d.kind == "nic":
        _nic(d, depth + 1, bus, lines)
    for k in d.children:
        _pci(k, depth + 1, bus, lines)
    lines.append(pad + "</pci>")
    return [d]


def _gpu(d: HostDevice, depth: int, lines: list[str]) -> None:
    pad = "  " * depth
    if d.sm is None:
        raise ExportError(f"GPU {d.name}: the catalog gives no compute_capability, and NCCL "
                          "requires <gpu sm=...>", hint="add compute_capability to the GPU type")
    subs = [_tag("nvlink", [("target", f"@{t}"), ("count", str(n)), ("tclass", NVSWITCH_CLASS)])
            for t, n in d.nvlinks]
    if d.c2c:
        subs.append(_tag("c2c", [("bw", f"{gbyte_to_mbyte(d.c2c[0]):.0f}"),
                                 ("count", str(d.c2c[1]))]))
    attrs = [("dev", str(d.gpu_index)), ("sm", str(d.sm)), ("rank", str(d.gpu_index)),
             ("gdr", "1")]
    if not subs:
        lines.append(pad + _tag("gpu", attrs))
        return
    lines.append(pad + _tag("gpu", attrs, close=False))
    lines += [pad + "  " + s for s in subs]
    lines.append(pad + "</gpu>")


def _nic(d: HostDevice, depth: int, bus: _Bus, lines: list[str]) -> None:
    pad = "  " * depth
    lines.append(pad + "<nic>")
    for i, (port, gbit) in enumerate(d.ports):
        name = d.name if len(d.ports) == 1 else f"{d.name}.{port}"
        lines.append(pad + "  " + _tag("net", [("name", name), ("dev", str(bus.next_net())),
                                               ("speed", f"{gbit_to_mbit(gbit):.0f}"),
                                               ("port", str(i + 1)), ("gdr", "1")]))
    lines.append(pad + "</nic>")


def _tag(name: str, attrs: list[tuple[str, str]], close: bool = True) -> str:
    body = "".join(f' {k}="{v}"' for k, v in attrs)
    return f"<{name}{body}/>" if close else f"<{name}{body}>"
