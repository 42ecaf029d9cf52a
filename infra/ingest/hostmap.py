"""Site naming: which design node an inventory host is, when the site does not name its
machines as the design's host pattern does.

Three ways, from the simplest:

* ``--host-pattern`` (the default ``r{rack:03d}n{slot:02d}``): the design's own names.
* ``--host-regex``: a regular expression with named groups, each a 1-based number of the
  node (:data:`FIELDS`); a host matches when the whole name matches. NVIDIA's SuperPOD
  naming ``a05-p1-dgx-01-c01`` (row a, rack 05, SU 01, node c01) is
  ``'.*-dgx-(?P<group>\\d+)-c(?P<group_node>\\d+)'``: scalable unit and node in it.
* ``--host-map FILE``: a CSV (header ``host`` and field columns, or ``design_host``) or a
  YAML mapping (``host: {rack: 5, slot: 1}`` or ``host: r005n01``).

The numbers must name one design node: ``index``; or ``rack`` and ``slot``; or
``domain`` and ``domain_node``; or ``group`` and ``group_node`` (``group``: the fabric
group, a scalable unit, in build order).

Examples
--------
>>> m = host_regex(r".*-dgx-(?P<group>\\d+)-c(?P<group_node>\\d+)")
>>> m.numbers("a05-p1-dgx-02-c07"), m.numbers("b11-p1-cufm-02")
((('group', 2), ('group_node', 7)), None)
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

from infra.errors import InfraError
from infra.ingest.base import MAX_DIGITS
from infra.ingest.slots import DesignNode

FIELDS = ("index", "rack", "slot", "u", "domain", "domain_node", "group", "group_node")
KEYS = (("index",), ("rack", "slot"), ("domain", "domain_node"), ("group", "group_node"),
        ("rack", "u"))
MAX_MAP_BYTES = 16 * 1024 * 1024



def _number(text: str) -> bool:
    """A 1-based node number as a map or a host name writes it: ASCII digits ('²' is a
    digit to str.isdigit but not to int), at most MAX_DIGITS, not zero."""
    return (text.isascii() and text.isdigit() and len(text) <= MAX_DIGITS
            and int(text) >= 1)

class HostMapError(InfraError):
    """A host map or host regex that cannot place hosts (exit 2)."""


@dataclass(frozen=True)
class HostMap:
    """How site host names map to design nodes (see the module docstring)."""

    description: str  # for messages: the regex or the file
    regex: re.Pattern | None = None
    table: tuple[tuple[str, tuple[tuple[str, int], ...] | str], ...] = ()
    file: str | None = None  # the map file, for messages
    lines: tuple[int | None, ...] = ()  # each table entry's line in it (None: YAML)

    def numbers(self, host: str) -> tuple[tuple[str, int], ...] | str | None:
        """The host's node numbers (or design host name), None when the map says nothing."""
        if self.regex is not None:
            m = self.regex.fullmatch(host)
            if m is None:
                return None
            got = {k: v for k, v in m.groupdict().items() if v is not None}
            if any(not _number(v) for v in got.values()):  # ASCII 1-based numbers only
                return None
            return tuple((k, int(v)) for k, v in got.items())
        return self._by_host.get(host)

    @cached_property
    def _by_host(self) -> dict:
        """The table as a dict, made once (a lookup per host, not a copy per host)."""
        return dict(self.table)


class Placement:
    """Site host -> design node (with the site's host name), resolved host by host.

    A mapping: ``placement.get(host)`` is the :class:`DesignNode` the host is (its
    ``host`` replaced by the site's name), None for a host the naming does not place.
    """

    def __init__(self, nodes: list[DesignNode], host_map: HostMap | None = None) -> None:
        self.nodes = nodes
        self.host_map = host_map
        self._placed: dict[str, DesignNode | None] = {}
        self._by_name = {d.host: d for d in nodes}
        self._index: dict[tuple, dict[tuple, DesignNode]] = {}

    def get(self, host: str, default=None):
        if host not in self._placed:
            self._placed[host] = self._place(host)
        return self._placed[host] or default

    def __contains__(self, host: str) -> bool:
        return self.get(host) is not None

    def values(self):
        """The design nodes placed so far (under their site names)."""
        return [d for d in self._placed.values() if d is not None]

    def _place(self, host: str) -> DesignNode | None:
        if self.host_map is None:
            return self._by_name.get(host)
        got = self.host_map.numbers(host)
        if got is None:
            return None
        if isinstance(got, str):
            dn = self._by_name.get(got)
        else:
            nums = dict(got)
            key = next((k for k in KEYS if all(f in nums for f in k)), None)
            if key is None:
                return None
            dn = self._lookup(key).get(tuple(nums[f] for f in key))
        return replace(dn, host=host) if dn is not None else None

    def _lookup(self, key: tuple) -> dict[tuple, DesignNode]:
        if key not in self._index:
            self._index[key] = {tuple(d.number(f) for f in key): d for d in self.nodes}
        return self._index[key]

    def describe(self) -> str:
        if self.host_map is not None:
            return self.host_map.description
        return "the design's host pattern"


def host_regex(text: str, keys: tuple[tuple[str, ...], ...] = KEYS) -> HostMap:
    """A :class:`HostMap` from a regular expression with named groups of :data:`FIELDS`;
    ``keys``: the group sets of which one must be named (``infra ingest``: a rack)."""
    try:
        rx = re.compile(text)
    except re.error as exc:
        raise HostMapError(f"--host-regex is not a regular expression: {exc}",
                           hint="e.g. '.*-dgx-(?P<group>\\d+)-c(?P<group_node>\\d+)'") from None
    names = set(rx.groupindex)
    unknown = sorted(names - set(FIELDS))
    if unknown:
        raise HostMapError(f"--host-regex names unknown group(s) {', '.join(unknown)}",
                           hint=f"named groups: {', '.join(FIELDS)}")
    if not any(set(k) <= names for k in keys):
        raise HostMapError("--host-regex does not name a node: it needs the groups "
                           + " or ".join("+".join(k) for k in keys),
                           hint="e.g. (?P<rack>\\d+) and (?P<slot>\\d+)")
    return HostMap(f"the host regex {text!r}", regex=rx)


def load_host_map(path: Path | str, keys: tuple[tuple[str, ...], ...] = KEYS) -> HostMap:
    """A :class:`HostMap` from a CSV or YAML file (the module docstring gives the shapes);
    ``keys`` as for :func:`host_regex`."""
    path = Path(path)
    try:
        if path.stat().st_size > MAX_MAP_BYTES:
            raise HostMapError(f"over {MAX_MAP_BYTES:,} bytes: not a host map", file=str(path))
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise HostMapError(f"cannot read the host map: {getattr(exc, 'strerror', None) or exc}",
                           file=str(path)) from None
    if path.suffix.lower() in (".yaml", ".yml"):
        rows = _yaml_rows(path)
    else:
        rows = _csv_rows(text, str(path))
    rows = list(rows)
    table = tuple(_entry(host, value, str(path), line, keys) for host, value, line in rows)
    if not table:
        raise HostMapError("the host map has no entry", file=str(path),
                           hint="one line per host: host,rack,slot")
    return HostMap(f"the host map {path.name}", table=table, file=str(path),
                   lines=tuple(line for _, _, line in rows))


def site_naming(regex: str | None = None, map_file: Path | str | None = None,
                keys: tuple[tuple[str, ...], ...] | None = None) -> HostMap | None:
    """The :class:`HostMap` that ``--host-regex`` or ``--host-map`` give (None: neither,
    the design's host pattern names the hosts); ``keys``: the numbers a host must get
    (default :data:`KEYS`, a design node's). The one parser of these options, shared by
    ``infra diff``, ``ingest``, ``export`` and ``history record``."""
    if regex and map_file:
        raise HostMapError("--host-regex and --host-map both given: choose one")
    if regex:
        return host_regex(regex, keys or KEYS)
    return load_host_map(map_file, keys or KEYS) if map_file else None


def _csv_rows(text: str, file: str):
    reader = csv.DictReader(io.StringIO(text))
    cols = [c.strip() for c in reader.fieldnames or []]
    if "host" not in cols:
        raise HostMapError("the CSV header has no `host` column", file=file, line=1,
                           hint="header: host,rack,slot (or host,design_host)")
    bad = sorted(set(cols) - set(FIELDS) - {"host", "design_host"})
    if bad:
        raise HostMapError(f"unknown column(s) {', '.join(bad)}", file=file, line=1,
                           hint=f"columns: host, design_host, {', '.join(FIELDS)}")
    for row in reader:
        row = {(k or "").strip(): (v or "").strip() for k, v in row.items()}
        value = row.pop("design_host", "") or {k: v for k, v in row.items()
                                                if k != "host" and v}
        yield row.get("host", ""), value, reader.line_num


def _yaml_rows(path: Path):
    from infra.models.yamlio import read_yaml

    data = read_yaml(path, HostMapError)
    if not isinstance(data, dict):
        raise HostMapError("expected a mapping host: {rack: N, slot: M} (or host: "
                           "design-host)", file=str(path))
    for host, value in data.items():
        yield str(host), value, None


def _entry(host: str, value, file: str, line: int | None, keys=KEYS):
    where = f"host {host!r}" if line is None else f"line {line}"
    if not host:
        raise HostMapError("an entry without a host name", file=file, line=line)
    if isinstance(value, str):
        return host, value
    if not isinstance(value, dict):
        raise HostMapError(f"{where}: expected {{rack: N, slot: M}} or a design host name",
                           file=file, line=line)
    nums = {}
    for k, v in value.items():
        k = str(k)
        if k not in FIELDS:
            raise HostMapError(f"{where}: unknown field {k!r}", file=file, line=line,
                               hint=f"fields: {', '.join(FIELDS)}")
        text = str(v).strip()
        if not _number(text):
            raise HostMapError(f"{where}: {k} must be a whole number from 1 (1-based), got "
                               f"{text[:20]!r}", file=file, line=line)
        nums[k] = int(text)
    if not any(set(k) <= set(nums) for k in keys):
        raise HostMapError(f"{where}: does not name a node (give "
                           + " or ".join("+".join(k) for k in keys) + ")", file=file,
                           line=line)
    return host, tuple(sorted(nums.items()))
