"""Read YAML input files safely, once, and answer "which line is this YAML path on?".

Every input file (design, catalog part, rates, prices) goes through :func:`read_yaml`,
which refuses, with the file and line:

- anything that is not a regular file (a FIFO, ``/dev/zero``, a directory, a symlink
  loop) and files over :data:`MAX_FILE_BYTES`; the file is read with bounded memory;
- bytes that are not UTF-8, control characters, malformed YAML, several documents;
- YAML tags outside the safe schema (:data:`ALLOWED_TAGS`: strings, integers, floats,
  booleans, null, dates, lists, mappings, ``<<`` merges): no ``!!binary``,
  ``!!set``, ``!!python/...`` or application tags;
- a key repeated in one mapping (PyYAML would silently keep the last one);
- aliases that would expand the document by more than :data:`ALIAS_BUDGET` nodes
  (counted on the node graph, never expanded), or that refer to themselves;
- nesting deeper than :data:`MAX_DEPTH` levels.

A line index of every key and list item is kept (per file, keyed by path, size and
mtime), so :func:`line_of` answers from the one parse: no file is parsed twice.

Examples
--------
>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> f = d / "x.yaml"
>>> _ = f.write_text("name: t\\nbuild:\\n  r: 1\\n")
>>> read_yaml(f)
{'name': 't', 'build': {'r': 1}}
>>> line_of(f, ("build", "r"))
3
>>> _ = f.write_text("build: {r: 1}\\nbuild: {r: 9}\\n")
>>> read_yaml(f)
Traceback (most recent call last):
...
infra.errors.InfraError: ...x.yaml:2: build: duplicate key (first defined on line 1) (remove one of them)
"""

from __future__ import annotations

import os
import stat
from collections import OrderedDict
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from infra.errors import InfraError, describe_value, set_line_locator
from infra.models import yamlfast

MAX_FILE_BYTES = 16 * 1024 * 1024  # 16 MiB: ~100x the largest realistic design
ALIAS_BUDGET = 100_000  # nodes that aliases may add beyond the file's own nodes
MAX_DEPTH = yamlfast.MAX_DEPTH  # one limit for both paths

_CORE = "tag:yaml.org,2002:"
ALLOWED_TAGS = frozenset(
    _CORE + t for t in ("str", "int", "float", "bool", "null", "timestamp", "seq", "map", "merge")
)

try:  # libyaml is 5-10x faster when present (``yaml.CParser`` is not exported: use cyaml)
    from yaml.cyaml import CParser as _Parser  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - depends on the PyYAML build
    from yaml.composer import Composer
    from yaml.parser import Parser
    from yaml.reader import Reader
    from yaml.scanner import Scanner

    class _Parser(Reader, Scanner, Parser, Composer):  # type: ignore[no-redef]
        def __init__(self, stream):
            Reader.__init__(self, stream)
            Scanner.__init__(self)
            Parser.__init__(self)
            Composer.__init__(self)


class _Loader(_Parser, yaml.constructor.SafeConstructor, yaml.resolver.Resolver):
    """Safe loader: libyaml's parser, PyYAML's safe constructor and resolver."""

    def __init__(self, stream):
        _Parser.__init__(self, stream)
        yaml.constructor.SafeConstructor.__init__(self)
        yaml.resolver.Resolver.__init__(self)


# ----------------------------------------------------------------------------- reading

def read_text(path: Path, error_cls: type[InfraError] = InfraError) -> str:
    """The text of a regular, UTF-8 file of at most :data:`MAX_FILE_BYTES`."""
    path = Path(path)
    where = {"file": str(path)}
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise error_cls("file not found", **where, hint="check the path") from None
    except OSError as exc:  # ELOOP (symlink loop), EACCES on a parent, ENAMETOOLONG...
        raise error_cls(f"cannot read file: {exc.strerror or exc}", **where) from None
    if stat.S_ISDIR(st.st_mode):
        raise error_cls("is a directory, not a YAML file", **where, hint="name a .yaml file")
    if not stat.S_ISREG(st.st_mode):
        raise error_cls("not a regular file (a FIFO, socket or device)", **where,
                        hint="save the input to a file and pass that")
    if st.st_size > MAX_FILE_BYTES:
        raise error_cls(f"file is {st.st_size:,} bytes, over the {MAX_FILE_BYTES:,}-byte limit",
                        **where, hint="split it or remove padding")
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise error_cls(f"cannot read file: {exc.strerror or exc}", **where) from None
    if len(raw) > MAX_FILE_BYTES:  # grew since stat
        raise error_cls(f"file is over the {MAX_FILE_BYTES:,}-byte limit", **where)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise error_cls(f"byte 0x{raw[exc.start]:02x} at column {col} is not UTF-8", **where,
                        line=line, hint="save the file as UTF-8") from None
    return text[1:] if text.startswith("\ufeff") else text


def _line_at(text: str, index: int) -> int:
    return text.count("\n", 0, max(0, index)) + 1


def _last_line(text: str) -> int:
    return max(1, text.count("\n") + (0 if text.endswith("\n") else 1))


def _too_deep(exc: Exception) -> bool:
    """The pure-Python parser recurses per nesting level; libyaml stops at 1,000 levels."""
    return isinstance(exc, RecursionError) or (
        isinstance(exc, yaml.scanner.ScannerError)
        and "maximum nesting depth" in str(getattr(exc, "problem", "")))


def _compose(text: str, path: Path, error_cls: type[InfraError]) -> tuple[Node | None, _Loader]:
    try:
        loader = _Loader(text)
        return loader.get_single_node(), loader
    except yaml.reader.ReaderError as exc:
        char = exc.character
        what = f"#x{char:04x}" if isinstance(char, int) else repr(char)
        raise error_cls(f"character {what} is not allowed in YAML (control characters)",
                        file=str(path), line=_line_at(text, exc.position),
                        hint="delete it or put it in a quoted string as an escape") from None
    except (RecursionError, yaml.YAMLError) as exc:
        if _too_deep(exc):
            raise error_cls("nested too deeply to parse (brackets or indentation many "
                            "hundreds of levels deep)", file=str(path), line=1,
                            hint=f"flatten the structure; at most {MAX_DEPTH} levels are "
                            "accepted") from None
        mark = getattr(exc, "problem_mark", None)
        line = min(mark.line + 1, _last_line(text)) if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        context = getattr(exc, "context", None)
        msg = f"malformed YAML: {problem}" + (f" ({context})" if context else "")
        raise error_cls(msg, file=str(path), line=line,
                        hint="fix the indentation, quoting or brackets on that line") from None


def read_yaml(path: Path, error_cls: type[InfraError] = InfraError) -> Any:
    """Parse ``path`` once, refusing unsafe or ambiguous YAML (see the module docstring).

    A plain document (no aliases, merges or unusual tags: every design and catalog file)
    is read in one pass over libyaml's events (:mod:`infra.models.yamlfast`); anything
    else, and every error, takes the full path: compose, :func:`_check`, construct.

    Raises
    ------
    InfraError
        As ``error_cls``, with the file and, where there is one, the line.
    """
    path = Path(path)
    text = read_text(path, error_cls)
    fast = _Loader(text)
    try:
        value, index = yamlfast.build(fast)
    except yamlfast.Fallback:
        return _read_full(text, path, error_cls)
    finally:
        fast.dispose()
    _remember(path, index)
    return value


def _read_full(text: str, path: Path, error_cls: type[InfraError]) -> Any:
    """Compose, check and construct with PyYAML (aliases, merges and every error)."""
    node, loader = _compose(text, path, error_cls)
    try:
        if node is None:
            return None
        _check(node, path, error_cls)
        _remember(path, yamlfast.index_of_nodes(node))
        try:
            return loader.construct_document(node)
        except (ValueError, KeyError, IndexError, TypeError, OverflowError, AttributeError,
                yaml.YAMLError) as exc:
            raise _constructor_error(node, loader, path, error_cls, exc) from None
    finally:
        loader.dispose()


# ----------------------------------------------------------------------------- checks

def _tag_name(tag: str) -> str:
    return "!!" + tag[len(_CORE):] if tag.startswith(_CORE) else tag


def _check(root: Node, path: Path, error_cls: type[InfraError]) -> None:
    """Tags, duplicate keys, depth, and the alias expansion budget, without expanding."""
    file = str(path)
    seen: set[int] = set()
    shared = False  # a node reached twice is an alias target
    stack: list[tuple[Node, int, tuple]] = [(root, 1, ())]
    while stack:
        node, depth, where = stack.pop()
        if id(node) in seen:
            shared = True
            continue
        seen.add(id(node))
        line = node.start_mark.line + 1
        if node.tag not in ALLOWED_TAGS:
            raise error_cls(f"YAML tag {_tag_name(node.tag)} is not allowed", file=file,
                            line=line, hint="remove the tag; inputs use plain strings, numbers, "
                            "booleans, lists and mappings")
        if depth > MAX_DEPTH:
            raise error_cls(f"nested deeper than {MAX_DEPTH} levels", file=file, line=line,
                            hint="flatten the structure")
        if isinstance(node, MappingNode):
            first: dict[tuple[str, str], int] = {}
            for k, v in node.value:
                if not isinstance(k, ScalarNode):
                    raise error_cls("a mapping key must be a plain string or number", file=file,
                                    line=k.start_mark.line + 1, hint="quote the key")
                if k.tag == _CORE + "merge":
                    stack.append((v, depth + 1, where))
                    continue
                key = (k.tag, k.value)
                kline = k.start_mark.line + 1
                if key in first:
                    raise error_cls(f"duplicate key (first defined on line {first[key]})",
                                    file=file, path=where + (describe_value(k.value, 40, bare=True),),
                                    line=kline, hint="remove one of them")
                first[key] = kline
                stack.append((k, depth + 1, where))
                stack.append((v, depth + 1, where + (k.value[:40],)))
        elif isinstance(node, SequenceNode):
            stack.extend((c, depth + 1, where + (i,)) for i, c in enumerate(node.value))
    if shared:  # without aliases the document is its own size: nothing to count
        _check_aliases(root, len(seen), file, error_cls)


def _children(node: Node) -> list[Node]:
    if isinstance(node, MappingNode):
        return [n for kv in node.value for n in kv]
    if isinstance(node, SequenceNode):
        return list(node.value)
    return []


def _check_aliases(root: Node, distinct: int, file: str, error_cls: type[InfraError]) -> None:
    """Count the nodes the document would have with aliases expanded (memoised, iterative)."""
    limit = distinct + ALIAS_BUDGET
    size: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        nid = id(node)
        if done:
            on_path.discard(nid)
            size[nid] = min(1 + sum(size[id(c)] for c in _children(node)), limit + 1)
            continue
        if nid in size:
            continue
        if nid in on_path:
            raise error_cls("an alias refers to a node that contains it (a recursive alias)",
                            file=file, line=node.start_mark.line + 1, hint="remove the alias")
        on_path.add(nid)
        stack.append((node, True))
        stack.extend((c, False) for c in _children(node) if id(c) not in size)
    if size[id(root)] > limit:
        worst, where = root, None
        if isinstance(root, MappingNode) and root.value:
            over = [kv for kv in root.value if size.get(id(kv[1]), 0) > limit] or root.value
            worst = over[0][0]
            where = describe_value(str(worst.value), 40, bare=True)
        raise error_cls(f"aliases expand this document beyond {ALIAS_BUDGET:,} extra nodes "
                        f"(the file itself has {distinct:,})", file=file, path=where,
                        line=worst.start_mark.line + 1,
                        hint="write the repeated parts out, or use fewer nested aliases")


_SCALAR_BUILDERS = {
    _CORE + "int": "construct_yaml_int",
    _CORE + "float": "construct_yaml_float",
    _CORE + "bool": "construct_yaml_bool",
    _CORE + "timestamp": "construct_yaml_timestamp",
}


def _constructor_error(root: Node, loader: _Loader, path: Path, error_cls: type[InfraError],
                       exc: Exception) -> InfraError:
    """Find the scalar whose value does not fit its tag (``!!bool maybe``, ``2020-13-45``)."""
    stack = [root]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, ScalarNode) and node.tag in _SCALAR_BUILDERS:
            try:
                getattr(loader, _SCALAR_BUILDERS[node.tag])(node)
            except Exception:  # noqa: BLE001 - any failure here is this node's value
                return error_cls(
                    f"malformed YAML: {describe_value(node.value)} is not a valid "
                    f"{_tag_name(node.tag)}", file=str(path), line=node.start_mark.line + 1,
                    hint="fix the value or quote it to make it a string")
        stack.extend(_children(node))
    return error_cls(f"malformed YAML: {type(exc).__name__}: {describe_value(str(exc))}",
                     file=str(path))


# ----------------------------------------------------------------------------- line index

_CACHE: OrderedDict[str, tuple[tuple[int, int], yamlfast.LineIndex | None]] = OrderedDict()
_CACHE_FILES = 256


def _stat_key(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


def _remember(path: Path, index: yamlfast.LineIndex | None) -> yamlfast.LineIndex | None:
    key = _stat_key(path) or (0, -1)
    _CACHE[str(path)] = (key, index)
    _CACHE.move_to_end(str(path))
    while len(_CACHE) > _CACHE_FILES:
        _CACHE.popitem(last=False)
    return index


def _index(path: Path) -> yamlfast.LineIndex | None:
    key = _stat_key(path)
    if key is None:
        return None
    hit = _CACHE.get(str(path))
    if hit is not None and hit[0] == key:
        return hit[1]
    try:  # changed since it was read (or never read): parse it once more, and keep it
        text = read_text(path)
        node, loader = _compose(text, path, InfraError)
        loader.dispose()
    except InfraError:
        return None
    return _remember(path, None if node is None else yamlfast.index_of_nodes(node))


def line_of(path: Path, yaml_path: tuple[str | int, ...]) -> int | None:
    """1-based line of the deepest node of ``yaml_path`` that exists in ``path``.

    Answers from the line index kept by :func:`read_yaml` (a dictionary lookup per
    key); the file is parsed again only if it changed on disk since it was read.
    """
    index = _index(Path(path))
    return None if index is None else index.line(tuple(yaml_path))


set_line_locator(line_of)  # errors raised with LOCATE find their line here, when shown
