"""Per-node checks: GPUs present, PCIe link state, NVLink links, NVLink fabric state,
compute-tray position.

A GPU maps to the design by its module id (``module_id`` k is the tray's k-th GPU,
1-based: SXM position on HGX, superchip order on GB200), never by enumeration order or
bus ID; when the driver reports no module id the k-th GPU in file order is used.
"""

from __future__ import annotations

from infra.ingest.costs import gpu_pcie_links, nic_path_gbit_s
from infra.ingest.findings import Finding
from infra.ingest.model import BuiltGpu, BuiltNode
from infra.ingest.slots import DesignNode
from infra.models.catalog import Catalog
from infra.models.expand import expand_tray
from infra.models.parts import Gpu

IDLE_STATES = {f"P{i}" for i in range(5, 16)}  # idle GPUs may lower their PCIe link speed


def match_gpus(dn: DesignNode, node: BuiltNode, catalog: Catalog) -> list[tuple[str, Gpu, BuiltGpu | None]]:
    """(design GPU instance, its type, the as-built GPU or None when missing)."""
    lay = expand_tray(dn.tray, catalog)
    insts = lay.of_kind("gpu")
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
    return out


def _module(matched, name: str) -> int:
    return [n for n, _, _ in matched].index(name) + 1


def _missing_cost(dn: DesignNode, n: int) -> str:
    have = dn.gpus - n
    if dn.domain_scope == "tray":
        return (f"the node's NVLink domain has {have} of {dn.gpus} GPUs: jobs placing "
                f"{dn.gpus} GPUs per node cannot use this node (its {have} GPUs idle for them)")
    return f"{n} GPU(s) absent: the tray serves {have} of {dn.gpus} GPUs"


def _pcie(dn, name, label, g: BuiltGpu, catalog, f) -> None:
    links = gpu_pcie_links(dn.tray, catalog, name)
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
    before, after = nic_path_gbit_s(dn.tray, catalog, name, gen, width)
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
    if g.nvlinks_active >= want:
        return
    per = part.scale_up.link_gbyte_s
    tag = "nvlink" if "nvlink" in (g.nvlink_source or "") else "nccl"
    src = next((p for p in node.files if tag in p.rsplit("/", 1)[-1]), node.files[0])
    f("error", "nvlink-inactive", label, f"{want} active NVLinks",
      f"{g.nvlinks_active} active" + (f", {g.nvlinks_inactive} inactive" if g.nvlinks_inactive else ""),
      f"NVLink bandwidth drops from {want * per:g} to {g.nvlinks_active * per:g} GB/s per "
      f"direction; collectives over the domain run at the slowest GPU's rate", src)


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
