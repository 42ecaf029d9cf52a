"""The site's host name of each design node, from a host map: the other direction of
:class:`~infra.ingest.hostmap.Placement`, for what writes node names (``infra export``)
or keys parts by host (``infra history record``).

* A map file (``--host-map``) names hosts one by one: the design node each host is
  carries that host's name; nodes the map does not name keep the pattern's name (said in
  :attr:`SiteNames.notes`), hosts that name no design node are noted too, and two hosts on
  one node, or a name that is not a host name, are errors with the map's file and line.
* A regular expression (``--host-regex``) is written out for each node when it is
  literal text and named digit groups, ``(?P<rack>\\d{3})`` (zero-padded to 3) or
  ``(?P<slot>\\d+)`` (no padding); anything else (``.*``, classes, alternatives) matches
  names but cannot make one, and is refused (exit 2) saying so.

Examples
--------
>>> from infra.models.resolve import load_design
>>> from infra.ingest.hostmap import host_regex
>>> from infra.ingest.slots import design_nodes
>>> nodes = design_nodes(load_design("designs/dgx_h100_su.yaml"))
>>> sn = site_names(nodes, host_regex(r"a01-p1-dgx-(?P<group>\\d{2})-c(?P<group_node>\\d{2})"))
>>> sn.names["su0/r0/t0"], sn.names["su0/r7/t3"], sn.notes
('a01-p1-dgx-01-c01', 'a01-p1-dgx-01-c32', ())
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from infra.ingest.hostmap import HostMap, HostMapError, Placement
from infra.ingest.slots import DesignNode

HOST_NAME = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")  # RFC 1123 label, at most 63
# a named digit group: (?P<rack>\d{3}) or (?P<rack>\d+) ([0-9] as well as \d)
_GROUP = re.compile(r"\(\?P<(\w+)>(?:\\d|\[0-9\])(?:\{(\d{1,2})\}|\+)\)")
_LITERAL = re.compile(r"(?:[a-z0-9-]|\\-)*")


@dataclass(frozen=True)
class SiteNames:
    """``names``: design node path (``su0/r3/t1``) -> the site's host name; ``notes``:
    what the map left unnamed or named that is not in the design."""

    names: dict[str, str]
    notes: tuple[str, ...] = ()
    description: str = ""


def site_names(nodes: list[DesignNode], host_map: HostMap) -> SiteNames:
    """The site's name of each design node ``host_map`` names (see the module doc)."""
    if host_map.regex is not None:
        return _from_regex(nodes, host_map)
    placement = Placement(nodes, host_map)
    names: dict[str, str] = {}
    line_of: dict[str, int | None] = {}
    stray: list[str] = []
    for i, (host, _) in enumerate(host_map.table):
        line = host_map.lines[i] if i < len(host_map.lines) else None
        _check_name(host, host_map, line)
        dn = placement.get(host)
        if dn is None:
            stray.append(host)
            continue
        if dn.slot in names and names[dn.slot] != host:
            first = line_of[dn.slot]
            raise HostMapError(
                f"hosts {names[dn.slot]!r}{f' (line {first})' if first else ''} and {host!r} "
                f"are both design node {dn.slot}", file=host_map.file, line=line,
                hint="one host per rack and slot")
        names[dn.slot] = host
        line_of[dn.slot] = line
    kept = {n.host: n.slot for n in nodes if n.slot not in names}
    for slot, host in names.items():
        if host in kept:
            i = next(i for i, (h, _) in enumerate(host_map.table) if h == host)
            raise HostMapError(f"host {host!r} names design node {slot}, but {kept[host]} "
                               "keeps that name from the pattern", file=host_map.file,
                               line=host_map.lines[i] if i < len(host_map.lines) else None,
                               hint=f"also map the host at {kept[host]}, or rename this one")
    notes = []
    if len(names) < len(nodes):
        kept = next(n.host for n in nodes if n.slot not in names)
        notes.append(f"{len(nodes) - len(names):,} of {len(nodes):,} design nodes are not in "
                     f"{host_map.description} and keep the pattern's names (e.g. {kept})")
    if stray:
        notes.append(f"{len(stray):,} host(s) of {host_map.description} name no design node "
                     f"(e.g. {stray[0]!r}): not exported")
    return SiteNames(names, tuple(notes), host_map.description)


def _check_name(host: str, host_map: HostMap, line: int | None) -> None:
    if len(host) > 63 or not HOST_NAME.fullmatch(host):
        where = "" if line else f"host {host[:40]!r}: "
        raise HostMapError(f"{where}{host[:40]!r} is not a host name a node can carry",
                           file=host_map.file, line=line,
                           hint="lower-case letters, digits and '-', at most 63 characters, "
                                "starting and ending with a letter or digit")


def _from_regex(nodes: list[DesignNode], host_map: HostMap) -> SiteNames:
    text = host_map.regex.pattern
    body = text[1:] if text.startswith("^") else text  # anchors: the match is whole anyway
    body = body[:-1] if body.endswith("$") and not body.endswith("\\$") else body
    parts: list[tuple[str, str | None, int]] = []  # (literal before, group, width)
    pos = 0
    for m in _GROUP.finditer(body):
        parts.append((_literal(body[pos:m.start()], text), m.group(1), int(m.group(2) or 0)))
        pos = m.end()
    parts.append((_literal(body[pos:], text), None, 0))
    names = {}
    seen: dict[str, str] = {}
    for n in nodes:
        name = "".join(lit + ("" if g is None else f"{n.number(g) or 0:0{w}d}")
                       for lit, g, w in parts)
        if len(name) > 63 or not HOST_NAME.fullmatch(name) or host_map.regex.fullmatch(name) is None:
            raise HostMapError(f"--host-regex {text!r} gives {name!r} for {n.slot}, not a host "
                               "name it matches itself", hint="widen the groups, e.g. \\d{3}")
        if name in seen:
            raise HostMapError(f"--host-regex {text!r} gives {name!r} to both {seen[name]} and "
                               f"{n.slot}", hint="name a node: rack and slot, group and "
                                                 "group_node, or index")
        seen[name] = n.slot
        names[n.slot] = name
    return SiteNames(names, (), host_map.description)


def _literal(piece: str, text: str) -> str:
    if not _LITERAL.fullmatch(piece):
        raise HostMapError(
            f"--host-regex {text!r} matches names but cannot write one: {piece!r} is not "
            "literal host-name text", hint="to name exported or recorded nodes, write the "
            "regex as literal text and groups such as (?P<rack>\\d{2}) or (?P<slot>\\d+) "
            "(no '.*'), or list the hosts with --host-map FILE")
    return piece.replace("\\", "")
