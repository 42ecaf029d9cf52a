"""Design identities the diff maps an inventory onto: every compute tray of a design
with its rack, U, host name and NVLink domain.

Rack, U and node order come from :func:`infra.analysis.cabling.node_slots` (build
order; a rack's contents top to bottom), so the diff and the cabling plan agree. Host
names follow a pattern (default ``r{rack:02d}-t{tray:02d}``: rack number in build order
and compute-tray number inside the rack, both from 1). This module is kept small so a
shared node-identity module can replace it.

Examples
--------
>>> from infra.models.resolve import load_design
>>> from pathlib import Path
>>> rd = load_design(Path(__file__).resolve().parents[2] / "designs/gb200_nvl72.yaml")
>>> nodes = design_nodes(rd)
>>> n = nodes[10]  # below the 9 switch trays: 48U - 2 - 4 - 10 - 9 = U23
>>> n.host, n.rack, n.u, n.domain, n.domain_scope
('r01-t11', 'nvl720', 23, 'nvl720', 'rack')
"""

from __future__ import annotations

from dataclasses import dataclass

from infra.analysis.cabling import node_slots
from infra.analysis.elevation import unit_positions
from infra.errors import DesignError
from infra.models.expand import expand_tray
from infra.models.resolve import ResolvedDesign
from infra.models.systems import ComputeTray

DEFAULT_HOST_PATTERN = "r{rack:02d}-t{tray:02d}"


@dataclass(frozen=True)
class DesignNode:
    host: str
    rack: str  # design rack path, e.g. su0/r3
    rack_no: int  # 1-based, build order
    u: int | None  # lowest U the tray occupies
    tray_no: int  # 1-based compute tray number inside the rack (top first)
    slot: str  # node name in the cabling plan, e.g. su0/r3/t1
    tray: ComputeTray
    domain: str  # NVLink domain id
    domain_scope: str  # rack (NVL72, NVL36x2) | tray (HGX baseboard) | none
    group: str  # fabric group (scalable unit) from the cabling plan
    gpus: int


def design_nodes(rd: ResolvedDesign, host_pattern: str = DEFAULT_HOST_PATTERN,
                 groups: set[str] | None = None) -> list[DesignNode]:
    """Every compute tray of ``rd`` in build order, named by ``host_pattern``.

    Parameters
    ----------
    rd : ResolvedDesign
    host_pattern : str
        ``str.format`` pattern with ``rack`` (1-based rack number), ``tray`` (1-based
        tray number in the rack) and ``node`` (1-based over the cluster).
    groups : set of str, optional
        Pod names whose instances are fabric groups (``fabrics.*.group``).
    """
    if groups is None:
        groups = {g.strip() for f in rd.design.fabrics.values() for g in (f.group or "").split(",")
                  if g.strip()}
    racks = _racks(rd)
    out: list[DesignNode] = []
    rack_no: dict[str, int] = {}
    tray_no: dict[str, int] = {}
    for i, s in enumerate(node_slots(rd, groups)):
        rack_no.setdefault(s.rack, len(rack_no) + 1)
        tray_no[s.rack] = tray_no.get(s.rack, 0) + 1
        layout, domain = racks[s.rack]
        tray = _trays(rd, layout)[tray_no[s.rack] - 1]
        scope = "rack" if rd.layouts[layout].count("nvlink_switch_tray") else "none"
        lay = expand_tray(tray, rd.catalog)
        if scope == "none" and lay.count("nvlink_switch_chip"):
            scope, domain = "tray", s.node
        try:
            host = host_pattern.format(rack=rack_no[s.rack], tray=tray_no[s.rack], node=i + 1)
        except (KeyError, IndexError, ValueError) as exc:
            raise DesignError(f"host-name pattern {host_pattern!r}: {exc}",
                              hint="use the fields {rack}, {tray} and {node}") from None
        out.append(DesignNode(host, s.rack, rack_no[s.rack], s.u, tray_no[s.rack], s.node, tray,
                              domain if scope != "none" else s.node, scope, s.group,
                              lay.count("gpu")))
    return out


def _trays(rd: ResolvedDesign, layout: str) -> list[ComputeTray]:
    return [item.part for item, _ in unit_positions(rd.layouts[layout])  # type: ignore[misc]
            if item.part.kind == "compute_tray"]


def _racks(rd: ResolvedDesign) -> dict[str, tuple[str, str]]:
    """Rack path -> (layout, NVLink domain id), walked in node_slots' order."""
    out: dict[str, tuple[str, str]] = {}

    def visit(name: str, path: str) -> None:
        if name in rd.design.racks:
            out[path] = (name, path)
            return
        pod = rd.design.pods[name]
        rpd = pod.scale_up.racks_per_domain if pod.scale_up else 1
        for sub, n in pod.pods.items():
            for i in range(n):
                visit(sub, f"{path}/{sub}{i}")
        k = 0
        for r, n in pod.racks.items():
            for j in range(n):
                out[f"{path}/r{k}"] = (r, f"{path}/{r}{j // rpd}")
                k += 1

    for name, n in rd.design.build.items():
        for i in range(n):
            visit(name, f"{name}{i}")
    return out
