"""YAML paths into a design's data: ``racks.nvl72.contents[2].type``.

A path is dotted keys with ``[i]`` list indices (``contents.2.type`` also works, and
needs no quoting inside a YAML flow list). :func:`parse_path` turns it into a
tuple of keys and indices; :func:`set_path` returns a copy of the data with one value
replaced, copying only the containers along the path (the base design is shared by
every scenario and never mutated).

Examples
--------
>>> parse_path("racks.nvl72.contents[2].type")
('racks', 'nvl72', 'contents', 2, 'type')
>>> parse_path("racks.nvl72.contents.2.type")
('racks', 'nvl72', 'contents', 2, 'type')
>>> data = {"racks": {"a": {"contents": [{"type": "x"}, {"type": "y"}]}}}
>>> new = set_path(data, parse_path("racks.a.contents[1].type"), "z")
>>> new["racks"]["a"]["contents"][1]["type"], data["racks"]["a"]["contents"][1]["type"]
('z', 'y')
"""

from __future__ import annotations

import re
from typing import Any

from infra.errors import InfraError

_TOKEN = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


class SweepError(InfraError):
    """A grid file is malformed or names a path the base design does not have."""


def parse_path(text: str) -> tuple[str | int, ...]:
    """Split ``a.b[2].c`` into ``('a', 'b', 2, 'c')``; a malformed path is an error."""
    if not isinstance(text, str) or not text.strip():
        raise SweepError(f"a path must be a non-empty string, got {type(text).__name__}",
                         hint="e.g. racks.nvl72.contents[2].type")
    out: list[str | int] = []
    pos = 0
    for m in _TOKEN.finditer(text):
        gap = text[pos:m.start()]
        if gap not in ("", "."):
            break
        tok = m.group(1)
        out.append(int(tok) if tok is not None and tok.isdigit() else
                   tok if tok is not None else int(m.group(2)))
        pos = m.end()
    if pos != len(text) or not out or isinstance(out[0], int):
        raise SweepError(f"malformed path {_short(text)!r}",
                         hint="dotted keys with [i] list indices, e.g. racks.nvl72.contents[2].type")
    return tuple(out)


def get_path(data: Any, path: tuple[str | int, ...]) -> Any:
    """The value at ``path``; a missing key or index raises :class:`SweepError`."""
    node = data
    for i, key in enumerate(path):
        node = _child(node, key, path[:i + 1])
    return node


def set_path(data: Any, path: tuple[str | int, ...], value: Any) -> Any:
    """A copy of ``data`` with ``path`` set to ``value``; the last key may be new
    (a mapping gains it), every earlier step must exist."""
    if not path:
        return value
    key, rest = path[0], path[1:]
    if isinstance(data, dict) and isinstance(key, int) and str(key) in data:
        key = str(key)
    if isinstance(data, dict) and isinstance(key, str):
        if rest:
            child = _child(data, key, (key,))
            return {**data, key: set_path(child, rest, value)}
        return {**data, key: value}
    if isinstance(data, list) and isinstance(key, int):
        child = _child(data, key, (key,))
        copy = list(data)
        copy[key] = set_path(child, rest, value) if rest else value
        return copy
    raise SweepError(f"cannot step into a {type(data).__name__} with {key!r}",
                     hint="check the path against the base design")


def format_path(path: tuple[str | int, ...]) -> str:
    """``('a', 2, 'b')`` -> ``a[2].b``."""
    out = ""
    for k in path:
        out += f"[{k}]" if isinstance(k, int) else (f".{k}" if out else str(k))
    return out


def _child(node: Any, key: str | int, where: tuple) -> Any:
    if isinstance(node, dict) and isinstance(key, str) and key in node:
        return node[key]
    if isinstance(node, dict) and isinstance(key, int) and str(key) in node:
        return node[str(key)]
    if isinstance(node, list) and isinstance(key, int) and 0 <= key < len(node):
        return node[key]
    have = (", ".join(map(str, list(node)[:12])) if isinstance(node, dict)
            else f"{len(node)} items" if isinstance(node, list) else type(node).__name__)
    raise SweepError(f"path {format_path(where)} not found (here: {have})",
                     hint="the grid's paths must exist in the base design")


def _short(text: str, n: int = 80) -> str:
    return text if len(text) <= n else text[:n] + f"... ({len(text)} characters)"
