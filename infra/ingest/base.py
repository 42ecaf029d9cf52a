"""Shared reading rules for tool dumps: text sniffing, safe XML, tolerant values.

Dumps come from customer machines: they are untrusted input. A document declaring any
entity is refused before parsing (no entity expansion; no parser fetches an external DTD
or entity), the rules ``defusedxml`` applies. XML is parsed by libxml2 (lxml: a
dependency already, 2.5x faster than expat on ``nvidia-smi -q -x``) where the two C
parsers read a document alike (ASCII text, no ``<!ATTLIST`` defaults, no entity
reference but the five predefined and character references), else, and for every
document libxml2 refuses, by the C ElementTree parser (expat), whose words the error
messages keep; a binary file, a truncated document or the output of the wrong tool
raises :class:`InventoryError` with the file named and the tool that would produce the
expected output.

Examples
--------
>>> na("N/A") is None, na(" 16x "), to_int("16x"), to_int("N/A")
(True, '16x', 16, None)
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import os
import re
import stat
import threading
import xml.etree.ElementTree as StdET
import xml.parsers.expat as _expat
from collections.abc import Iterator
from pathlib import Path

from infra.errors import InfraError

try:
    from lxml import etree as _LX
except ImportError:  # pragma: no cover - lxml is a dependency; expat reads alone then
    _LX = None

MAX_DIGITS = 18  # a number in a dump has at most this many digits (0x + 16 hex digits)
MAX_DUMP_BYTES = 64 * 1024 * 1024  # the largest real dump seen is ~0.4 MB (qx-b200.xml)
# a text dump identical servers print alike (topo -m, lspci -tv, an nvlink -s block) is
# read once and kept, when at most this long (real ones: 3-10 kB): memory stays bounded
MEMO_BYTES = 256 * 1024

# Bodies nvidia-smi writes where a reading is absent (interop-formats.md §6.4).
_ABSENT = {"", "n/a", "[n/a]", "not supported", "[not supported]", "unknown", "none",
           "requested functionality has been deprecated", "not available", "[unknown error]"}


class InventoryError(InfraError):
    """A dump in an inventory directory is unreadable, truncated or of the wrong tool."""


# the inventory's real path and the directories under it already found inside
_ROOT: contextvars.ContextVar[tuple[str, dict[str, bool]] | None] = contextvars.ContextVar(
    "inventory_root", default=None)


@contextlib.contextmanager
def inventory_root(root: Path | str) -> Iterator[None]:
    """While inside, every dump read must resolve to a file inside ``root`` (the inventory
    directory the user named); outside, inside the dump's own directory."""
    token = _ROOT.set((os.path.realpath(root), {os.fspath(root): True}))
    try:
        yield
    finally:
        _ROOT.reset(token)


def _within(real: str, top: str) -> bool:
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def _inside(path: Path, state: tuple[str, dict[str, bool]], st: os.stat_result | None) -> bool:
    """``path`` (``st``: its ``lstat``, None when absent) resolves inside the root: a file
    that is no symbolic link lies where its directory does (each directory resolved
    once); a link is resolved in full."""
    top, dirs = state
    if st is not None and stat.S_ISLNK(st.st_mode):
        return _within(os.path.realpath(path), top)
    parent = os.path.dirname(os.fspath(path)) or "."
    inside = dirs.get(parent)
    if inside is None:
        grand, name = os.path.split(parent)
        if dirs.get(grand) and name not in ("", ".", "..") and not os.path.islink(parent):
            inside = True  # no link, in a directory inside: a host directory, one lstat
        else:
            inside = _within(os.path.realpath(parent), top)
        dirs[parent] = inside
    return inside


def as_path(path: Path | str) -> Path:
    """``Path(path)``, without building it again when it is one (a few microseconds a
    file, over a site's dumps)."""
    return path if type(path) is _PATH else Path(path)


_PATH = type(Path())


def check_dump(path: Path, tool: str) -> os.stat_result:
    """``path`` is a regular file inside the inventory, not reached through a symbolic
    link that leads out of it; returns its ``stat``. Nothing of it is read here.

    Inventories arrive as tarballs from other machines and keep their symbolic links: a
    link to ``/etc/shadow`` named ``guid-map.txt`` must not be read, let alone quoted.
    """
    path = as_path(path)
    state = _ROOT.get() or (os.path.realpath(path.parent), {})
    try:
        st = os.lstat(path)
    except OSError:
        st = None  # absent: reported by the stat below
    if not _inside(path, state, st):
        raise InventoryError("a symbolic link to a file outside the inventory directory: "
                             "refused, not read", file=str(path),
                             hint="copy the dump into the inventory (cp -L, tar -h) "
                                  "instead of linking to it")
    try:
        if st is None or stat.S_ISLNK(st.st_mode):  # else lstat already said what stat would
            st = os.stat(path)
    except OSError as exc:
        raise InventoryError(f"cannot read: {exc.strerror or exc}", file=str(path)) from None
    if not stat.S_ISREG(st.st_mode):
        kind = "a directory" if stat.S_ISDIR(st.st_mode) else "a FIFO, socket or device"
        raise InventoryError(f"not a regular file ({kind}); expected `{tool}` output",
                             file=str(path), hint=f"save the command's output: {tool} > "
                                                  f"{path.name}")
    return st


def read_text(path: Path, tool: str) -> str:
    """The text of ``path``; binary, oversized or undecodable files raise.

    The file must be a regular file inside the inventory (:func:`check_dump`); its size
    is checked before anything is read.

    Parameters
    ----------
    path : Path
        A dump file.
    tool : str
        The command whose output is expected there (for the message).
    """
    return _decode(read_bytes(path, tool), path, tool)


def read_bytes(path: Path, tool: str) -> bytes:
    """The bytes of ``path`` after the checks of :func:`read_text` but the decoding."""
    st = check_dump(path, tool)
    if st.st_size > MAX_DUMP_BYTES:
        raise InventoryError(f"{st.st_size:,} bytes is too large for `{tool}` output "
                             f"(limit {MAX_DUMP_BYTES:,})", file=str(path))
    try:
        data = _read_fd(path, st.st_size)
    except OSError as exc:
        raise InventoryError(f"cannot read: {exc.strerror or exc}", file=str(path)) from None
    if len(data) > MAX_DUMP_BYTES:
        raise InventoryError(f"over {MAX_DUMP_BYTES:,} bytes is too large for `{tool}` output "
                             f"(limit {MAX_DUMP_BYTES:,})", file=str(path))
    if b"\x00" in data[:65536]:
        raise InventoryError(f"binary file, not the text output of `{tool}`", file=str(path),
                             hint=f"save the command's standard output: {tool} > {Path(path).name}")
    return data


def _read_fd(path: Path, size: int) -> bytes:
    """At most ``MAX_DUMP_BYTES + 1`` bytes of ``path`` (``size``: its size when checked;
    a file grown since is read on to the limit), through the descriptor: no buffered
    file object, no buffer of the limit's size for a 20 kB dump."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        data = os.read(fd, size + 1)
        if len(data) == size or not data:  # the file as checked, whole: no second read
            return data
        chunks = [data]
        total = len(data)
        while total <= MAX_DUMP_BYTES:  # to the end of the file (a read may return less)
            more = os.read(fd, min(max(size + 1 - total, 65536), MAX_DUMP_BYTES + 1 - total))
            if not more:
                break
            chunks.append(more)
            total += len(more)
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)
    finally:
        os.close(fd)


def _decode(data: bytes, path: Path, tool: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if _mostly_text(data):  # a stray byte in a device name: keep the rest readable
            return data.decode("utf-8", errors="replace")
        raise InventoryError(f"not text (undecodable byte at offset {exc.start}); expected "
                             f"`{tool}` output", file=str(path)) from None


def _mostly_text(data: bytes) -> bool:
    sample = data[:65536]
    printable = sum(1 for b in sample if b >= 32 or b in (9, 10, 13))
    return printable / max(len(sample), 1) > 0.98


def parse_xml(path: Path, tool: str, root: str, others: dict[str, str] | None = None,
              tree: bool = True) -> StdET.Element | None:
    """Parse ``path`` safely and check its root element is ``root``.

    ``others`` maps root tags of other known dumps to their tool, for a precise message
    when a file holds the wrong tool's output. The element returned has the ElementTree
    API (an lxml element, or an ElementTree one where expat read the document): read it
    by iterating children (lxml's ``find`` compiles a path each call). With ``tree``
    False the document is checked alike (the same errors) but no tree is built where
    expat can tell (None is returned then).
    """
    data = read_bytes(path, tool)
    text = _decode(data, path, tool)
    if not text.lstrip().startswith("<"):  # the content is never quoted: it may be anything
        raise InventoryError(f"not XML (does not start with '<'); expected `{tool}` output",
                             file=str(path), line=1, hint=f"save the output of `{tool}`")
    if "<!ENTITY" in text:  # entity expansion (billion laughs) and external entities
        raise InventoryError("XML with forbidden constructs (an entity declaration, line "
                             f"{text.count(chr(10), 0, text.index('<!ENTITY')) + 1}): refused",
                             file=str(path), hint="tool dumps never declare entities")
    el = None if tree is False else _libxml2(data, text)
    tag = _expat_root(text) if el is None and tree is False else None
    try:
        if el is None and tag is None:
            parser = StdET.XMLParser()  # the C parser; no external DTD or entity is fetched
            parser.feed(text)
            el = parser.close()
    except StdET.ParseError as exc:
        line = exc.position[0] if getattr(exc, "position", None) else None
        raise InventoryError(f"malformed or truncated XML: {exc}", file=str(path), line=line,
                             hint=f"capture the whole output again: {tool}") from None
    if tag is None:
        tag = el.tag
    if tag != root:
        known = (others or {}).get(tag)
        what = f"looks like `{known}` output" if known else f"root element <{tag}>"
        raise InventoryError(f"{what}, expected `{tool}` output (root <{root}>)", file=str(path))
    return el


def _expat_root(text: str) -> str | None:
    """The root tag of a document expat finds well-formed, in ElementTree's spelling,
    without building its tree (one callback: the first start tag); None where expat
    refuses it or where ElementTree's handlers might (entity references: see
    :func:`_libxml2`). For a dump checked but not read."""
    if not text.isascii() or ("&" in text and _ODD_REF.search(text)):
        return None
    parser = _expat.ParserCreate(None, "}")  # ElementTree's namespace separator
    first: list[str] = []

    def start(name, attrs) -> None:
        first.append(name)
        parser.StartElementHandler = None

    parser.StartElementHandler = start
    try:
        parser.Parse(text, True)
    except _expat.ExpatError:
        return None
    return ("{" + first[0] if "}" in first[0] else first[0]) if first else None


# an entity reference other than the five predefined ones or a character reference:
# expat refuses it, libxml2 keeps it unexpanded where the document names an external DTD
_ODD_REF = re.compile(r"&(?!(?:amp|lt|gt|apos|quot|#[0-9]+|#x[0-9a-fA-F]+);)")
_LOCAL = threading.local()  # one lxml parser a thread (a parser is not shared by threads)


_DOCTYPE = re.compile(r"<!DOCTYPE\s+([^\s>\[]+)")


def _plain_doctype(text: str) -> bool:
    """No ``<!DOCTYPE``, or one whose name has no colon (expat, reading namespaces,
    refuses ``<!DOCTYPE :x>``; libxml2 does not look)."""
    i = text.find("<!DOCTYPE")
    if i == -1:
        return True
    m = _DOCTYPE.match(text, i)
    return m is not None and ":" not in m.group(1) and text.find("<!DOCTYPE", i + 1) == -1


def _libxml2(data: bytes, text: str):
    """The document's root as libxml2 reads it, or None: where it may read the document
    otherwise than expat (non-ASCII names, ``<!ATTLIST`` default attributes, entity
    references an external DTD might declare, a DOCTYPE name with a colon: found by
    the differential test), or where it refuses it (expat then parses
    it and names the fault; libxml2 also refuses depths over 256 and text nodes over
    10 MB, which expat reads). A differential test checks both read cut and spliced real
    dumps alike (tests/test_ingest_hostile.py)."""
    if _LX is None or not text.isascii() or "<!ATTLIST" in text or (
            "&" in text and _ODD_REF.search(text)) or not _plain_doctype(text):
        return None
    parser = getattr(_LOCAL, "parser", None)
    if parser is None:  # no DTD loaded, no network, no entity substituted, no huge tree
        parser = _LOCAL.parser = _LX.XMLParser(
            resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False,
            remove_comments=True, remove_pis=True, encoding="utf-8")
    try:
        return _LX.fromstring(data, parser)  # ASCII: the bytes are the text expat reads
    except _LX.XMLSyntaxError:
        return None


def na(text: str | None) -> str | None:
    """``text`` stripped, or None where the tool printed an absent-value marker."""
    if text is None:
        return None
    t = text.strip()
    return None if t.lower() in _ABSENT else t


def small_int(digits: str, file: str, line: int, what: str) -> int:
    """``int(digits)`` for a number a dump prints (a port, a link, an index); a number of
    more than :data:`MAX_DIGITS` digits is no reading: InventoryError naming the line
    (never Python's digit-limit ValueError)."""
    if len(digits) > MAX_DIGITS:
        raise InventoryError(f"{what} has {len(digits):,} digits: not a reading of the tool",
                             file=file, line=line, hint="capture the output again")
    return int(digits)


def to_int(text: str | None) -> int | None:
    """The leading integer of a value such as ``16x`` or ``5``; None when absent."""
    if text is not None and text.isdecimal() and len(text) <= MAX_DIGITS:
        return int(text)  # the common case: a plain number ('²' is a digit, not decimal)
    t = na(text)
    if t is None:
        return None
    m = re.match(r"[-+]?(0x[0-9a-fA-F]+|\d+)", t)
    if not m or len(m.group(1)) > MAX_DIGITS:  # no reading has 19 digits: not a value
        return None
    return int(m.group(0), 0)


def find_text(el: StdET.Element, *paths: str) -> str | None:
    """The first present, non-absent value among ``paths`` (older and newer names).

    A path is child tags joined by ``/``, each looked up by the C ``find`` (no
    ElementPath compilation: 170 look-ups a node add up over a site)."""
    for p in paths:
        node = el
        for tag in p.split("/"):
            node = node.find(tag)
            if node is None:
                break
        if node is not None:
            value = na(node.text)
            if value is not None:
                return value
    return None


def zero_uuid(value: str | None) -> bool:
    """True for an all-zero (or absent) UUID: "not in a fabric cluster"."""
    return value is None or not value.replace("-", "").strip("0")


@functools.lru_cache(maxsize=4096)  # identical servers repeat the same bus ids
def norm_bus_id(bus: str | None) -> str | None:
    """``00000000:29:00.0`` / ``0000:29:00.0`` -> ``0000:29:00.0`` (lower case).

    Used only to join two dumps taken on the same node at the same time, never as an
    identity: bus IDs differ between VMs and bare metal.
    """
    if not bus:
        return None
    m = re.match(r"(?:([0-9a-fA-F]+):)?([0-9a-fA-F]{2}):([0-9a-fA-F]{2})\.([0-7])$", bus.strip())
    if not m:
        return bus.strip().lower()
    dom = int(m.group(1) or "0", 16)
    return f"{dom:04x}:{m.group(2).lower()}:{m.group(3).lower()}.{m.group(4)}"
