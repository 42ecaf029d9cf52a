"""Check an NCCL topology XML against NCCL's hand-written parser (``src/graph/xml.cc``).

Limits and rules checked (NCCL 2.30): no ``<?xml?>`` declaration; no tabs (only space,
``\\n``, ``\\r`` are whitespace); every element's attributes on one line; at most 16
attributes (``MAX_ATTR_COUNT``), names and values at most 255 characters
(``MAX_STR_LEN``), 640 children (``MAX_SUBS``) and 256 elements per host file
(``NCCL_TOPO_XML_MAX_NODES``); no entities (NCCL does not decode them); root
``<system version="1">``; nesting and required attributes from the loader tables
(``cpu``: numaid, arch, x86 vendor, Intel family/model; ``pci``: busid, class,
link_speed, link_width; ``gpu``: dev, sm, rank, gdr; ``nvlink``: target, count, tclass;
``c2c``: bw, count; ``net``: name, dev). The writer's style is checked too: two spaces
per level and no space before ``/>``.

Examples
--------
>>> check_nccl_xml('<?xml version="1.0"?>\\n<system version="1">\\n</system>\\n')
Traceback (most recent call last):
...
infra.exports.common.ExportError: NCCL XML: line 1: an XML declaration makes NCCL fail ("expected >, got '?'")
"""

from __future__ import annotations

import re

from infra.exports.common import ExportError

MAX_ATTRS = 16
MAX_STR = 255
MAX_SUBS = 640
MAX_NODES = 256
PARENTS = {"cpu": {"system"}, "pci": {"cpu", "pci"}, "gpu": {"pci"}, "nvlink": {"gpu"},
           "c2c": {"gpu"}, "nic": {"pci", "cpu"}, "net": {"nic"}, "pcilink": {"pci"}}
REQUIRED = {"system": ("version",), "cpu": ("numaid", "arch"),
            "pci": ("busid", "class", "link_speed", "link_width"),
            "gpu": ("dev", "sm", "rank", "gdr"), "nvlink": ("target", "count", "tclass"),
            "c2c": ("bw", "count"), "net": ("name", "dev"), "nic": (), "pcilink": ("target",)}
ARCHS = {"x86_64", "arm64", "ppc64"}
SPEEDS = {"2.5 GT/s", "5 GT/s", "8 GT/s", "16 GT/s", "32 GT/s"} | {
    f"{x} GT/s PCIe" for x in ("2.5", "5.0", "8.0", "16.0", "32.0", "64.0")}
_OPEN = re.compile(r'^( *)<([a-z0-9_]+)((?: [a-z_][a-z0-9_]*="[^"<>&]*")*)(/?)>$')
_CLOSE = re.compile(r"^( *)</([a-z0-9_]+)>$")
_COMMENT = re.compile(r"^( *)<!--(?:(?!--).)*-->$")
_ATTR = re.compile(r' ([a-z_][a-z0-9_]*)="([^"]*)"')


def check_nccl_xml(text: str, where: str = "NCCL XML") -> None:
    """Raise ExportError at the first rule ``text`` breaks (see the module rules)."""
    def fail(line: int, msg: str) -> ExportError:
        return ExportError(f"{where}: line {line}: {msg}")

    stack: list[tuple[str, dict[str, str], int]] = []  # (tag, attrs, children)
    elements = 0
    for i, line in enumerate(text.split("\n"), 1):
        if i == 1 and line.startswith("<?xml"):
            raise fail(i, "an XML declaration makes NCCL fail (\"expected >, got '?'\")")
        if "\t" in line:
            raise fail(i, "a tab makes NCCL fail (\"expecting '<', got '\\t'\")")
        if not line.strip():
            continue
        if _COMMENT.match(line):
            continue
        m = _CLOSE.match(line)
        if m:
            if not stack or stack[-1][0] != m.group(2):
                raise fail(i, f"</{m.group(2)}> closes nothing open")
            _indent(fail, i, m.group(1), len(stack) - 1)
            stack.pop()
            continue
        m = _OPEN.match(line)
        if not m:
            raise fail(i, "not one whole element per line (attributes must stay on the "
                          "element's line; no space before '/>'; no entities)")
        pad, tag, body, empty = m.groups()
        attrs = dict(_ATTR.findall(body))
        _element(fail, i, tag, attrs, stack)
        _indent(fail, i, pad, len(stack))
        elements += 1
        if elements > MAX_NODES:
            raise fail(i, f"more than {MAX_NODES} elements: \"XML parser is limited to "
                          f"{MAX_NODES} nodes\"")
        if stack:
            parent = stack[-1]
            stack[-1] = (parent[0], parent[1], parent[2] + 1)
            if parent[2] + 1 > MAX_SUBS:
                raise fail(i, f"<{parent[0]}> has more than {MAX_SUBS} children")
        if not empty:
            stack.append((tag, attrs, 0))
    if stack:
        raise ExportError(f"{where}: <{stack[-1][0]}> is never closed")
    if elements == 0:
        raise ExportError(f"{where}: no <system> element")


def _indent(fail, line: int, pad: str, depth: int) -> None:
    if len(pad) != 2 * depth:
        raise fail(line, f"indent {len(pad)} spaces, NCCL's dump style has {2 * depth}")


def _element(fail, line: int, tag: str, attrs: dict[str, str], stack: list) -> None:
    if len(attrs) > MAX_ATTRS:
        raise fail(line, f"<{tag}> has {len(attrs)} attributes; NCCL keeps {MAX_ATTRS}")
    for k, v in attrs.items():
        if len(k) > MAX_STR or len(v) > MAX_STR:
            raise fail(line, f"<{tag} {k}>: names and values are limited to {MAX_STR} characters")
    parent = stack[-1][0] if stack else None
    if tag == "system":
        if parent is not None:
            raise fail(line, "<system> must be the root")
        if attrs.get("version") != "1":
            raise fail(line, f'<system version="{attrs.get("version")}">: NCCL needs version="1"')
    elif tag not in PARENTS:
        raise fail(line, f"<{tag}> is not an NCCL topology element (NCCL ignores it)")
    elif parent not in PARENTS[tag]:
        raise fail(line, f"<{tag}> cannot sit under <{parent}> (allowed: "
                         f"{', '.join(sorted(PARENTS[tag]))})")
    missing = [a for a in REQUIRED.get(tag, ()) if a not in attrs]
    if tag == "cpu" and attrs.get("arch") == "x86_64":
        missing += [a for a in ("vendor",) if a not in attrs]
        if attrs.get("vendor") == "GenuineIntel":
            missing += [a for a in ("familyid", "modelid") if a not in attrs]
    if missing:
        raise fail(line, f"<{tag}> lacks required attribute(s) {missing}")
    if tag == "cpu" and attrs["arch"] not in ARCHS:
        raise fail(line, f"<cpu arch=\"{attrs['arch']}\">: NCCL knows {sorted(ARCHS)}")
    if tag == "pci" and attrs["link_speed"] not in SPEEDS:
        raise fail(line, f"<pci link_speed=\"{attrs['link_speed']}\"> is not a string NCCL "
                         "knows (e.g. \"32.0 GT/s PCIe\")")
