"""Fabric checks: every discovered adapter-to-leaf cable against the cabling plan.

Expected cables come from :func:`infra.analysis.cabling.cabling_plan` (node port
``p(k+1)`` = the node's k-th adapter on this fabric, ordered by the number in its name:
``mlx5_0`` < ``mlx5_1``, ``HCA-1`` < ``HCA-2``). Discovered switches carry site names,
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

from infra.analysis.cabling import cabling_plan
from infra.analysis.fabric import design_fabrics
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
    by_slot = {dn.slot: dn for dn in nodes.values()}
    src = inv.fabric.file
    out: list[Finding] = []
    per_node = Counter(p.host for p in inv.ports)
    complete = {h for h, n in per_node.items() if n == fab.ports_per_node}
    ident = _identify(inv, nodes, plan, complete)
    numbers = _port_numbers(inv, nodes, plan, ident, complete)
    seen: set[tuple[str, int]] = set()
    for p in inv.ports:
        dn = nodes.get(p.host)
        if dn is None:
            continue
        port_no = numbers[(p.host, p.adapter_guid)]
        seen.add((dn.slot, port_no))
        want = plan.get((dn.slot, port_no))
        hca = f"HCA {port_no} ({p.hca})" if p.hca else f"HCA {port_no}"
        leaf = ident.get(p.switch, p.switch_name)
        where = f"leaf {leaf} (\"{inv.fabric.switches[p.switch].description}\") port {p.switch_port}"
        if want is None:
            out.append(Finding("warning", "cable-unplanned", dn.rack, dn.u, dn.host, None, where,
                               f"{fab.ports_per_node} fabric ports per node",
                               f"{hca} cabled to {where}", "a port the plan does not have", src))
            continue
        if leaf != want[0]:
            out.append(Finding("error", "cable-wrong-leaf", dn.rack, dn.u, dn.host, None, where,
                               f"{dn.host} {hca} on leaf {want[0]} port {want[1]}",
                               f"on {where}",
                               f"rail {port_no - 1} traffic of {dn.host} lands on another leaf "
                               "and crosses the spine tier (2 more switch hops) for every peer "
                               "on its own rail", src))
        elif p.switch_port != want[1]:
            out.append(Finding("warning", "cable-wrong-port", dn.rack, dn.u, dn.host, None, where,
                               f"{dn.host} {hca} on leaf {want[0]} port {want[1]}",
                               f"leaf {leaf} port {p.switch_port}",
                               "no bandwidth lost (same leaf), but the port map, monitoring "
                               "labels and cable records disagree with the plan", src))
        if p.gbit_s is not None and p.gbit_s < fab.link_gbit_s - 1e-6:
            out.append(Finding("error", "link-degraded", dn.rack, dn.u, dn.host, None, where,
                               f"{fab.link_gbit_s:g} Gb/s", f"{p.width}x{p.speed} = {p.gbit_s:g} Gb/s",
                               f"{hca} runs at {p.gbit_s:g} instead of {fab.link_gbit_s:g} Gb/s: "
                               f"the GPU on rail {port_no - 1} loses "
                               f"{fab.link_gbit_s - p.gbit_s:g} Gb/s of scale-out", src))
    hosts = {p.host for p in inv.ports}
    for (slot, port_no), (leaf, lport) in sorted(plan.items()):
        dn = by_slot.get(slot)
        if dn and dn.host in hosts and (slot, port_no) not in seen:
            out.append(Finding("error", "link-missing", dn.rack, dn.u, dn.host, None,
                               f"leaf {leaf} port {lport}", f"HCA {port_no} cabled to leaf "
                               f"{leaf} port {lport}", "no link in ibnetdiscover",
                               f"rail {port_no - 1} of {dn.host} is down: its GPU has no "
                               "scale-out port of its own", src))
    for ad in inv.unmapped_adapters:
        out.append(Finding("warning", "adapter-unmapped", None, None, None, None, f"GUID 0x{ad.guid}",
                           "a NodeDescription \"<host> <hca>\" or a guid-map.txt entry",
                           f"\"{ad.description}\"", "this adapter's cable cannot be checked "
                           "against the plan; add the GUID to guid-map.txt", src))
    table = [(g, inv.fabric.switches[g].description, leaf) for g, leaf in sorted(ident.items())]
    return out, table, []


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
