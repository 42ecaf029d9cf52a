"""What one inventory capture shows, as the history store keeps it: a flat list of
parts, each with a stable identity (``asset``), a position (``host`` + ``slot``) and the
attributes whose change is worth a record (product, serial, firmware, driver, cabling).

Parts and their identities
--------------------------
host    the host name; attributes: driver version, the design tray, rack, U and slot it
        maps to through the host pattern, and ``parts``: per-host counts of the parts the
        dumps cannot see one by one (CPUs, PCIe switches, a share of the rack's NVLink
        switch trays, power shelves and cooling units), read from the design, for the
        exposure behind failure rates.
gpu     UUID (else serial + module id); slot ``gpu module N``; serial, product, VBIOS.
nic     port GUID (adapters named by ibnetdiscover or NCCL), else host + device name.
switch  node GUID; slot: the switch name from its NodeDescription.
link    ``<switch name>/<port>``; attributes: the far end (host and HCA, or a switch).

Operational state (PCIe link speed, NVLink link state, fabric state) is not kept: it
changes without anything being installed and ``infra diff`` reports it.

Examples
--------
>>> from pathlib import Path
>>> from infra.ingest.inventory import load_inventory
>>> root = Path(__file__).resolve().parents[2] / "tests/fixtures/inventory/hgx-h100"
>>> st = from_inventory(load_inventory(root))
>>> sorted({c.kind for c in st.components}), len(st.hosts), st.fabric
(['gpu', 'host', 'link', 'nic', 'switch'], 8, True)
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from infra.ingest.model import Inventory

KINDS = ("host", "gpu", "nic", "switch", "link")
# design kinds counted per host for exposure: in the tray, and a share of the rack's
TRAY_PART_KINDS = ("cpu", "superchip", "pcie_switch", "nic", "gpu")
RACK_PART_KINDS = ("nvlink_switch_tray", "power_shelf", "pdu", "cooling_unit", "tor_switch")


@dataclass(frozen=True)
class Component:
    kind: str
    asset: str
    host: str | None
    rack: str | None
    slot: str
    attrs: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def position(self) -> tuple[str, str, str]:
        return (self.kind, self.host or "", self.slot)

    def attrs_json(self) -> str:
        return json.dumps(self.attrs, sort_keys=True, separators=(",", ":"))

    def as_dict(self) -> dict:
        return {"kind": self.kind, "asset": self.asset, "host": self.host, "rack": self.rack,
                "slot": self.slot, "attrs": self.attrs}


@dataclass(frozen=True)
class State:
    """One capture: its parts, and what it covers (hosts seen; the fabric or not)."""

    components: tuple[Component, ...]
    hosts: frozenset[str]
    fabric: bool
    source: str = "<state>"
    nic_hosts: frozenset[str] | None = None  # hosts whose adapters a dump lists (None: all)

    def in_scope(self, kind: str, host: str | None) -> bool:
        """Whether this capture would have seen a part of ``kind`` on ``host``."""
        if kind in ("switch", "link"):
            return self.fabric
        if kind == "nic" and self.nic_hosts is not None:
            return host in self.nic_hosts
        return host in self.hosts


def design_map(design: Path | str | None, host_pattern: str | None = None,
               catalog=None, host_map=None, every_name: bool = False) -> dict[str, dict]:
    """Host name -> rack, slot path, U, tray and per-host part counts, from ``design``.

    ``host_map`` (:mod:`infra.ingest.hostmap`, ``--host-regex`` / ``--host-map``): the
    site's names key the nodes it names (:func:`infra.ingest.site_names.site_names`), the
    others keep the pattern's; a regex that cannot write names (``.*-dgx-...``) places
    each host as it is looked up, unless ``every_name`` (drift needs every node's name)."""
    if design is None:
        return {}
    from infra.analysis.layout.identity import DEFAULT_HOST_PATTERN, node_identities
    from infra.models.expand import expand_tray
    from infra.models.resolve import load_design

    rd = load_design(design, catalog)
    out: dict[str, dict] = {}
    for ni in node_identities(rd, host_pattern or DEFAULT_HOST_PATTERN):
        tray = rd.catalog.get(ni.tray)
        lay = expand_tray(tray, rd.catalog)
        rack = rd.layouts[ni.layout]
        trays = rack.count("compute_tray") or 1
        parts = {k: lay.count(k) for k in TRAY_PART_KINDS if lay.count(k)}
        parts.update({k: round(rack.count(k) / trays, 6) for k in RACK_PART_KINDS
                      if rack.count(k)})
        parts["rack"] = round(1 / trays, 6)
        out[ni.name] = {"rack": ni.rack, "slot": ni.path, "u": ni.u, "tray": ni.tray,
                        "parts": parts}
    if host_map is None:
        return out
    return _site_keyed(rd, out, host_pattern or DEFAULT_HOST_PATTERN, host_map, every_name)


class SiteMap(dict):
    """:func:`design_map` keyed by the site's names; ``get`` of a host not among them
    places it through the map (a regex that matches names it cannot write)."""

    def __init__(self, data: dict, placement=None, by_path: dict | None = None,
                 notes: tuple[str, ...] = ()) -> None:
        super().__init__(data)
        self.placement = placement
        self.by_path = by_path or {}
        self.notes = notes

    def get(self, host, default=None):
        if host in self:
            return self[host]
        dn = self.placement.get(host) if self.placement is not None and host else None
        return self.by_path.get(dn.slot, default) if dn is not None else default


def _site_keyed(rd, out: dict[str, dict], pattern: str, host_map, every_name: bool) -> SiteMap:
    from infra.ingest.hostmap import HostMapError, Placement
    from infra.ingest.site_names import site_names
    from infra.ingest.slots import design_nodes

    nodes = design_nodes(rd, pattern)
    by_path = {d["slot"]: d for d in out.values()}
    try:
        sn = site_names(nodes, host_map)
    except HostMapError:
        if every_name or host_map.regex is None:
            raise
        return SiteMap({}, Placement(nodes, host_map), by_path)  # placed host by host
    data = {sn.names.get(d["slot"], name): d for name, d in out.items()}
    return SiteMap(data, None, by_path, sn.notes)


def from_inventory(inv: Inventory, placement: dict[str, dict] | None = None) -> State:
    """The parts ``inv`` shows, placed by ``placement`` (:func:`design_map`)."""
    placement = {} if placement is None else placement  # a SiteMap may be empty, lazy
    comps: list[Component] = []
    fabric_nics: dict[tuple[str, str], str] = {}
    for p in inv.ports:
        if p.hca:
            fabric_nics[(p.host, p.hca)] = p.adapter_guid
    for node in inv.nodes:
        where = placement.get(node.host, {})
        rack = where.get("rack")
        vbios = _vbios(node.files[0]) if node.files else {}
        serial = next((g.chassis_serial for g in node.gpus if g.chassis_serial), None)
        comps.append(Component("host", node.host, node.host, rack, where.get("slot") or node.host,
                               _clean({"driver": node.driver_version, "tray": where.get("tray"),
                                       "u": where.get("u"), "chassis_serial": serial,
                                       "parts": where.get("parts")})))
        for i, g in enumerate(node.gpus):
            slot = f"gpu module {g.module_id}" if g.module_id is not None else f"gpu {i}"
            comps.append(Component("gpu", g.key, node.host, rack, slot, _clean({
                "serial": g.serial, "product": g.product, "vbios": vbios.get(g.uuid or ""),
                "module_id": g.module_id, "device_id": g.pci_device_id})))
        seen = set()
        for n in node.nics:
            name = n.name or "?"
            guid = _guid(n.port_guid) or fabric_nics.get((node.host, name))
            seen.add(name)
            comps.append(Component("nic", guid or f"{node.host}/{name}", node.host, rack, name,
                                   _clean({"gbit_s": n.gbit_s, "guid": guid})))
        for (host, hca), guid in sorted(fabric_nics.items()):
            if host == node.host and hca not in seen:
                comps.append(Component("nic", _guid(guid), host, rack, hca, {"guid": _guid(guid)}))
    if inv.fabric is not None:
        fab = inv.fabric
        names = {g: s.name for g, s in fab.switches.items()}
        for g, s in sorted(fab.switches.items()):
            comps.append(Component("switch", _guid(g), None, None, s.name,
                                   {"ports": s.ports, "role": switch_role(s.name)}))
        for link in fab.links:
            sw = names[link.switch]
            if link.peer_kind == "S":
                far = {"switch": names.get(link.peer, link.peer), "port": link.peer_port}
                host = None
            else:
                ad = fab.adapters.get(link.peer)
                host = ad.host if ad else None
                far = {"host": host, "hca": ad.hca if ad else None, "guid": _guid(link.peer)}
            far.update({"width": link.width, "speed": link.speed})
            rack = placement.get(host or "", {}).get("rack")
            comps.append(Component("link", f"{sw}/{link.switch_port}", host, rack,
                                   f"{sw}/{link.switch_port}", _clean(far)))
    nic_hosts = frozenset(c.host for c in comps if c.kind == "nic")
    return State(tuple(comps), frozenset(n.host for n in inv.nodes), inv.fabric is not None,
                 inv.root, nic_hosts)


def switch_role(name: str) -> str:
    """The failure-rate kind of an InfiniBand/Ethernet switch, from its name: ``spine``
    or ``core`` -> spine_switch, ``tor`` -> tor_switch, anything else leaf_switch."""
    low = name.lower()
    if "spine" in low or "core" in low:
        return "spine_switch"
    if re.search(r"(^|[^a-z])tor([^a-z]|$)", low):
        return "tor_switch"
    return "leaf_switch"


def _guid(value: str | None) -> str | None:
    if not value:
        return None
    return "0x" + value.lower().removeprefix("0x").lstrip("0").rjust(16, "0")


def _clean(d: dict) -> dict:
    return {k: v for k, v in d.items() if v is not None}


_GPU_BLOCK = re.compile(r"<gpu\b.*?</gpu>", re.S)


def _vbios(smi_file: str) -> dict[str, str]:
    """GPU UUID -> VBIOS version from a ``nvidia-smi -q -x`` file the ingest already
    read and checked (its parser does not keep the firmware version)."""
    try:
        text = Path(smi_file).read_text(errors="replace")
    except OSError:
        return {}
    out = {}
    for block in _GPU_BLOCK.findall(text):
        u = re.search(r"<uuid>\s*([^<]+?)\s*</uuid>", block)
        v = re.search(r"<vbios_version>\s*([^<]+?)\s*</vbios_version>", block)
        if u and v and v.group(1).upper() != "N/A":
            out[u.group(1)] = v.group(1)
    return out
