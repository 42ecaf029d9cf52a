"""One pass from libyaml's events to Python values and a line index, for plain documents.

:func:`infra.models.yamlio.read_yaml` first tries :func:`build`: it reads libyaml's
event stream once and, in the same loop, checks what :func:`infra.models.yamlio._check`
checks, builds the Python values and records the line of every mapping key and list
item (the :class:`LineIndex` that ``line_of`` answers from). It composes no node tree
and runs no PyYAML constructor, which took three quarters of the time of a 460 kB
design.

It is an optimistic path. Anything it does not handle itself raises :class:`Fallback`,
and ``read_yaml`` then takes the full path (compose, check, construct) on the same
text, which gives the value or the error exactly as before:

- anchors and aliases, ``<<`` merges, several documents, an empty document;
- a tag outside the safe schema, a tag that does not fit its node (``!!map x``), a
  scalar that its tag's constructor refuses (``2020-13-45``);
- a key that is not a scalar, a key text repeated in one mapping (a duplicate, or
  ``1`` beside ``"1"``), nesting of :data:`MAX_DEPTH` levels or more;
- any parse error.

Scalars are resolved by the loader's own resolver and built by its own SafeConstructor
functions (each distinct (text, implicit) and (tag, text) once, memoised), so the
values are those of ``yaml.safe_load``: YAML 1.1 booleans (``yes``/``off``), ``0x``/
``0o``/sexagesimal integers, ``.inf``, timestamps. ``tests/test_yamlfast.py`` checks it
against the full path on every shipped file and on generated documents.

Examples
--------
>>> from infra.models.yamlio import _Loader
>>> value, index = build(_Loader("a: [1, yes, 2020-01-02]\\nb: {c: ~}\\n"))
>>> value
{'a': [1, True, datetime.date(2020, 1, 2)], 'b': {'c': None}}
>>> index.line(("b", "c")), index.line(("a", 2)), index.line(("zz",))
(2, 1, 1)
"""

from __future__ import annotations

from typing import Any

from yaml.events import (AliasEvent, DocumentEndEvent, MappingEndEvent, MappingStartEvent,
                         ScalarEvent, SequenceEndEvent, SequenceStartEvent, StreamEndEvent)
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

MAX_DEPTH = 64  # nesting levels; real designs use fewer than 10 (yamlio checks the same)

_CORE = "tag:yaml.org,2002:"
_STR, _MAP, _SEQ = _CORE + "str", _CORE + "map", _CORE + "seq"
SCALAR_TAGS = frozenset(_CORE + t for t in ("str", "int", "float", "bool", "null", "timestamp"))
_NOKEY = object()
_MISSING = object()


class Fallback(Exception):
    """The document needs the full path (compose, check, construct)."""


class LineIndex:
    """Line of every mapping key and list item of one document.

    A mapping is a dict ``key text -> (line of the key, child)``, a list a list of
    ``(line of the item, child)``; a scalar child is None. Keys are looked up by their
    text as written (``01`` is not ``1``), the first one kept, as the node tree did.
    """

    __slots__ = ("root_line", "root")

    def __init__(self, root_line: int, root: dict | list | None) -> None:
        self.root_line, self.root = root_line, root

    def line(self, yaml_path: tuple) -> int:
        """1-based line of the deepest node of ``yaml_path`` that exists."""
        node, line = self.root, self.root_line
        for key in yaml_path:
            if isinstance(node, dict):
                found = node.get(str(key))
                if found is None:
                    return line
                line, node = found
            elif isinstance(node, list) and isinstance(key, int):
                if not 0 <= key < len(node):
                    return line
                line, node = node[key]
            else:
                return line
        return line


def index_of_nodes(root) -> LineIndex:
    """The :class:`LineIndex` of a composed node tree (the full path's result)."""
    memo: dict[int, Any] = {}

    def sub(node):
        if isinstance(node, (MappingNode, SequenceNode)):
            out = memo.get(id(node))
            if out is None:
                out = memo[id(node)] = {} if isinstance(node, MappingNode) else []
                todo.append((node, out))
            return out
        return None

    todo: list = []
    top = sub(root)
    while todo:  # iterative: aliases may share (or, unchecked, contain) a node
        node, out = todo.pop()
        if isinstance(node, MappingNode):
            for k, v in node.value:
                if isinstance(k, ScalarNode) and k.value not in out:
                    out[k.value] = (k.start_mark.line + 1, sub(v))
        else:
            out.extend((c.start_mark.line + 1, sub(c)) for c in node.value)
    return LineIndex(root.start_mark.line + 1, top)


def build(loader) -> tuple[Any, LineIndex]:
    """The document's value and line index from ``loader``'s events (see the module).

    Raises
    ------
    Fallback
        Whenever the document needs the full path; nothing else.
    """
    try:
        return _build(loader)
    except Fallback:
        raise
    except Exception as exc:  # noqa: BLE001 - parse errors, bad scalars: the full path says
        raise Fallback(str(exc)) from None


def _build(loader) -> tuple[Any, LineIndex]:  # noqa: C901 - one loop over the events, on purpose
    get = loader.get_event
    get()  # StreamStart
    if type(get()) is StreamEndEvent:  # no document at all
        raise Fallback("empty")
    resolve, constructors = loader.resolve, loader.yaml_constructors
    tags: dict = {}  # (text, implicit) -> tag
    values: dict = {}  # (tag, text) -> value (all immutable: str, int, float, bool, None, date)
    # a frame: [is a mapping, container, index, pending key, its text, its line, own line];
    # containers are pushed at most MAX_DEPTH - 1 deep, so no node is deeper than MAX_DEPTH
    stack: list[list] = []
    root: Any = _MISSING
    root_line, root_sub = 1, None
    while True:
        ev = get()
        t = type(ev)
        if t is ScalarEvent:
            text, tag = ev.value, ev.tag
            if ev.anchor is not None:  # the composer checks anchors (repeated ones too)
                raise Fallback("anchor")
            if tag is None or tag == "!":
                tk = (text, ev.implicit)
                tag = tags.get(tk)
                if tag is None:
                    tag = tags[tk] = resolve(ScalarNode, text, ev.implicit)
            if tag == _STR:
                value = text
            else:
                value = values.get((tag, text), _MISSING)
                if value is _MISSING:
                    if tag not in SCALAR_TAGS:
                        raise Fallback(tag)
                    node = ScalarNode(tag, text, ev.start_mark, ev.end_mark)
                    value = values[(tag, text)] = constructors[tag](loader, node)
            sub = line = None  # the line is read off the event only where it is kept
        elif t is MappingStartEvent or t is SequenceStartEvent:
            tag = ev.tag
            if ev.anchor is not None:
                raise Fallback("anchor")
            is_map = t is MappingStartEvent
            if tag is None or tag == "!":
                tag = resolve(MappingNode if is_map else SequenceNode, None, ev.implicit)
            if tag != (_MAP if is_map else _SEQ) or len(stack) + 1 >= MAX_DEPTH:
                raise Fallback(tag)
            if stack and stack[-1][3] is _NOKEY:  # a mapping or list as a mapping key
                raise Fallback("complex key")
            line = ev.start_mark.line + 1
            if is_map:
                stack.append([True, {}, {}, _NOKEY, None, 0, line])
            else:
                stack.append([False, [], [], None, None, 0, line])
            continue
        elif t is MappingEndEvent or t is SequenceEndEvent:
            _, value, sub, _, _, _, line = stack.pop()
        elif t is DocumentEndEvent:
            if type(get()) is not StreamEndEvent:
                raise Fallback("several documents")
            return root, LineIndex(root_line, root_sub)
        else:  # AliasEvent: the full path counts the expansion
            raise Fallback("alias" if t is AliasEvent else t.__name__)
        if not stack:
            root, root_sub = value, sub
            root_line = line if line is not None else ev.start_mark.line + 1
            continue
        frame = stack[-1]
        if not frame[0]:  # a list item
            frame[1].append(value)
            frame[2].append((line if line is not None else ev.start_mark.line + 1, sub))
        elif frame[3] is _NOKEY:  # a mapping key (only a scalar gets here)
            if text in frame[2]:  # a duplicate, or the same text under another tag
                raise Fallback("repeated key")
            frame[3], frame[4], frame[5] = value, text, ev.start_mark.line + 1
        else:  # a mapping value: its line is its key's
            frame[1][frame[3]] = value
            frame[2][frame[4]] = (frame[5], sub)
            frame[3] = _NOKEY
