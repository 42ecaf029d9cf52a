"""Fabric checks: every discovered adapter-to-leaf cable against the cabling plan.

Expected cables come from :func:`infra.analysis.layout.cabling.cabling_plan` (node port
``p(k+1)`` = the node's k-th adapter on this fabric, ordered by the number in its name:
``mlx5_0`` < ``mlx5_1``, ``HCA-1`` < ``HCA-2``). Where a system's device numbering does
not follow its rails, name the adapters in rail order in ``guid-map.txt``
(``0x<guid> "r001n01 rail0"``): the map overrides NodeDescriptions. Discovered switches carry site names,
not design names, so each switch is identified with the design leaf most of its
adapter cables are planned for (a vote; ties go to the lower name); the identification
is reported. A host whose adapters are not all visible (one down, or unmapped) is
numbered by the leaves its cables reach instead, so one lost adapter does not shift
the others. Then a cable on another leaf is an error (its rail's traffic crosses the
spine), on the right leaf but another port a warning (no bandwidth lost, the port map
is wrong), and a link below the design's rate an error. Leaf-to-spine cables are not
checked in this version.
"""

from __future__ import annotations

from collections import Counter

from infra.analysis.layout.cabling import cabling_plan
from infra.analysis.network.fabric import design_fabrics
from infra.ingest.findings import Finding
from infra.ingest.model import Inventory
from infra.ingest.slots import DesignNode
from infra.models.resolve import ResolvedDesign


def fabric_findings(rd: ResolvedDesign, inv: Inventory, nodes: dict[str, DesignNode]
                    ) -> tuple[list[Finding], list[tuple[str, str, str]], list[str]]:
    """(findings, switch identification rows, notes)."""
    if inv.fabric is None:
        return [], [], []
    fab = next((f for f in design_fabrics(rd)
                if set(f.spec.networks) & {"scale_out", "converged"}), None)
    if fab is None:
        return [], [], ["the inventory has ibnetdiscover output but the design has no scale-out fabric"]
    rows = [r for r in cabling_plan(rd, fab) if r.get("from_port", "").startswith("p")]
    if not rows:
        return [], [], [f"fabric {fab.name}: above the cabling-plan limit; cables not checked"]
    plan = {(r["from_device"], int(r["from_port"][1:])): (r["to_device"], r["to_port"]) for r in rows}
    per_node = Counter(p.host for p in inv.ports)
    complete = {h for h, n in per_node.items() if n == fab.ports_per_node}
    ident = _identify(inv, nodes, plan, complete)
    numbers = _port_numbers(inv, nodes, plan, ident, complete)
    out: list[Finding] = []
    seen: set[tuple[str, int]] = set()
    for p in inv.ports:
        dn = nodes.get(p.host)
        if dn is not None:
            port_no = numbers[(p.host, p.adapter_guid)]
            seen.add((dn.slot, port_no))
            out += _cable(p, dn, port_no, plan.get((dn.slot, port_no)), ident, fab, inv)
    out += _missing(plan, nodes, {p.host for p in inv.ports}, seen, fab, inv.fabric.file)
    for ad in inv.unmapped_adapters:
        out.append(Finding("warning", "adapter-unmapped", None, None, None, None, f"GUID 0x{ad.guid}",
                           "a NodeDescription \"<host> <hca>\" or a guid-map.txt entry",
                           f"\"{ad.description}\"", "this adapter's cable cannot be checked "
                           "against the plan; add the GUID to guid-map.txt", inv.fabric.file))
    table = [(g, inv.fabric.switches[g].description, leaf) for g, leaf in sorted(ident.items())]
    return out, table, []


def _lane(fab, port_no: int) -> str:
    """What a node port carries: a rail in a rail-optimized fabric, else the port."""
    return f"rail {port_no - 1}" if fab.spec.kind == "rail_optimized" else f"port p{port_no}"


def _cable(p, dn: DesignNode, port_no: int, want, ident, fab, inv: Inventory) -> list[Finding]:
    """Findings of one discovered adapter cable against its planned (leaf, port)."""
    src = inv.fabric.file  # type: ignore[union-attr]
    hca = f"HCA {port_no} ({p.hca})" if p.hca else f"HCA {port_no}"
    leaf = ident.get(p.switch, p.switch_name)
    desc = inv.fabric.switches[p.switch].description  # type: ignore[union-attr]
    where = f"leaf {leaf} (\"{desc}\") port {p.switch_port}"

    def f(sev, check, expected, found, cost) -> Finding:
        return Finding(sev, check, dn.rack, dn.u, dn.host, None, where, expected, found, cost, src)

    if want is None:
        return [f("warning", "cable-unplanned", f"{fab.ports_per_node} fabric ports per node",
                  f"{hca} cabled to {where}", "a port the plan does not have")]
    out = []
    if leaf != want[0]:
        out.append(f("error", "cable-wrong-leaf", f"{dn.host} {hca} on leaf {want[0]} port {want[1]}",
                     f"on {where}", f"{_lane(fab, port_no)} traffic of {dn.host} lands on another "
                     "leaf and crosses the spine tier (2 more switch hops) for every peer the "
                     "plan puts on its own leaf"))
    elif p.switch_port != want[1]:
        out.append(f("warning", "cable-wrong-port", f"{dn.host} {hca} on leaf {want[0]} port {want[1]}",
                     f"leaf {leaf} port {p.switch_port}", "no bandwidth lost (same leaf), but the "
                     "port map, monitoring labels and cable records disagree with the plan"))
    if p.gbit_s is not None and p.gbit_s < fab.link_gbit_s - 1e-6:
        out.append(f("error", "link-degraded", f"{fab.link_gbit_s:g} Gb/s",
                     f"{p.width}x{p.speed} = {p.gbit_s:g} Gb/s",
                     f"{hca} runs at {p.gbit_s:g} instead of {fab.link_gbit_s:g} Gb/s: "
                     f"{_lane(fab, port_no)} of {dn.host} loses {fab.link_gbit_s - p.gbit_s:g} Gb/s "
                     "of scale-out"))
    return out


def _missing(plan, nodes: dict[str, DesignNode], hosts: set[str], seen, fab, src: str) -> list[Finding]:
    """Planned cables of hosts seen in the fabric that the dump does not show."""
    by_slot = {dn.slot: dn for dn in nodes.values()}
    out = []
    for (slot, port_no), (leaf, lport) in sorted(plan.items()):
        dn = by_slot.get(slot)
        if dn and dn.host in hosts and (slot, port_no) not in seen:
            out.append(Finding("error", "link-missing", dn.rack, dn.u, dn.host, None,
                               f"leaf {leaf} port {lport}", f"HCA {port_no} cabled to leaf "
                               f"{leaf} port {lport}", "no link in ibnetdiscover",
                               f"{_lane(fab, port_no)} of {dn.host} is down: that port's GPU has "
                               "no scale-out port of its own", src))
    return out


def _port_numbers(inv: Inventory, nodes, plan, ident: dict[str, str], complete: set[str]
                  ) -> dict[tuple[str, str], int]:
    """(host, adapter GUID) -> node port number.

    A host with all its adapters visible numbers them by name order. A host with fewer
    (an adapter down or unmapped) cannot: the order would shift, so each visible adapter
    takes the planned port of the leaf its switch was identified as, where there is one.
    """
    out: dict[tuple[str, str], int] = {}
    for p in inv.ports:
        dn = nodes.get(p.host)
        out[(p.host, p.adapter_guid)] = p.hca_rank + 1
        if dn is None or p.host in complete or p.switch not in ident:
            continue
        for (slot, port_no), (leaf, _) in plan.items():
            if slot == dn.slot and leaf == ident[p.switch]:
                out[(p.host, p.adapter_guid)] = port_no
                break
    return out


def _identify(inv: Inventory, nodes: dict[str, DesignNode], plan, complete: set[str]
              ) -> dict[str, str]:
    """Switch GUID -> design leaf, by the vote of the cables planned to it from hosts
    whose adapters are all visible."""
    votes: dict[str, Counter] = {}
    for p in inv.ports:
        if p.host not in complete:
            continue
        dn = nodes.get(p.host)
        want = plan.get((dn.slot, p.hca_rank + 1)) if dn else None
        if want:
            votes.setdefault(p.switch, Counter())[want[0]] += 1
    out: dict[str, str] = {}
    taken: set[str] = set()
    ranked = sorted(((-c, leaf, sw) for sw, cnt in votes.items() for leaf, c in cnt.items()))
    for _, leaf, sw in ranked:
        if sw not in out and leaf not in taken:
            out[sw] = leaf
            taken.add(leaf)
    return out
