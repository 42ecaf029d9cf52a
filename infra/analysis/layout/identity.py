"""Node identities: every compute tray of a design, in build order, with where it sits.

The one place that names the machines of a design, so exports (Slurm, Kubernetes,
NetBox, cabling) and the ingest of live inventory agree on which host is which.

Conventions (stable: the same design always gives the same names)
------------------------------------------------------------------
- **Build order.** ``build:`` entries in file order; inside a pod, its sub-pods first
  (file order, each repeated ``count`` times), then its racks (file order). A pod
  instance's path is ``<pod><i>`` under its parent (``superpod0/su_first0``); racks are
  ``r<k>`` under their pod instance (``su0/r3``), or ``r<k>`` at the top for racks built
  directly (``r0`` .. ``r511``); trays are ``t<j>`` in their rack (``su0/r3/t5``), in the
  order the rack layout lists them (top to bottom).
- **Scale-up domain.** A rack with NVLink switch trays is a domain (id = rack path); with
  ``scale_up.racks_per_domain: R`` consecutive racks of one layout in a pod instance form
  domain ``<pod path>/d<k>`` and each rack is a sub-domain. A tray outside such racks is
  its own domain (id = tray path): an HGX baseboard, or a GPU server with no NVLink.
- **Fabric group** (per fabric): the innermost pod instance named in the fabric's
  ``group:``, else ``cluster``; **leaves**: the first-tier switches the node's ports are
  cabled to (:mod:`infra.analysis.network.attach`), in port order.
- **Host names** come from a pattern (:data:`DEFAULT_HOST_PATTERN`, Python format syntax)
  with these 1-based fields: ``index`` (node in build order), ``rack`` (rack in build
  order, over every rack of the design), ``slot`` (tray in its rack), ``u`` (lowest U,
  0 for none), ``domain`` and ``domain_node`` (domain in build order, node in it).
  Names must be RFC 1123 host labels (lower-case letters, digits, ``-``; at most 63
  characters) and unique.

Examples
--------
>>> from infra.models.resolve import load_design
>>> ids = node_identities(load_design("designs/aws_nvl36x2.yaml"))
>>> len(ids), ids[0].name, ids[0].path, ids[0].u, ids[0].domain, ids[0].sub_domain
(18, 'r001n01', 'ultraserver0/r0/t0', 44, 'ultraserver0/d0', 'ultraserver0/r0')
>>> ids[9].name, ids[9].rack, ids[9].domain_node
('r002n01', 'ultraserver0/r1', 9)
>>> node_identities(load_design("designs/dgx_h100_su.yaml"), "dgx{index:03d}")[31].name
'dgx032'
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass

from infra.analysis.layout.elevation import unit_positions
from infra.errors import DesignError
from infra.models.resolve import ResolvedDesign

DEFAULT_HOST_PATTERN = "r{rack:03d}n{slot:02d}"
PATTERN_FIELDS = ("index", "rack", "slot", "u", "domain", "domain_node")
_HOST = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


@dataclass(frozen=True)
class RackInstance:
    """One rack of the design in build order."""

    index: int  # 0-based, over every rack
    path: str  # e.g. "su0/r3"
    layout: str  # the design's rack layout name
    pods: tuple[tuple[str, str], ...]  # (pod name, pod instance path), outermost first


@dataclass(frozen=True)
class NodeIdentity:
    """One compute tray (one OS node) of the design."""

    index: int  # 0-based build order
    name: str  # host name from the pattern
    path: str  # "<rack path>/t<slot>"
    rack: str  # rack path
    rack_index: int  # 0-based, over every rack
    layout: str
    slot: int  # 0-based tray number in the rack
    u: int | None  # lowest U the tray occupies (None: 0U)
    tray: str  # tray type slug
    domain: str  # scale-up domain id
    domain_index: int  # 0-based, in build order
    domain_node: int  # 0-based node number inside the domain
    sub_domain: str | None  # the rack, when the domain spans several racks
    groups: tuple[tuple[str, str], ...] = ()  # (fabric, group instance path)
    leaves: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (fabric, first-tier switches)

    def group(self, fabric: str) -> str | None:
        """The node's group instance in ``fabric`` (None if it is not attached)."""
        return dict(self.groups).get(fabric)


def rack_instances(rd: ResolvedDesign) -> list[RackInstance]:
    """Every rack of ``rd`` in build order (see the module conventions)."""
    out: list[RackInstance] = []

    def pod(name: str, path: str, stack: tuple) -> None:
        p = rd.design.pods[name]
        stack = stack + ((name, path),)
        for sub, n in p.pods.items():
            for i in range(n):
                visit(sub, f"{path}/{sub}{i}", stack)
        k = 0
        for r, n in p.racks.items():
            for _ in range(n):
                out.append(RackInstance(len(out), f"{path}/r{k}", r, stack))
                k += 1

    def visit(name: str, path: str, stack: tuple) -> None:
        if name in rd.design.pods:
            pod(name, path, stack)
        else:
            out.append(RackInstance(len(out), path, name, stack))

    top = 0
    for name, n in rd.design.build.items():
        for i in range(n):
            if name in rd.design.pods:
                pod(name, f"{name}{i}", ())
            else:
                visit(name, f"r{top}", ())
                top += 1
    return out


def node_identities(rd: ResolvedDesign, pattern: str = DEFAULT_HOST_PATTERN,
                    fabrics: bool = True) -> list[NodeIdentity]:
    """Every compute tray of ``rd`` in build order, named by ``pattern``.

    Parameters
    ----------
    rd : ResolvedDesign
    pattern : str
        Host-name pattern (fields: :data:`PATTERN_FIELDS`, 1-based).
    fabrics : bool
        Also fill ``groups`` and ``leaves`` from the design's fabrics.

    Returns
    -------
    list of NodeIdentity

    Raises
    ------
    DesignError
        The pattern names an unknown field, or gives invalid or repeated host names.

    Notes
    -----
    Cost is linear in the number of nodes (an export is per node by nature).
    """
    _check_pattern(pattern)
    racks = rack_instances(rd)
    nodes: list[NodeIdentity] = []
    domain = _DomainCounter(rd)
    per_layout: dict[str, tuple[list, bool]] = {}  # layout -> (compute trays, has NVLink switches)
    for rack in racks:
        got = per_layout.get(rack.layout)
        if got is None:
            lay = rd.layouts[rack.layout]
            got = per_layout[rack.layout] = (
                [(item, pos) for item, pos in unit_positions(lay) if item.part.kind == "compute_tray"],
                bool(lay.count("nvlink_switch_tray")))
        trays, switched = got
        dom_rack = domain.of_rack(rack) if switched else None
        for slot, (item, pos) in enumerate(trays):
            if dom_rack is None:
                did, sub = f"{rack.path}/t{slot}", None
                di, dn = domain.new(did), 0
            else:
                did, sub, rank = dom_rack
                di, dn = domain.index[did], rank * len(trays) + slot
            fields = {"index": len(nodes) + 1, "rack": rack.index + 1, "slot": slot + 1,
                      "u": pos or 0, "domain": di + 1, "domain_node": dn + 1}
            nodes.append(NodeIdentity(len(nodes), pattern.format(**fields), f"{rack.path}/t{slot}",
                                      rack.path, rack.index, rack.layout, slot, pos, item.part.slug,
                                      did, di, dn, sub))
    _check_names(nodes, pattern)
    if fabrics and rd.design.fabrics:
        nodes = _with_fabrics(rd, nodes, {r.path: r for r in racks})
    return nodes


class _DomainCounter:
    """Domain ids in build order; multi-rack domains from consecutive racks of a pod."""

    def __init__(self, rd: ResolvedDesign) -> None:
        self.rd = rd
        self.index: dict[str, int] = {}
        self.seen: dict[tuple[str, str], int] = {}  # (pod path, layout) -> racks seen

    def new(self, did: str) -> int:
        self.index[did] = len(self.index)
        return self.index[did]

    def of_rack(self, rack: RackInstance) -> tuple[str, str | None, int]:
        pod_name, pod_path = rack.pods[-1] if rack.pods else (None, None)
        su = self.rd.design.pods[pod_name].scale_up if pod_name else None
        rpd = su.racks_per_domain if su else 1
        if rpd == 1:
            self.new(rack.path)
            return rack.path, None, 0
        key = (pod_path, rack.layout)
        k = self.seen.get(key, 0)
        self.seen[key] = k + 1
        did = self._domain_id(pod_name, pod_path, rack.layout, k // rpd)
        if k % rpd == 0:
            self.new(did)
        return did, rack.path, k % rpd

    def _domain_id(self, pod_name: str, pod_path: str, layout: str, k: int) -> str:
        switched = [r for r in self.rd.design.pods[pod_name].racks
                    if self.rd.layouts[r].count("nvlink_switch_tray")]
        if len(switched) == 1:
            return f"{pod_path}/d{k}"
        return f"{pod_path}/{layout}.d{k}"


def _with_fabrics(rd: ResolvedDesign, nodes: list[NodeIdentity], racks: dict) -> list[NodeIdentity]:
    from infra.analysis.network.attach import leaf_names
    from infra.analysis.network.fabric import design_fabrics

    groups: dict[int, list] = {n.index: [] for n in nodes}
    leaves: dict[int, list] = {n.index: [] for n in nodes}
    for f in design_fabrics(rd):
        names = {g.strip() for g in (f.spec.group or "").split(",") if g.strip()}
        on: dict[str, bool] = {}  # per tray type
        group_of: dict[str, str] = {}  # per rack
        attached = []
        pairs = []
        for n in nodes:
            ok = on.get(n.tray)
            if ok is None:
                ok = on[n.tray] = _on_fabric(rd, n.tray, f)
            if not ok:
                continue
            g = group_of.get(n.rack)
            if g is None:
                g = group_of[n.rack] = next(
                    (path for name, path in reversed(racks[n.rack].pods) if name in names), "cluster")
            attached.append(n)
            pairs.append((n.rack, g))
            groups[n.index].append((f.name, g))
        for n, att in zip(attached, leaf_names(f, pairs)):
            leaves[n.index].append((f.name, att))
    for n in nodes:  # filled in place: these frozen records are not yet anyone else's
        object.__setattr__(n, "groups", tuple(groups[n.index]))
        object.__setattr__(n, "leaves", tuple(leaves[n.index]))
    return nodes


def _on_fabric(rd: ResolvedDesign, tray: str, f) -> bool:

    lay = rd.tray_layout(tray)
    return any(i.component.network in f.spec.networks for i in lay.of_kind("nic"))


_SPEC = re.compile(r"0?([1-9]\d?)?[dx]?")  # e.g. 03d, x, 2: a width under 64, d or x


def _check_pattern(pattern: str) -> None:
    """A host-name pattern is literal text and ``{field}`` or ``{field:SPEC}``: a field of
    :data:`PATTERN_FIELDS` (no attribute, index or ``!`` conversion) and a spec of an
    optional ``0``, a width under 64 and ``d`` or ``x``, so no name is built that could
    not be a host name (and none of gigabytes)."""
    try:
        parts = list(string.Formatter().parse(pattern))
    except ValueError as exc:
        raise DesignError(f"host-name pattern {pattern!r}: {exc}",
                          hint="write fields as {rack:03d}") from None
    names = []
    shortest = 0  # the fewest characters a name of this pattern can have
    for literal, field, spec, conv in parts:
        shortest += len(literal)
        if field is None:
            continue
        if field not in PATTERN_FIELDS:
            raise DesignError(f"host-name pattern {pattern!r} names unknown field {field!r}",
                              hint=f"fields: {', '.join(PATTERN_FIELDS)} (no '.', '[' or '!')")
        m = _SPEC.fullmatch(spec or "")
        if conv is not None or m is None or (m.group(1) and int(m.group(1)) > 63):
            shown = "{" + field + (f"!{conv}" if conv else "") + (f":{spec}" if spec else "") + "}"
            raise DesignError(f"host-name pattern {pattern!r}: {shown!r} is not a field "
                              "format this pattern takes",
                              hint="write {field}, {field:03d} or {field:x}, a width under 64")
        names.append(field)
        shortest += max(int(m.group(1) or 1), 1)
    if shortest > 63:
        raise DesignError(f"host-name pattern {pattern!r} gives names of at least {shortest} "
                          "characters; a host name has at most 63",
                          hint="shorten the literal text or the field widths")
    if not names:
        raise DesignError(f"host-name pattern {pattern!r} has no field, so every node would "
                          "get the same name", hint="add {index} or {rack} and {slot}")


def _check_names(nodes: list[NodeIdentity], pattern: str) -> None:
    seen: dict[str, str] = {}
    for n in nodes:
        if len(n.name) > 63 or not _HOST.match(n.name):
            raise DesignError(f"host-name pattern {pattern!r} gives {n.name!r} for {n.path}, not "
                              "a valid host name", hint="use lower-case letters, digits and '-', "
                              "at most 63 characters, starting and ending with a letter or digit")
        if n.name in seen:
            raise DesignError(f"host-name pattern {pattern!r} gives {n.name!r} to both "
                              f"{seen[n.name]} and {n.path}",
                              hint="include {index}, or {rack} and {slot}")
        seen[n.name] = n.path
