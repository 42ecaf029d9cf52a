"""Reader for ``ibnetdiscover`` output (infiniband-diags): switches, adapters, links.

Shape (rdma-core ``sec_topology-file.rst``; interop-formats.md §9)::

    Switch  65 "S-2c5eab0300b87b40"   # "MF0;A09-P1-IBLEAF-04-04:MQM9701/U1" enhanced port 0 lid 73 lmc 0
    [1]     "H-e09d7303007a4bd8"[1](e09d7303007a4bd8)   # "a08-p1-dgx-04-c01 mlx5_5" lid 647 4xNDR
    Ca      1 "H-e09d7303007a5a68"    # "a08-p1-dgx-04-c17 mlx5_5"
    [1](e09d7303007a5a68)  "S-2c5eab0300b87b40"[17]   # lid 657 lmc 0 "MF0;..." lid 73 4xNDR

Adapters map to hosts by NodeDescription (``"<host> <hca>"``); adapters that still carry
the default description (``MT4129 ConnectX7 Mellanox Technologies``) map through a
GUID map in ``ibnetdiscover --node-name-map`` format (``0x<guid> "<host> <hca>"``).
SHARP Aggregation Nodes (port 65 of a Quantum-2 switch) are not hosts and are skipped.

Examples
--------
>>> text = '''Switch 3 "S-2c00"  # "MF0;leaf-a:MQM9700/U1" enhanced port 0 lid 1 lmc 0
... [1] "H-e0a1"[1](e0a1)  # "node1 mlx5_0" lid 5 4xNDR
... [3] "H-2c01"[1](2c01)  # "Mellanox Technologies Aggregation Node" lid 9 4xNDR
... '''
>>> f = parse_ibnet_text(text, "ib.txt")
>>> f.switches["2c00"].name, [(l.switch_port, l.peer, l.gbit_s) for l in f.links]
('leaf-a', [(1, 'e0a1', 400.0)])
>>> f.skipped_aggregation_nodes
1
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from infra.ingest.base import InventoryError, read_text, small_int

TOOL = "ibnetdiscover"
# Nominal signalling rate per lane, Gb/s, as the link names are used (4xNDR = 400 Gb/s):
# IBTA InfiniBand Architecture Specification vol. 2, link rates; libibmad dump.c.
IB_LANE_GBIT_S = {"SDR": 2.5, "DDR": 5.0, "QDR": 10.0, "FDR10": 10.0, "FDR": 14.0625,
                  "EDR": 25.0, "HDR": 50.0, "NDR": 100.0, "XDR": 200.0}
AGGREGATION_NODE = "aggregation node"
DEFAULT_DESCRIPTION = re.compile(r"^MT\d+\b|Mellanox Technologies$|^ConnectX", re.I)

_NODE = re.compile(r'^(Switch|Ca|Rt)\s+(\d+)\s+"([SHR])-([0-9a-fA-F]+)"\s*#\s*"([^"]*)"')
_PORT = re.compile(r'^\[(\d+)\](?:\(([0-9a-fA-F]+)\))?\s+"([SHR])-([0-9a-fA-F]+)"\[(\d+)\]'
                   r'(?:\(([0-9a-fA-F]+)\))?\s*#\s*(.*)$')
_RATE = re.compile(r"(?<!\d)(\d{1,3})x([A-Z0-9]+)\s*$")  # 1x..12x lanes; more digits: no rate


@dataclass(frozen=True)
class IbSwitch:
    guid: str
    ports: int
    description: str

    @property
    def name(self) -> str:
        """``MF0;A09-P1-IBLEAF-04-04:MQM9701/U1`` -> ``A09-P1-IBLEAF-04-04``."""
        m = re.match(r"^[^;:]+;([^;:]+):[^;:]+$", self.description)
        return m.group(1) if m else self.description


@dataclass(frozen=True)
class IbAdapter:
    guid: str  # node GUID
    description: str
    host: str | None  # None: default description and no GUID-map entry
    hca: str | None
    mapped_by: str  # description | guid-map | none


@dataclass(frozen=True)
class IbLink:
    switch: str  # switch node GUID
    switch_port: int
    peer: str  # node GUID of the far end (adapter or switch)
    peer_port: int
    peer_kind: str  # S (switch) or H (adapter)
    width: int | None
    speed: str | None
    gbit_s: float | None


@dataclass(frozen=True)
class IbFabric:
    file: str
    switches: dict[str, IbSwitch]
    adapters: dict[str, IbAdapter]
    links: tuple[IbLink, ...]  # switch-side view; each physical link once
    skipped_aggregation_nodes: int


def parse_ibnet(path: Path | str, guid_map: dict[str, str] | None = None) -> IbFabric:
    """Parse saved ``ibnetdiscover`` output; ``guid_map``: node GUID -> ``"host hca"``."""
    path = Path(path)
    return parse_ibnet_text(read_text(path, TOOL), str(path), guid_map)


def parse_ibnet_text(text: str, file: str, guid_map: dict[str, str] | None = None) -> IbFabric:
    guid_map = {k.lower().removeprefix("0x").lstrip("0"): v for k, v in (guid_map or {}).items()}
    switches: dict[str, IbSwitch] = {}
    adapters: dict[str, IbAdapter] = {}
    aggregation: set[str] = set()
    raw: list[tuple[str, int, str, str, int, str]] = []
    node: tuple[str, str] | None = None
    for n, line in enumerate(text.splitlines(), start=1):
        m = _NODE.match(line)
        if m:
            kind, ports, _, guid, desc = m.groups()
            guid = _g(guid)
            node = (kind, guid)
            if kind == "Switch":
                switches[guid] = IbSwitch(guid, small_int(ports, file, n, "a port count"), desc)
            elif AGGREGATION_NODE in desc.lower():
                aggregation.add(guid)
            else:
                adapters[guid] = _adapter(guid, desc, guid_map)
            continue
        m = _PORT.match(line)
        if m:
            if node is None:
                raise InventoryError("a `[port]` line before any Switch/Ca line", file=file, line=n)
            port, _, pkind, pguid, pport, _, comment = m.groups()
            if AGGREGATION_NODE in comment.lower():
                aggregation.add(_g(pguid))
            raw.append((node[1], small_int(port, file, n, "a port number"), pkind, _g(pguid),
                        small_int(pport, file, n, "a port number"), comment))
    if not switches and not adapters:
        raise InventoryError("no `Switch` or `Ca` node lines: not ibnetdiscover output",
                             file=file, hint="save the output of `ibnetdiscover` run on one host")
    links = _links(raw, switches, aggregation)
    return IbFabric(file, switches, adapters, links, len(aggregation))


def _g(guid: str) -> str:
    return guid.lower().lstrip("0") or "0"


def _adapter(guid: str, desc: str, guid_map: dict[str, str]) -> IbAdapter:
    if guid in guid_map:
        host, _, hca = guid_map[guid].strip().partition(" ")
        return IbAdapter(guid, desc, host, hca.strip() or None, "guid-map")
    parts = desc.split()
    if len(parts) == 2 and not DEFAULT_DESCRIPTION.search(desc):
        return IbAdapter(guid, desc, parts[0], parts[1], "description")
    return IbAdapter(guid, desc, None, None, "none")


def _links(raw, switches, aggregation) -> tuple[IbLink, ...]:
    seen: set[tuple] = set()
    out = []
    for local, port, pkind, peer, pport, comment in raw:
        if local in aggregation or peer in aggregation:
            continue
        if local in switches:
            sw, sp, other, op, okind = local, port, peer, pport, pkind
        elif pkind == "S":
            sw, sp, other, op, okind = peer, pport, local, port, "H"
        else:
            continue  # adapter-to-adapter (back-to-back): no switch port to check
        if sw not in switches:
            continue  # the far switch's own block is missing (a cut-short dump)
        key = tuple(sorted([(sw, sp), (other, op)]))
        if key in seen:
            continue
        seen.add(key)
        m = _RATE.search(comment)
        width = int(m.group(1)) if m else None
        speed = m.group(2) if m else None
        lane = IB_LANE_GBIT_S.get(speed or "")
        out.append(IbLink(sw, sp, other, op, okind, width, speed,
                          width * lane if width and lane else None))
    return tuple(sorted(out, key=lambda l: (l.switch, l.switch_port)))


def parse_guid_map(path: Path | str) -> dict[str, str]:
    """Read a node-name-map: ``0x<guid> "<name>"`` per line; ``#`` starts a comment."""
    path = Path(path)
    out: dict[str, str] = {}
    for n, line in enumerate(read_text(path, "node-name-map").splitlines(), start=1):
        line = line.split("#", 1)[0].strip() if not line.strip().startswith('"') else line.strip()
        if not line:
            continue
        m = re.match(r'^(0x[0-9a-fA-F]+)\s+"([^"]+)"\s*$', line)
        if not m:
            first = line.split()[0]  # only the bad token, cut: never the line's content
            shown = first if len(first) <= 20 else first[:20] + "..."
            raise InventoryError(f"expected `0x<guid> \"<host> <hca>\"`, got a line starting "
                                 f"{shown!r}", file=str(path), line=n)
        out[m.group(1)] = m.group(2)
    return out
