"""Readers for the text reports ``nvidia-smi topo -m`` and ``nvidia-smi nvlink -s``.

``topo -m`` is parsed from its header, never by fixed positions: the column set changed
across drivers (NIC names moved from the header into a ``NIC Legend``; ``GPU NUMA ID``
was added), and affinity cells hold commas and ranges (``0,3-9,11-17``); see
interop-formats.md §7. ``nvlink -s`` lists each GPU's links with their line rate or
``<inactive>`` (§8).

Examples
--------
>>> text = '''GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1)
...          Link 0: 26.562 GB/s
...          Link 1: <inactive>'''
>>> g = parse_nvlink_text(text, "x.txt")[0]
>>> g.uuid, g.active, g.inactive, g.links[0]
('GPU-1', 1, 1, (0, 26.562))
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path

from infra.ingest.base import MEMO_BYTES, InventoryError, as_path, na, read_text, small_int

TOPO_TOOL = "nvidia-smi topo -m"
NVLINK_TOOL = "nvidia-smi nvlink -s"
PATH_CLASSES = ("X", "PIX", "PXB", "PHB", "NODE", "SYS")  # nearest first (NV# is NVLink)
_EXTRA_COLUMNS = ("CPU Affinity", "NUMA Affinity", "GPU NUMA ID")
_DEVICE = re.compile(r"^(GPU\d+|NIC\d+|mlx5_\d+|[a-z]+\d*_\d+)$")


@dataclass(frozen=True)
class TopoMatrix:
    """The ``topo -m`` pair matrix: device names are ``GPUi`` and NIC device names."""

    file: str
    gpus: tuple[str, ...]
    nics: tuple[str, ...]  # device names (``mlx5_0``), legend applied
    cells: dict[tuple[str, str], str]  # (row, column) -> X / NV18 / PIX / SYS ...
    cpu_affinity: dict[str, str | None]
    numa_affinity: dict[str, str | None]
    # nearest_nic's answers, shared by the matrices of one text (identical servers)
    _nearest: dict = field(default_factory=dict, repr=False, compare=False)

    def nvlinks(self, a: str, b: str) -> int:
        """Bonded NVLinks between two GPUs (0 when the pair is not NV#)."""
        m = re.match(r"NV(\d{1,4})$", self.cells.get((a, b), ""))
        return int(m.group(1)) if m else 0

    def nearest_nic(self, gpu: str) -> tuple[str | None, str | None]:
        """(NIC, path class) of the NIC closest to ``gpu`` over PCIe."""
        hit = self._nearest.get(gpu)
        if hit is None:
            hit = self._nearest[gpu] = self._nearest_nic(gpu)
        return hit

    def _nearest_nic(self, gpu: str) -> tuple[str | None, str | None]:
        best = None
        for nic in self.nics:
            cls = self.cells.get((gpu, nic))
            if cls in PATH_CLASSES and (best is None or PATH_CLASSES.index(cls) < PATH_CLASSES.index(best[1])):
                best = (nic, cls)
        return best or (None, None)


def parse_topo(path: Path | str) -> TopoMatrix:
    """Parse a saved ``nvidia-smi topo -m``.

    Raises
    ------
    InventoryError
        No ``GPU0`` header row, or a row whose cell count does not match the header.
    """
    path = as_path(path)
    return parse_topo_text(read_text(path, TOPO_TOOL), str(path))


# text -> the matrix's parts: identical servers print the same `topo -m`, read once
_TOPO_READ: dict[str, tuple] = {}
_MEMO_TEXTS = 64  # distinct texts kept (a site has a few server types), of MEMO_BYTES at most


def parse_topo_text(text: str, file: str) -> TopoMatrix:
    parts = _TOPO_READ.get(text)
    if parts is None:
        parts = _parse_topo_text(text, file)
        if len(text) <= MEMO_BYTES:
            if len(_TOPO_READ) >= _MEMO_TEXTS:
                _TOPO_READ.clear()
            _TOPO_READ[text] = parts
    return TopoMatrix(file, *parts)  # the dicts are shared: read, never written


def _parse_topo_text(text: str, file: str) -> tuple:
    lines = text.splitlines()
    head_i = next((i for i, l in enumerate(lines) if _is_header(l.split())), None)
    if head_i is None:
        raise InventoryError("no `GPU0 GPU1 ...` header row: not `nvidia-smi topo -m` output",
                             file=file, hint=f"save the output of `{TOPO_TOOL}`")
    header = lines[head_i]
    extras = [c for c in _EXTRA_COLUMNS if c in header]
    names = header
    for c in extras:
        names = names.replace(c, " ")
    devices = names.split()
    legend = dict(re.findall(r"^\s*(NIC\d+)\s*:\s*(\S+)\s*$", text, flags=re.M))
    cells: dict[tuple[str, str], str] = {}
    cpu: dict[str, str | None] = {}
    numa: dict[str, str | None] = {}
    columns = [_name(col, legend) for col in devices]
    for n, line in enumerate(lines[head_i + 1:], start=head_i + 2):
        toks = line.split()
        if not toks or not _DEVICE.match(toks[0]):
            if toks and toks[0] == "Legend:":
                break
            continue
        row, vals = _name(toks[0], legend), toks[1:]
        if len(vals) < len(devices):
            raise InventoryError(f"row {toks[0]} has {len(vals)} cells, the header names "
                                 f"{len(devices)} devices", file=file, line=n)
        cells.update(zip(zip(repeat(row), columns), vals))
        rest = vals[len(devices):]
        cpu[row] = na(rest[0]) if len(rest) > 0 and extras else None
        numa[row] = na(rest[1]) if len(rest) > 1 else None
    gpus = tuple(d for d in devices if d.startswith("GPU"))
    nics = tuple(_name(d, legend) for d in devices if not d.startswith("GPU"))
    if not cells:
        raise InventoryError("header row but no device rows", file=file, line=head_i + 1)
    return gpus, nics, cells, cpu, numa, {}


def _is_header(toks: list[str]) -> bool:
    """``GPU0 GPU1 ...`` (a row reads ``GPU0 X ...``)."""
    return len(toks) > 1 and toks[0] == "GPU0" and toks[1] != "X"


def _name(dev: str, legend: dict[str, str]) -> str:
    return legend.get(dev, dev)


@dataclass(frozen=True)
class NvlinkGpu:
    index: int
    name: str
    uuid: str | None
    links: tuple[tuple[int, float | None], ...]  # (link, GB/s line rate) or None: inactive
    # (active, inactive, fastest rate) of a block of links read once for many GPUs
    counts: tuple[int, int, float | None] | None = field(default=None, repr=False,
                                                         compare=False)

    @property
    def active(self) -> int:
        if self.counts is not None:
            return self.counts[0]
        return sum(1 for _, r in self.links if r is not None)

    @property
    def inactive(self) -> int:
        if self.counts is not None:
            return self.counts[1]
        return sum(1 for _, r in self.links if r is None)

    @property
    def fastest(self) -> float | None:
        """The highest line rate of an active link (None: no active link)."""
        if self.counts is not None:
            return self.counts[2]
        rates = [r for _, r in self.links if r is not None]
        return max(rates) if rates else None


# `GPU N: <name> (UUID: ...)` and `Link N: <rate> GB/s | <inactive>` lines; both line kinds in one pattern, for a single scan of the text (no line crosses a newline)
_NVLINK_LINES = re.compile(r"^(?:GPU (\d+): ([^\n]*?)(?: \(UUID: ([^)\n]*)\))?"
                           r"|[ \t]*Link (\d+): (?:(\d{1,9}(?:\.\d{1,9})?) GB/s|<inactive>))"
                           r"[ \t\r\f\v]*$", re.M)


def parse_nvlink(path: Path | str) -> tuple[NvlinkGpu, ...]:
    """Parse a saved ``nvidia-smi nvlink -s`` (per-link state and rate)."""
    path = as_path(path)
    return parse_nvlink_text(read_text(path, NVLINK_TOOL), str(path))


_GPU_LINE = re.compile(r"^GPU (\d+): ([^\n]*?)(?: \(UUID: ([^)\n]*)\))?[ \t\r\f\v]*$", re.M)
_LINK_LINE = re.compile(r"^[ \t]*Link (\d+): (?:(\d{1,9}(?:\.\d{1,9})?) GB/s|<inactive>)"
                        r"[ \t\r\f\v]*$", re.M)
_LINK_READ: dict[str, tuple] = {}  # a GPU's link lines -> (its links, their counts)


def parse_nvlink_text(text: str, file: str) -> tuple[NvlinkGpu, ...]:
    """The GPUs of ``nvlink -s`` text with their links. A GPU's block of link lines is
    read once for all the GPUs and nodes printing the same block (every GPU of a healthy
    node does); any unusual text is read line by line by :func:`_nvlink_lines`."""
    heads = _gpu_lines(text)
    if not heads or _LINK_LINE.search(text, 0, heads[0].start()):
        return _nvlink_lines(text, file)  # no GPU, or a link before it: the message
    out: list[NvlinkGpu] = []
    ends = [h.start() for h in heads[1:]] + [len(text)]
    for head, end in zip(heads, ends):
        block = text[head.end():end]
        read = _LINK_READ.get(block)
        if read is None:
            links = _links(block)
            if links is None:
                return _nvlink_lines(text, file)
            rates = [r for _, r in links if r is not None]
            read = links, (len(rates), len(links) - len(rates), max(rates) if rates else None)
            if len(block) <= MEMO_BYTES:
                if len(_LINK_READ) >= 256:
                    _LINK_READ.clear()
                _LINK_READ[block] = read
        gpu, name, uuid = head.groups()
        if len(gpu) > 9:
            return _nvlink_lines(text, file)
        out.append(NvlinkGpu(int(gpu), name.strip(), uuid, *read))
    return tuple(out)


def _gpu_lines(text: str) -> list[re.Match]:
    """``_GPU_LINE.finditer(text)``: the regex tried only where a line starts with
    ``GPU `` (found by ``str.find``), not at every character."""
    out = []
    match = _GPU_LINE.match
    pos = text.find("GPU ")
    while pos != -1:
        if pos == 0 or text[pos - 1] == "\n":
            m = match(text, pos)
            if m:
                out.append(m)
        pos = text.find("GPU ", pos + 4)
    return out


def _links(block: str) -> tuple | None:
    """(link, GB/s or None) of the link lines in ``block``; None where a link number
    has over 9 digits (read line by line, for the line's number in the message)."""
    links = []
    for m in _LINK_LINE.finditer(block):
        link, rate = m.groups()
        if len(link) > 9:
            return None
        links.append((int(link), float(rate) if rate else None))
    return tuple(links)


def _nvlink_lines(text: str, file: str) -> tuple[NvlinkGpu, ...]:
    out: list[NvlinkGpu] = []
    cur: tuple[int, str, str | None] | None = None
    links: list[tuple[int, float | None]] = []
    for m in _NVLINK_LINES.finditer(text):  # one C scan; other lines are skipped
        gpu, name, uuid, link, rate = m.groups()
        if gpu is not None:
            if cur:
                out.append(NvlinkGpu(*cur, tuple(links)))
            cur, links = (small_int(gpu, file, _line(text, m), "a GPU number"), name.strip(),
                          uuid), []
            continue
        if cur is None:
            raise InventoryError("a `Link N:` line before any `GPU N:` line", file=file,
                                 line=_line(text, m))
        links.append((small_int(link, file, _line(text, m), "a link number")
                      if len(link) > 9 else int(link), float(rate) if rate else None))
    if cur:
        out.append(NvlinkGpu(*cur, tuple(links)))
    if not out:
        raise InventoryError("no `GPU N: ... (UUID: ...)` line: not `nvidia-smi nvlink -s` output",
                             file=file, hint=f"save the output of `{NVLINK_TOOL}`")
    return tuple(out)


def _line(text: str, m: re.Match) -> int:
    return text.count("\n", 0, m.start()) + 1
