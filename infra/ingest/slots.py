"""Design identities the diff maps an inventory onto: every compute tray of a design
with its rack, U, host name and NVLink domain.

A thin view of :func:`infra.analysis.layout.identity.node_identities` (the one place that names
a design's machines, shared with the exports), adding what the diff needs: the tray
type, its GPU count and the scope of its NVLink domain.

Examples
--------
>>> from infra.models.resolve import load_design
>>> from pathlib import Path
>>> rd = load_design(Path(__file__).resolve().parents[2] / "designs/gb200_nvl72.yaml")
>>> nodes = design_nodes(rd)
>>> n = nodes[10]  # below the 9 switch trays: 48U - 2 - 4 - 10 - 9 = U23
>>> n.host, n.rack, n.u, n.domain, n.domain_scope
('r001n11', 'r0', 23, 'r0', 'rack')
"""

from __future__ import annotations

from dataclasses import dataclass

from infra.analysis.layout.identity import DEFAULT_HOST_PATTERN, node_identities
from infra.models.expand import expand_tray
from infra.models.resolve import ResolvedDesign
from infra.models.systems import ComputeTray

__all__ = ["DEFAULT_HOST_PATTERN", "DesignNode", "design_nodes"]


@dataclass(frozen=True)
class DesignNode:
    host: str
    rack: str  # design rack path, e.g. su0/r3
    rack_no: int  # 1-based, build order
    u: int | None  # lowest U the tray occupies
    tray_no: int  # 1-based compute tray number inside the rack (top first)
    slot: str  # node path, as in the cabling plan: su0/r3/t1
    tray: ComputeTray
    domain: str  # NVLink domain id
    domain_scope: str  # rack (NVL72, NVL36x2) | tray (HGX baseboard) | none
    group: str  # fabric group (scalable unit) of the first fabric, else cluster
    gpus: int
    # 1-based numbers a site's host names may carry (infra.ingest.hostmap)
    index: int = 0  # node in build order
    domain_no: int = 0  # scale-up domain in build order
    domain_node: int = 0  # node in its domain
    group_no: int = 0  # fabric group (scalable unit) in build order
    group_node: int = 0  # node in its group

    def number(self, field: str) -> int | None:
        """The 1-based number ``field`` (:data:`infra.ingest.hostmap.FIELDS`) of this node."""
        return {"index": self.index, "rack": self.rack_no, "slot": self.tray_no, "u": self.u,
                "domain": self.domain_no, "domain_node": self.domain_node,
                "group": self.group_no, "group_node": self.group_node}.get(field)


def _switchless_mesh(lay) -> bool:
    """The tray's GPUs form a scale-up mesh among themselves (no switch): the domain is
    the tray, and each GPU's links to its peers are checked like NVLinks."""
    gpus = lay.of_kind("gpu")
    up = getattr(gpus[0].part, "scale_up", None) if gpus else None
    return up is not None and getattr(up, "topology", None) == "mesh"


def design_nodes(rd: ResolvedDesign, host_pattern: str = DEFAULT_HOST_PATTERN) -> list[DesignNode]:
    """Every compute tray of ``rd`` in build order, named by ``host_pattern``
    (fields of :data:`infra.analysis.layout.identity.PATTERN_FIELDS`)."""
    out = []
    groups: dict[str, int] = {}
    in_group: dict[str, int] = {}
    for ni in node_identities(rd, host_pattern):
        tray: ComputeTray = rd.catalog.get(ni.tray)  # type: ignore[assignment]
        lay = expand_tray(tray, rd.catalog)
        if rd.layouts[ni.layout].count("nvlink_switch_tray"):
            scope = "rack"
        elif lay.count("nvlink_switch_chip") or _switchless_mesh(lay):
            scope = "tray"  # an HGX baseboard, or GPUs wired to each other (MI300X UBB)
        else:
            scope = "none"
        group = ni.groups[0][1] if ni.groups else "cluster"
        group_no = groups.setdefault(group, len(groups) + 1)
        in_group[group] = in_group.get(group, 0) + 1
        out.append(DesignNode(ni.name, ni.rack, ni.rack_index + 1, ni.u, ni.slot + 1, ni.path,
                              tray, ni.domain, scope, group, lay.count("gpu"), ni.index + 1,
                              ni.domain_index + 1, ni.domain_node + 1, group_no,
                              in_group[group]))
    return out
