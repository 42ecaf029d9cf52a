"""One node's CPU / PCIe / GPU / NIC tree as NCCL models it, from a tray template.

Built once per tray *type* from the resolved design's expanded tray
(:meth:`ResolvedDesign.tray_layout`) and the scale-up wiring; :mod:`infra.exports.nccl` writes it as an NCCL topology XML.

Rules
-----
- Every CPU (socket, or the Grace of a superchip) is a root; the PCIe tree below it
  follows the tray's links (switches nest). A GPU reached over NVLink-C2C hangs under
  its CPU with its own PCIe port figures and a C2C link.
- NVLink: a GPU on a tray baseboard lists one row per NVSwitch chip with the links the
  scale-up wiring gives it (H100: 5/5/4/4); a GPU in a rack-level domain lists one row
  with all its links (its switch chips sit in other trays; NCCL merges every NVSwitch
  into one node anyway).
- C2C: one link at the CPU's C2C figure per direction (the catalog models it as shared
  by the CPU's GPUs; how it splits is not published).
- NIC class: InfiniBand when the first of its protocols that is ``infiniband`` or
  ``ethernet`` is ``infiniband``, else Ethernet. ``gdr`` is 1 for every GPU (GPUDirect
  RDMA assumed available).

Examples
--------
>>> from infra.models.resolve import load_design
>>> rd = load_design("designs/dgx_h100_su.yaml")
>>> (h,) = host_topologies(rd)
>>> [c.name for c in h.cpus], h.gpus
(['cpu0', 'cpu1'], 8)
>>> g = h.cpus[0].devices[0].children[0]
>>> g.name, g.sm, g.nvlinks
('gpu0', 90, (('nvsw0', 5), ('nvsw1', 5), ('nvsw2', 4), ('nvsw3', 4)))
"""

from __future__ import annotations

from dataclasses import dataclass

from infra.errors import TopologyError
from infra.models.expand import TrayLayout
from infra.models.parts import Gpu, Nic
from infra.models.resolve import ResolvedDesign
from infra.topology.scaleup import scale_up_domains

NVS = "nvswitch"  # the NVLink target of a GPU whose switch chips are outside its tray


@dataclass(frozen=True)
class HostDevice:
    """A PCIe device under a CPU: a PCIe switch, a GPU or a NIC."""

    name: str  # tray instance name
    kind: str  # pcie_switch | gpu | nic
    pcie_gen: int
    lanes: int
    children: tuple[HostDevice, ...] = ()
    gpu_index: int | None = None
    sm: int | None = None  # CUDA compute capability x 10
    nvlinks: tuple[tuple[str, int], ...] = ()  # (switch chip or NVS, links)
    c2c: tuple[float, int] | None = None  # (GB/s per link per direction, links)
    ports: tuple[tuple[str, float], ...] = ()  # NIC (port, Gb/s)
    infiniband: bool = False
    network: str | None = None


@dataclass(frozen=True)
class HostCpu:
    name: str
    numa: int
    isa: str | None
    vendor: str | None
    family: int | None
    model: int | None
    devices: tuple[HostDevice, ...]


@dataclass(frozen=True)
class HostTopology:
    tray: str
    cpus: tuple[HostCpu, ...]
    gpus: int
    nvswitch_chips: tuple[str, ...]  # chips on the tray (HGX); empty for rack domains


def host_topologies(rd: ResolvedDesign) -> list[HostTopology]:
    """One :class:`HostTopology` per tray type of ``rd`` (sorted by slug)."""
    nvlinks = _nvlinks(rd)
    return [host_topology(rd, t.slug, nvlinks.get(t.slug, {}))
            for t in sorted(rd.tray_types(), key=lambda t: t.slug)]


def host_topology(rd: ResolvedDesign, slug: str, nvlinks: dict) -> HostTopology:
    """The tree of one tray type (see the module rules); ``nvlinks`` from the domains."""
    lay = rd.tray_layout(slug)
    parent = _parents(lay)
    gpu_index = {g.name: i for i, g in enumerate(lay.of_kind("gpu"))}
    c2c = {gpu: grp.gbyte_s for grp in lay.c2c for gpu in grp.gpus}
    kids: dict[str, list[str]] = {}
    for name, (up, _, _) in parent.items():
        kids.setdefault(up, []).append(name)

    def device(name: str) -> HostDevice:
        _, gen, lanes = parent[name]
        part = lay.instances[name].part
        sub = tuple(device(k) for k in kids.get(name, []))
        if isinstance(part, Gpu):
            cc = part.compute_capability
            return HostDevice(name, "gpu", gen, lanes, sub, gpu_index[name],
                              int(cc.replace(".", "")) if cc else None,
                              tuple(nvlinks.get(name, ())),
                              (c2c[name], 1) if name in c2c else None)
        if isinstance(part, Nic):
            protos = [p for i in part.interfaces for p in i.protocols
                      if p in ("infiniband", "ethernet")]
            return HostDevice(name, "nic", gen, lanes, sub,
                              ports=tuple((p.name, p.gbit_s) for p in part.ports),
                              infiniband=bool(protos) and protos[0] == "infiniband",
                              network=lay.instances[name].component.network)
        return HostDevice(name, "pcie_switch", gen, lanes, sub)

    cpus = []
    for i, cpu in enumerate(lay.of_kind("cpu")):
        cid = getattr(cpu.part, "cpuid", None)
        cpus.append(HostCpu(cpu.name, i, cid.isa if cid else None, cid.vendor if cid else None,
                            cid.family if cid else None, cid.model if cid else None,
                            tuple(device(k) for k in kids.get(cpu.name, []))))
    missing = sorted(set(gpu_index) - set(parent))
    if missing:
        raise TopologyError(f"tray {slug!r}: GPUs {missing} reach no CPU over PCIe or C2C",
                            hint="add the PCIe links of the tray template")
    chips = tuple(c.name for c in lay.of_kind("nvlink_switch_chip"))
    return HostTopology(slug, tuple(cpus), len(gpu_index), chips)


def _parents(lay: TrayLayout) -> dict[str, tuple[str, int, int]]:
    """device -> (parent, PCIe gen, lanes): switches hang from a CPU (or the switch above
    it), else from the C2C CPU of a GPU below them (at the GPU link's rate); GPUs and NICs from their first
    switch, else their CPU; a C2C-only GPU from its CPU at its own PCIe figures."""
    kind = {n: i.kind for n, i in lay.instances.items()}
    links: dict[str, list[tuple[str, int, int]]] = {}
    for link in lay.links:
        a, b = link.a.instance.name, link.b.instance.name
        links.setdefault(a, []).append((b, link.gen, link.lanes))
        links.setdefault(b, []).append((a, link.gen, link.lanes))
    owner = {gpu: grp.cpu for grp in lay.c2c for gpu in grp.gpus}
    parent: dict[str, tuple[str, int, int]] = {}
    queue = [c.name for c in lay.of_kind("cpu")]
    while queue:  # switches reachable from a CPU through switches, breadth first
        up = queue.pop(0)
        for n, gen, lanes in links.get(up, []):
            if kind[n] == "pcie_switch" and n not in parent:
                parent[n] = (up, gen, lanes)
                queue.append(n)
    for sw in (i.name for i in lay.of_kind("pcie_switch") if i.name not in parent):
        gpu = next((x for x in links.get(sw, []) if x[0] in owner), None)
        if gpu is not None:  # no upstream port: hang it where its GPU is, at that link's rate
            parent[sw] = (owner[gpu[0]], gpu[1], gpu[2])
    for inst in lay.instances.values():
        if inst.kind not in ("gpu", "nic"):
            continue
        ups = links.get(inst.name, [])
        up = next((x for x in ups if kind[x[0]] == "pcie_switch" and x[0] in parent), None)
        up = up or next((x for x in ups if kind[x[0]] == "cpu"), None)
        if up is None and inst.name in owner:
            hp = inst.part.host_pcie  # type: ignore[attr-defined]
            up = (owner[inst.name], hp.gen if hp else 5, hp.lanes if hp else 16)
        if up is not None:
            parent[inst.name] = up
    return parent


def _nvlinks(rd: ResolvedDesign) -> dict[str, dict[str, list[tuple[str, int]]]]:
    """tray slug -> GPU instance -> [(chip or NVS, links)] from the scale-up graphs."""
    out: dict[str, dict[str, list[tuple[str, int]]]] = {}
    for dom in scale_up_domains(rd):
        g = dom.graph
        for n, d in g.nodes(data=True):
            if d.get("kind") != "gpu":
                continue
            tray = g.nodes[d["tray"]]["slug"]
            inst = n.split(".", 2)[-1] if dom.scope == "rack" else n.split(".", 1)[1]
            if inst in out.get(tray, {}):
                continue
            rows: list[tuple[str, int]] = []
            for _, m, e in g.edges(n, data=True):
                if e.get("kind") == "nvlink":
                    rows.append((m.split(".", 1)[1] if dom.scope != "rack" else NVS, e["links"]))
            if dom.scope == "rack" and rows:
                rows = [(NVS, sum(x for _, x in rows))]
            out.setdefault(tray, {})[inst] = sorted(rows)
    return out
