"""Reader for nccl-tests / rccl-tests standard output (``all_reduce_perf`` and friends).

The logs go in the inventory as ``DIR/nccl-tests/*.txt`` (or ``*.log``), one test's
standard output per file (several runs appended to one file are read as several runs).

What is read (nccl-tests ``src/util.cu``; older releases and rccl-tests print the same
table with fewer columns):

- the collective: ``# Collective test starting: all_reduce_perf`` (nccl-tests >= 2.14),
  else the file name (``all_reduce_perf*.txt``, ``all_gather``, ``reduce_scatter``,
  ``alltoall`` / ``all_to_all``, ``broadcast``; ``sendrecv``, ``reduce``, ``gather``,
  ``scatter``, ``hypercube`` are known but not modelled);
- the ranks: the ``#  Rank  N Group G Pid P on HOST device D [...] NAME`` lines (one per
  rank, gathered by rank 0; ranks of group 0 when ``NCCL_TESTS_SPLIT`` made several
  groups), else ``nranks N`` of an ``NCCL_DEBUG=INFO`` line;
- the table: the column header (``size count type redop root time algbw busbw #wrong``
  twice; ``error`` for ``#wrong``, no ``root`` column in old releases, per-iteration and
  timestamp columns in new ones) locates the columns; every line whose first field is an
  integer is a data row and must parse: out-of-place then in-place time, algbw, busbw;
- ``# Avg bus bandwidth`` and the NCCL version (``nccl-library=22005`` or ``NCCL
  version 2.20.5``), both optional.

Anything else (NCCL INFO lines, launcher noise) is skipped; ``mpirun --tag-output``
markers (``[1,0]<stdout>:``, ``[0]``) are removed first. Bad input raises
:class:`~infra.ingest.base.InventoryError` naming the file and line.

Examples
--------
>>> text = '''# Collective test starting: all_reduce_perf
... #  Rank  0 Group  0 Pid  1 on n1 device  0 [0000:18:00] NVIDIA H100 80GB HBM3
... #  Rank  1 Group  0 Pid  2 on n1 device  1 [0000:2a:00] NVIDIA H100 80GB HBM3
...  1073741824  268435456  float  sum  -1  5000.0  214.7  214.7  0  4990.0  215.2  215.2  0'''
>>> run = parse_nccl_tests_text(text, "x.txt")[0]
>>> run.op, run.ranks, run.rows[0].busbw_gbyte_s
('all_reduce', 2, 215.2)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from infra.ingest.base import InventoryError, read_text

TOOL = "nccl-tests (all_reduce_perf, all_gather_perf, ...)"
MAX_LOG_BYTES = 16 * 2**20  # a full -b 8 -e 16G sweep with NCCL_DEBUG=INFO is ~1 MB
DIRECTORY = "nccl-tests"
SUFFIXES = (".txt", ".log")
MODELLED = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast")
KNOWN = MODELLED + ("sendrecv", "reduce", "gather", "scatter", "hypercube", "alltoallv")
PROGRAMS = {"all_to_all": "alltoall_perf"}  # op -> test binary where the names differ
HINT = ("save the test's standard output, e.g. `all_reduce_perf -b 8 -e 8G -f 2 -g 8 > "
        "nccl-tests/all_reduce_perf.txt`")

_NAME = re.compile(r"(?<![a-z])(all_?reduce|all_?gather|reduce_?scatter|all_?to_?allv?|"
                   r"broadcast|send_?recv|reduce|gather|scatter|hypercube)")
_TAG = re.compile(r"\[\d+(?:,\d+)*\](?:<std(?:out|err)>:)?")
_RANK = re.compile(r"^#?\s*Rank\s+(\d+)\s+(?:Group\s+(\d+)\s+)?Pid\s+\d+\s+on\s+(\S+)"
                   r"(?:\s+device\s+\d+\s*(?:\[[^\]]*\])?\s*(.*))?$")
_START = re.compile(r"^#?\s*Collective test starting:\s*(\S+)")
_NTHREAD = re.compile(r"^#?\s*nThread\s+\d+\s+nGpus\s+\d+")
_NRANKS = re.compile(r"\bnranks\s+(\d+)\b")
_AVG = re.compile(r"^#?\s*Avg bus bandwidth\s*:\s*(\S+)")
_LIB = re.compile(r"nccl-library=(\d+)")
_VERSION = re.compile(r"\b[NR]CCL version (\d+\.\d+\.\d+)")
_LABEL = {"time_o": "out-of-place time", "algbw_o": "out-of-place algbw",
          "busbw_o": "out-of-place busbw", "time_i": "in-place time", "algbw_i": "in-place algbw",
          "busbw_i": "in-place busbw"}


@dataclass(frozen=True)
class NcclTestRow:
    """One data row: out-of-place and in-place results of one message size."""

    size_bytes: int
    count: int
    dtype: str
    oop_time_us: float
    oop_algbw_gbyte_s: float
    oop_busbw_gbyte_s: float
    ip_time_us: float | None
    ip_algbw_gbyte_s: float | None
    ip_busbw_gbyte_s: float | None
    wrong: int | None  # elements wrong (out-of-place + in-place); None: not checked
    line: int

    @property
    def busbw_gbyte_s(self) -> float:
        """The better of the out-of-place and in-place bus bandwidths."""
        return max(self.oop_busbw_gbyte_s, self.ip_busbw_gbyte_s or 0.0)


@dataclass(frozen=True)
class NcclTestRun:
    """One test run (a file holds one or several)."""

    file: str
    line: int  # where the run starts
    program: str | None  # all_reduce_perf (None: told by the file name)
    op: str  # all_reduce, all_gather, ... (infra.analysis.perf op names) or sendrecv, ...
    ranks: int
    hosts: tuple[str, ...]
    devices: tuple[str, ...]  # distinct device names (``NVIDIA H100 80GB HBM3``)
    library_version: str | None  # 2.20.5
    avg_busbw_gbyte_s: float | None
    rows: tuple[NcclTestRow, ...]

    @property
    def modelled(self) -> bool:
        return self.op in MODELLED


def op_of(name: str) -> str | None:
    """The collective a program or file name stands for (None: none known).

    >>> op_of("/opt/nccl-tests/build/alltoall_perf"), op_of("all_reduce_perf_mpi-2nodes.txt")
    ('all_to_all', 'all_reduce')
    >>> op_of("reduce_scatter.txt"), op_of("ReduceScatter.log"), op_of("results.txt")
    ('reduce_scatter', 'reduce_scatter', None)
    """
    base = Path(name).name.lower()
    m = _NAME.search(base)
    if not m:
        return None
    key = m.group(1).replace("_", "")
    return {"allreduce": "all_reduce", "allgather": "all_gather", "reducescatter": "reduce_scatter",
            "alltoall": "all_to_all", "alltoallv": "alltoallv", "sendrecv": "sendrecv"}.get(key, key)


def load_nccl_tests(root: Path | str) -> tuple[NcclTestRun, ...]:
    """Every run of ``root/nccl-tests/*.txt`` (and ``*.log``), by file name; () when absent."""
    d = Path(root) / DIRECTORY
    if not d.is_dir():
        return ()
    files = sorted(p for p in d.iterdir() if p.suffix.lower() in SUFFIXES
                   and not p.name.startswith(".") and p.is_file())
    if not files:
        raise InventoryError("no nccl-tests logs (*.txt, *.log) in the directory", file=str(d),
                             hint=HINT)
    return tuple(run for f in files for run in parse_nccl_tests(f))


def parse_nccl_tests(path: Path | str) -> tuple[NcclTestRun, ...]:
    """The runs of one nccl-tests / rccl-tests log file."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise InventoryError(f"cannot read: {exc.strerror or exc}", file=str(path)) from None
    if size > MAX_LOG_BYTES:
        raise InventoryError(f"{size:,} bytes is too large for nccl-tests output (limit "
                             f"{MAX_LOG_BYTES:,})", file=str(path),
                             hint="keep the test's standard output only (no NCCL_DEBUG=TRACE)")
    return parse_nccl_tests_text(read_text(path, TOOL), str(path))


def parse_nccl_tests_text(text: str, file: str) -> tuple[NcclTestRun, ...]:
    """Parse ``text`` (the content of ``file``, named in errors)."""
    lines = [_TAG.sub("", raw).rstrip() for raw in text.splitlines()]
    if not any(s.strip() for s in lines):
        raise InventoryError("empty file: no nccl-tests output", file=file, line=1, hint=HINT)
    runs = [_run(lines, a, b, file) for a, b in _sections(lines)]
    return tuple(runs)


def _sections(lines: list[str]) -> list[tuple[int, int]]:
    """(start, end) line indices of each run: a new run begins at a ``Collective test
    starting`` line (or the ``nccl-tests version`` line just before it), or at an
    ``nThread`` line not right after one, once rows were seen."""
    starts = [0]
    seen_rows = False
    for i, s in enumerate(lines):
        if _START.match(s) or (_NTHREAD.match(s) and not _after_start(lines, i)):
            if seen_rows:
                version_line = i > 0 and _LIB.search(lines[i - 1]) is not None
                starts.append(i - 1 if version_line else i)
                seen_rows = False
        elif _is_row(s):
            seen_rows = True
    return list(zip(starts, starts[1:] + [len(lines)]))


def _after_start(lines: list[str], i: int) -> bool:
    j = i - 1
    while j >= 0 and (not lines[j].strip() or lines[j].lstrip().startswith("# nccl-tests version")):
        j -= 1
    return j >= 0 and bool(_START.match(lines[j]))


def _is_row(s: str) -> bool:
    first = s.split(maxsplit=1)[0] if s.strip() else ""
    return first.isascii() and first.isdigit()


def _run(lines: list[str], a: int, b: int, file: str) -> NcclTestRun:
    program = None
    program_line = a + 1
    ranks: dict[int, tuple[int, str, str]] = {}  # rank -> (group, host, device name)
    nranks = None
    avg = version = None
    columns: list[str] | None = None
    rows: list[NcclTestRow] = []
    for i in range(a, b):
        s = lines[i]
        if not s.strip():
            continue
        if m := _START.match(s):
            program, program_line = Path(m.group(1)).name, i + 1
        elif m := _RANK.match(s.strip()):
            ranks[int(m.group(1))] = (int(m.group(2) or 0), m.group(3), (m.group(4) or "").strip())
        elif m := _AVG.match(s):
            avg = _number(m.group(1), file, i, "Avg bus bandwidth")
        elif _is_row(s):
            rows.append(_row(s, columns, file, i + 1))
        elif _is_header(s):
            columns = s.lstrip("#").split()
        if "NCCL INFO" in s and (m := _NRANKS.search(s)):
            nranks = max(nranks or 0, int(m.group(1)))
        if version is None and (m := _LIB.search(s) or _VERSION.search(s)):
            version = _version(m.group(1))
    where = a + 1
    op = op_of(program) if program else op_of(Path(file).name)
    if op is None:
        what = (f"unknown test program {program!r}" if program else
                f"cannot tell the collective: no '# Collective test starting' line and the "
                f"file name {Path(file).name!r} names none")
        known = ", ".join(PROGRAMS.get(k, k + "_perf") for k in KNOWN)
        raise InventoryError(what, file=file, line=program_line,
                             hint=f"known tests: {known}; name the file after the test, e.g. "
                                  "all_reduce_perf.txt")
    if not rows:
        raise InventoryError("no data rows (size count type ... busbw): the test did not run "
                             "or the output is cut", file=file, line=where, hint=HINT)
    n = _ranks(ranks, nranks, file, where)
    hosts = tuple(dict.fromkeys(h for _, h, _ in ranks.values()))
    devices = tuple(dict.fromkeys(d for _, _, d in ranks.values() if d))
    return NcclTestRun(file, where, program, op, n, hosts, devices, version, avg, tuple(rows))


def _ranks(ranks: dict, nranks: int | None, file: str, line: int) -> int:
    if ranks:
        groups = {g for g, _, _ in ranks.values()}
        first = min(groups)
        n = sum(1 for g, _, _ in ranks.values() if g == first)
        return n
    if nranks:
        return nranks
    raise InventoryError("no rank count: no '#  Rank N Group G Pid P on HOST device D' lines "
                         "and no NCCL INFO 'nranks N' line", file=file, line=line,
                         hint="keep the whole output, header included (the device list)")


def _is_header(s: str) -> bool:
    words = s.lstrip("#").split()
    return len(words) >= 6 and words[0] == "size" and "busbw" in words


def _row(s: str, columns: list[str] | None, file: str, line: int) -> NcclTestRow:
    tok = s.split()
    cols = _layout(columns, len(tok))
    if cols is None:
        raise InventoryError(f"data row of {len(tok)} fields does not match the table "
                             f"({'no column header' if columns is None else ' '.join(columns)})",
                             file=file, line=line, hint=f"row: {s.strip()[:100]!r}")
    need = max(v for v in cols.values() if v is not None) + 1
    if len(tok) < need:
        raise InventoryError(f"data row of {len(tok)} fields, expected {need} (cut line?)",
                             file=file, line=line, hint=f"row: {s.strip()[:100]!r}")
    try:
        size, count = int(tok[0]), int(tok[1])
    except ValueError:
        raise InventoryError(f"size and count must be integers, got {tok[0]!r} {tok[1]!r}",
                             file=file, line=line) from None
    get = {k: _number(tok[v], file, line - 1, _LABEL[k]) if v is not None else None
           for k, v in cols.items() if k not in ("wrong_o", "wrong_i")}
    wrong = _wrong(tok, cols, columns, file, line)
    return NcclTestRow(size, count, tok[2], get["time_o"], get["algbw_o"], get["busbw_o"],
                       get["time_i"], get["algbw_i"], get["busbw_i"], wrong, line)


def _layout(columns: list[str] | None, ntok: int) -> dict[str, int | None] | None:
    """Column index of each figure: from the header, else from the field count."""
    if columns is not None:
        times = [i for i, c in enumerate(columns) if c in ("time", "cputime")]
        algbw = [i for i, c in enumerate(columns) if c == "algbw"]
        busbw = [i for i, c in enumerate(columns) if c == "busbw"]
        wrong = [i for i, c in enumerate(columns) if c in ("#wrong", "error")]
        if not times or len(times) != len(algbw) or len(algbw) != len(busbw) or len(times) > 2:
            return None
        two = len(times) == 2
        return {"time_o": times[0], "algbw_o": algbw[0], "busbw_o": busbw[0],
                "wrong_o": wrong[0] if wrong else None,
                "time_i": times[1] if two else None, "algbw_i": algbw[1] if two else None,
                "busbw_i": busbw[1] if two else None,
                "wrong_i": wrong[1] if two and len(wrong) > 1 else None}
    first = {13: 5, 12: 4}.get(ntok)  # with / without the root column
    if first is None:
        return None
    return {"time_o": first, "algbw_o": first + 1, "busbw_o": first + 2, "wrong_o": first + 3,
            "time_i": first + 4, "algbw_i": first + 5, "busbw_i": first + 6, "wrong_i": first + 7}


def _wrong(tok: list[str], cols: dict, columns: list[str] | None, file: str, line: int) -> int | None:
    """Wrong elements (nccl-tests ``#wrong``); old releases' ``error`` is a float deviation
    and counts as checked, never as wrong."""
    counted = columns is None or "#wrong" in columns
    total = None
    for key in ("wrong_o", "wrong_i"):
        i = cols.get(key)
        if i is None or tok[i].upper() == "N/A":
            continue
        value = _number(tok[i], file, line - 1, "#wrong")
        total = (total or 0) + (int(value) if counted and value == int(value) and value >= 1 else 0)
    return total


def _number(text: str, file: str, index: int, what: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise InventoryError(f"{what}: {text[:40]!r} is not a number", file=file, line=index + 1,
                             hint="the row is damaged; rerun the test or remove the line") from None
    if not math.isfinite(v) or v < 0:
        raise InventoryError(f"{what}: {text[:40]!r} is not a finite, non-negative number",
                             file=file, line=index + 1, hint="the run failed; rerun the test")
    return v


def _version(text: str) -> str:
    """``22005`` -> ``2.20.5``; ``2.20.5`` stays."""
    if "." in text:
        return text
    code = int(text)
    return f"{code // 10000}.{code // 100 % 100}.{code % 100}" if code >= 20900 else \
        f"{code // 1000}.{code // 100 % 10}.{code % 100}"


def format_bytes(size: int) -> str:
    """nccl-tests sizes as people say them.

    >>> format_bytes(8 * 2**30), format_bytes(134217728), format_bytes(8_000_000_000), format_bytes(8)
    ('8 GiB', '128 MiB', '7.451 GiB', '8 B')
    """
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale:
            return f"{size / scale:.4g} {unit}"
    return f"{size} B"


__all__ = ["DIRECTORY", "MODELLED", "NcclTestRow", "NcclTestRun", "format_bytes",
           "load_nccl_tests", "op_of", "parse_nccl_tests", "parse_nccl_tests_text"]
