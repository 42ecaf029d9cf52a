"""Per-node checks: GPUs present, PCIe link state, NVLink links, NVLink fabric state,
compute-tray position.

A GPU maps to the design by its module id (``module_id`` k is the tray's k-th GPU,
1-based: SXM position on HGX, superchip order on GB200), never by enumeration order or
bus ID; when the driver reports no module id the k-th GPU in file order is used.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable

from infra.analysis.network.bandwidth import SCALE_OUT
from infra.ingest.costs import gpu_pcie_links, nic_path_gbit_s
from infra.ingest.smi_text import PATH_CLASSES
from infra.ingest.findings import Finding
from infra.ingest.model import BuiltGpu, BuiltNode
from infra.ingest.slots import DesignNode
from infra.models.catalog import Catalog
from infra.models.expand import expand_tray
from infra.models.parts import Gpu
from infra.topology.tray import tray_flows, tray_graph

IDLE_STATES = {f"P{i}" for i in range(5, 16)}  # idle GPUs may lower their PCIe link speed
# per catalog: what the design says of one tray type's GPU, computed once for all nodes
_PER_TRAY: "weakref.WeakKeyDictionary[Catalog, dict]" = weakref.WeakKeyDictionary()


_LAST: list = [lambda: None, {}]  # (weak reference to the last catalog, its memo)


def _once(catalog: Catalog, key: tuple, compute: Callable):
    """``compute()`` once per catalog and ``key`` (a tray slug and what of it): every
    node of a tray type has the same design figures, so 10,000 nodes cost one."""
    if _LAST[0]() is catalog:  # the same catalog as the last call: no weak-dict look-up
        memo = _LAST[1]
    else:
        memo = _PER_TRAY.setdefault(catalog, {})
        _LAST[:] = [weakref.ref(catalog), memo]
    hit = memo.get(key, _MISSING)
    if hit is _MISSING:
        hit = memo[key] = compute()
    return hit


_MISSING = object()


def match_gpus(dn: DesignNode, node: BuiltNode, catalog: Catalog) -> list[tuple[str, Gpu, BuiltGpu | None]]:
    """(design GPU instance, its type, the as-built GPU or None when missing)."""
    insts = _once(catalog, (dn.tray.slug, "gpus"), lambda: expand_tray(dn.tray, catalog).of_kind("gpu"))
    by_module = {g.module_id: g for g in node.gpus if g.module_id is not None}
    out = []
    for k, inst in enumerate(insts):
        if by_module:
            built = by_module.get(k + 1)
        else:
            built = node.gpus[k] if k < len(node.gpus) else None
        out.append((inst.name, inst.part, built))  # type: ignore[arg-type]
    return out


def node_findings(dn: DesignNode, node: BuiltNode, catalog: Catalog) -> list[Finding]:
    out: list[Finding] = []
    src = node.files[0]
    matched = match_gpus(dn, node, catalog)

    def f(sev, check, gpu, expected, found, cost, source=src, port=None) -> None:
        out.append(Finding(sev, check, dn.rack, dn.u, dn.host, gpu, port, expected, found, cost, source))

    wrong = _wrong_type(dn, node, catalog)
    if wrong:
        f("error", "gpu-type", None, *wrong)
        return out  # per-GPU checks against another type's figures would only mislead

    missing = [(name, part) for name, part, g in matched if g is None]
    if missing:
        names = ", ".join(f"{n} (module {_module(matched, n)})" for n, _ in missing)
        f("error", "gpu-missing", names, f"{dn.gpus} GPUs ({dn.tray.slug})",
          f"{len(node.gpus)} reported" + (f", attached_gpus={node.attached_gpus}"
                                          if node.attached_gpus is not None else ""),
          _missing_cost(dn, len(missing)))
    extra = len(node.gpus) - (len(matched) - len(missing))
    if extra > 0:
        f("warning", "gpu-extra", None, f"{dn.gpus} GPUs", f"{len(node.gpus)} reported",
          f"{extra} GPU(s) without a design position (module ids outside 1..{dn.gpus})")
    for name, part, g in matched:
        if g is None:
            continue
        label = f"{name} (module {g.module_id})" if g.module_id is not None else name
        _pcie(dn, name, label, g, catalog, f)
        _nvlink(dn, label, part, g, f, node)
        _fabric(dn, label, g, f)
    _tray_position(dn, node, f)
    _nic_paths(dn, node, matched, catalog, f)
    if node.nvlink_unmatched:
        src_nv = next((p for p in node.files if "nvlink" in p.rsplit("/", 1)[-1]), src)
        f("warning", "nvlink-unmatched", None, "the GPUs of nvidia-smi -q -x (by UUID)",
          f"{node.nvlink_unmatched} GPU(s) in nvlink -s without the UUID of a GPU of the node",
          "their NVLink state is not checked: the two dumps are not of the same node and "
          "capture (or the UUIDs were edited); capture both again on the node", src_nv)
    return out


PATH_MEANING = {"PHB": "through the CPU's PCIe host bridge (root complex)",
                "NODE": "between PCIe host bridges of one CPU",
                "SYS": "across the CPU socket interconnect (another NUMA node)",
                "PXB": "through several PCIe switches"}


def expected_nic_class(tray, catalog: Catalog, gpu: str) -> str | None:
    """``topo -m`` class the design implies between ``gpu`` and its scale-out NIC: PIX
    (at most one PCIe switch between them), PXB (several); None when the design's path
    runs through a CPU or NVLink-C2C (not checked: topo -m only tells which socket)."""
    g = tray_graph(tray, catalog)
    classes = []
    for fl in tray_flows(tray, catalog):
        if fl.source != gpu or fl.network not in SCALE_OUT:
            continue
        inner = [b for _, b in fl.edges[:-1]]
        if any(g.nodes[n]["kind"] in ("cpu", "c2c") for n in inner):
            return None
        classes.append("PIX" if len(inner) <= 1 else "PXB")
    return min(classes, key=PATH_CLASSES.index) if classes else None


def _nic_paths(dn, node: BuiltNode, matched, catalog, f) -> None:
    if node.topo is None and node.pcie is None:
        return
    for name, _, g in matched:
        if g is None:
            continue
        want = _once(catalog, (dn.tray.slug, "nic-class", name),
                     lambda: expected_nic_class(dn.tray, catalog, name))
        if want is None:
            continue
        found = _topo_nic(node, g) if node.topo is not None else _lspci_nic(node, g)
        if found is None:
            continue
        got, text, source = found
        if PATH_CLASSES.index(got) <= PATH_CLASSES.index(want):
            continue
        label = f"{name} (module {g.module_id})" if g.module_id is not None else name
        f("error", "nic-placement", label, f"a scale-out NIC at {want} (same PCIe switch, as "
          f"the tray type {dn.tray.slug} wires it)", text,
          f"GPUDirect RDMA of this GPU runs {PATH_MEANING.get(got, got)} instead of inside one "
          "PCIe switch: it competes with host traffic there and NCCL may pick a farther NIC",
          source)


def _row(gpus: tuple[BuiltGpu, ...], g: BuiltGpu) -> int:
    """``gpus.index(g)``: the first GPU that is ``g`` or equal to it, the GPUs before it
    told apart by UUID and module id before all 22 fields are compared."""
    for i, x in enumerate(gpus):
        if x is g or (x.uuid == g.uuid and x.module_id == g.module_id and x == g):
            return i
    raise ValueError("GPU not in the node")  # never: g is one of the node's GPUs


def _topo_nic(node: BuiltNode, g: BuiltGpu) -> tuple[str, str, str] | None:
    row = f"GPU{_row(node.gpus, g)}"
    nic, got = node.topo.nearest_nic(row)  # type: ignore[union-attr]
    if got is None:
        return None
    return got, f"nearest NIC {nic} at {got} ({row} in topo -m)", node.topo.file  # type: ignore[union-attr]


NIC_VENDORS = ("15b3:", "1d0f:")  # Mellanox/NVIDIA networking, Amazon (EFA/ENA)


def _lspci_nic(node: BuiltNode, g: BuiltGpu) -> tuple[str, str, str] | None:
    """Class of the nearest NIC in the ``lspci -tv`` tree, in ``topo -m`` terms: a shared
    switch is PIX, a shared root port PXB, a shared host bridge (root) PHB, another root
    NODE (the tree does not tell whether that root is on the other socket)."""
    tree = node.pcie
    if tree is None or g.bus_id is None or g.bus_id not in {d.bus_id for d in tree.devices}:
        return None
    nics = [d for d in tree.devices if (d.vendor_device or "").startswith(NIC_VENDORS)
            and d.secondary is None]
    by = {d.bus_id: d for d in tree.devices}
    best = None
    for nic in nics:
        common = tree.common_bridge(g.bus_id, nic.bus_id)
        if common is not None:
            cls = "PXB" if by[common].parent is None else "PIX"
        else:
            cls = "PHB" if by[g.bus_id].root == nic.root else "NODE"
        if best is None or PATH_CLASSES.index(cls) < PATH_CLASSES.index(best[0]):
            best = (cls, nic.bus_id)
    if best is None:
        return None
    return best[0], f"nearest NIC {best[1]} at {best[0]} (lspci -tv)", tree.file


def _wrong_type(dn: DesignNode, node: BuiltNode, catalog: Catalog) -> tuple[str, str, str] | None:
    """(expected, found, cost) when the node's GPUs are not the design's GPU type, judged
    by PCI device id where the catalog records the type's ids."""
    parts, ids = _once(catalog, (dn.tray.slug, "gpu-ids"), lambda: _gpu_ids(dn.tray, catalog))
    seen = {g.pci_device_id for g in node.gpus if g.pci_device_id}
    if not ids or not seen or seen <= ids:
        return None
    products = sorted({g.product for g in node.gpus if g.product})
    return (f"{', '.join(parts)} (PCI id {', '.join(sorted(ids))}) in {dn.tray.slug}",
            f"{', '.join(products)} (PCI id {', '.join(sorted(seen))})",
            "another GPU type than designed: every figure of the design for this node "
            "(FLOPS, memory, power, NVLink) is wrong; other checks skipped for it")


def type_unchecked(dn: DesignNode, node: BuiltNode, catalog: Catalog) -> list[str]:
    """The design GPU types of ``dn`` that the catalog gives no PCI id for, when the node
    reports its GPUs' ids (its GPU type then cannot be verified); else []."""
    parts, ids = _once(catalog, (dn.tray.slug, "gpu-ids"), lambda: _gpu_ids(dn.tray, catalog))
    if ids or not any(g.pci_device_id for g in node.gpus):
        return []
    return sorted(parts)


def _gpu_ids(tray, catalog: Catalog) -> tuple[dict, set[str]]:
    parts = {i.part.slug: i.part for i in expand_tray(tray, catalog).of_kind("gpu")}
    return parts, {d for p in parts.values() for d in getattr(p, "pci_device_ids", [])}


def _module(matched, name: str) -> int:
    return [n for n, _, _ in matched].index(name) + 1


def _missing_cost(dn: DesignNode, n: int) -> str:
    have = dn.gpus - n
    if dn.domain_scope == "tray":
        return (f"the node's NVLink domain has {have} of {dn.gpus} GPUs: jobs placing "
                f"{dn.gpus} GPUs per node cannot use this node (its {have} GPUs idle for them)")
    return f"{n} GPU(s) absent: the tray serves {have} of {dn.gpus} GPUs"


def _pcie(dn, name, label, g: BuiltGpu, catalog, f) -> None:
    links = _once(catalog, (dn.tray.slug, "pcie", name), lambda: gpu_pcie_links(dn.tray, catalog, name))
    if g.pcie_gen is None and g.pcie_width is None:
        return
    if links:
        _, peer, d = links[0]
        want_gen, want_lanes = d["gen"], d["lanes"]
    elif g.pcie_max_gen is not None or g.pcie_max_width is not None:
        want_gen, want_lanes = g.pcie_max_gen or g.pcie_gen, g.pcie_max_width or g.pcie_width
    else:
        return
    gen = g.pcie_gen or want_gen
    width = g.pcie_width or want_lanes
    if gen >= want_gen and width >= want_lanes:
        return
    found = f"Gen{gen} x{width}"
    expected = f"Gen{want_gen} x{want_lanes}"
    if not links:
        f("warning", "pcie-degraded", label, expected + " (the GPU's own maximum)", found,
          "not on the design's NIC path (the GPU reaches its NICs over NVLink-C2C): host "
          "copies over PCIe are slower")
        return
    before, after = _once(catalog, (dn.tray.slug, "nic-path", name, gen, width),
                          lambda: nic_path_gbit_s(dn.tray, catalog, name, gen, width))
    idle = width >= want_lanes and (g.performance_state or "") in IDLE_STATES
    sev = "info" if idle else ("error" if after < before - 1e-6 else "warning")
    cost = (f"its NIC path drops from {before:.0f} to {after:.0f} Gb/s (link to {peer})"
            if after < before - 1e-6 else
            f"the NIC path keeps {after:.0f} Gb/s; other PCIe traffic (host copies) slows")
    if idle:
        cost += f"; the GPU was idle ({g.performance_state}) and may have lowered its link " \
                "speed to save power: capture under load to confirm"
    f(sev, "pcie-degraded", label, expected, found, cost)


def _nvlink(dn, label, part: Gpu, g: BuiltGpu, f, node: BuiltNode) -> None:
    if part.scale_up is None or dn.domain_scope == "none" or g.nvlinks_active is None:
        return
    want = part.scale_up.links
    per = part.scale_up.link_gbyte_s
    low = (g.nvlink_source or "").lower()  # the dump's file name holds this word
    tag = "nvlink" if "nvlink" in low else "showtopo" if "showtopo" in low else "nccl"
    src = next((p for p in node.files if tag in p.rsplit("/", 1)[-1]), node.files[0])
    kind = "NVLinks" if "nvlink" in part.scale_up.technology.lower() else \
        f"{part.scale_up.technology} links"
    inactive = g.nvlinks_inactive or 0
    listed = g.nvlinks_active + inactive
    if tag == "nvlink" and listed < want:  # nvlink -s prints every link, up or down
        f("warning", "nvlink-unlisted", label, f"{want} NVLinks listed ({part.slug})",
          f"{listed} listed ({g.nvlinks_active} active"
          + (f", {inactive} inactive)" if inactive else ")"),
          f"{want - listed} links are not in the dump (a cut-short capture, or a GPU that "
          "exposes fewer links): their state is unknown; capture `nvidia-smi nvlink -s` "
          "again", src)
        if not inactive:
            return  # no link is reported down: the missing lines are not a fault seen
    if g.nvlinks_active >= want:
        return
    f("error", "nvlink-inactive", label, f"{want} active {kind}",
      f"{g.nvlinks_active} active" + (f", {inactive} inactive" if inactive else ""),
      f"{kind.removesuffix('s')} bandwidth drops from {want * per:g} to "
      f"{g.nvlinks_active * per:g} GB/s per direction; collectives over the domain run at "
      "the slowest GPU's rate", src)


def _fabric(dn, label, g: BuiltGpu, f) -> None:
    state = g.fabric_state
    if state is None:
        return
    if dn.domain_scope == "rack" and not g.fabric_attached:
        f("error", "fabric-not-attached", label,
          "fabric state Completed, status Success, non-zero cluster UUID",
          f"state {state}, status {g.fabric_status or 'N/A'}, cluster UUID {g.cluster_uuid or 'N/A'}",
          f"the GPU is outside domain {dn.domain}'s NVLink fabric: it cannot join NVLink "
          "jobs spanning trays")
    elif dn.domain_scope == "tray" and state.lower() != "completed":
        f("error", "fabric-not-attached", label, "fabric state Completed (NVSwitch baseboard "
          "initialised by Fabric Manager)", f"state {state}, status {g.fabric_status or 'N/A'}",
          "NVLink peer-to-peer is unavailable on this node until Fabric Manager completes")


def _tray_position(dn: DesignNode, node: BuiltNode, f) -> None:
    if dn.domain_scope != "rack":
        return
    idx = {g.tray_index for g in node.gpus if g.tray_index is not None}
    if idx and idx != {dn.tray_no}:
        f("warning", "tray-position", None, f"compute tray {dn.tray_no} of rack {dn.rack} "
          f"(U{dn.u})", f"tray_index {', '.join(map(str, sorted(idx)))}",
          "the host name and the tray's physical position disagree: a failure report for "
          f"{dn.host} would send a technician to the wrong tray")
