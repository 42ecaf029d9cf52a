"""Docs cannot drift (issue 28): every ``$ infra ...`` line in a fenced block of the README
and the guides is run as a user runs it from a checkout, and the lines the doc shows under
it must be what it prints today. Shared by the tests (``tests/test_docs_blocks.py``) and
``scripts/regen_docs.py``, which rewrites the blocks from the same runs.

How a doc's blocks are read (:data:`DOCS` says, per doc, the terminal width and the mode):

* A block is a fence whose lines include ``$ infra ...`` (or ``$ NAME=VALUE infra ...``);
  the lines under a ``$`` line, up to the next ``$`` line or the fence, are its output.
* A status line, ``(exit N)`` or ``exit code: N``, is the exit status (0 when absent).
* A command line ending in ``   (excerpt)`` (any words in parentheses after two spaces) is
  an **excerpt**: each line shown must be a line of the output, in any order.
* Otherwise, with no ``...`` line, the block is the **whole output**, line for line
  (blank lines aside); with a ``...`` line it is an **elided** block: the lines shown are
  lines of the output in the order printed (``...`` marks where lines are left out). A
  line of standard error only has to be printed (a terminal interleaves the two streams);
  in a whole-output block every one must be shown.
* Mode ``block``: each fence runs in a fresh directory holding ``designs``, ``catalogs``,
  ``sweeps``, ``tests``, ``docs`` and the docs' own inputs (:func:`block_inputs`); only
  ``infra`` lines (and ``python docs/EXAMPLE.py``, a shipped example) run. Mode
  ``sequence``: every ``$`` line of the doc (``cp``, ``printf`` ...) runs in order in one
  directory, as a reader follows the guide.

Identical runs (same commands, width and inputs) are made once per process and shared
across docs (:func:`run_block`).
"""

from __future__ import annotations

import atexit
import difflib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Doc:
    columns: str  # COLUMNS the doc's blocks were printed at (a line may set its own)
    mode: str = "block"  # "block" or "sequence" (see the module docstring)
    env: tuple = ()  # (NAME, VALUE) set for the doc's commands; a VALUE printed is shown as $NAME
    status: str = "(exit {})"  # how the doc writes a non-zero exit status


DOCS = {  # every doc whose `$ infra` lines this harness checks
    "README.md": Doc("100"),
    "docs/guides/capex-tco.md": Doc("100"),
    "docs/guides/collectives.md": Doc("100"),
    "docs/guides/fabrics-storage.md": Doc("100"),
    "docs/guides/format-tools.md": Doc("100", "sequence", (("C", "@catalogs"),)),
    "docs/guides/gaudi3-and-bisection.md": Doc("100"),
    "docs/guides/history.md": Doc("200", "sequence", status="exit code: {}"),
    "docs/guides/ingest.md": Doc("200", "sequence", status="exit code: {}"),
    "docs/guides/power.md": Doc("200"),
    "docs/guides/reports.md": Doc("100"),
    "docs/guides/robustness.md": Doc("100"),
    "docs/guides/scale-up.md": Doc("100"),
    "docs/guides/sweeps.md": Doc("100"),
    "docs/guides/systems-amd.md": Doc("100"),
    "docs/guides/systems-nvidia-oem.md": Doc("100"),
}
ELSEWHERE = {  # doc -> the test that checks its `$ infra` lines (it checks more than this)
    "docs/guides/exports.md": "tests/test_docs_exports.py (lines of the files an export "
                              "writes, `head -N FILE` blocks)",
}
NOT_RUN = {  # doc -> why its `$ infra` lines are not run (no output is shown under them)
    "docs/guides/performance.md": "a list of the commands the benchmarks time; no output "
                                  "is shown, and timings are the machine's",
}

INFRA = re.compile(r"\$ ((?:[A-Z_]+=\S* )*)infra ")
RUNS = re.compile(r"\$ ((?:[A-Z_]+=\S* )*)(infra |python docs/\S+\.py)")  # lines run in a block
STATUS = re.compile(r"\((?:exit) (\d+)\)|exit code: (\d+)")
NOTE = re.compile(r"\s{2,}\(([^()]*)\)$")  # "   (excerpt)" after a command
COMMENT = re.compile(r"\s{2,}#.*$")  # "   # use my own tray" after a command
ELIDE = ("...", "…")


def doc_paths() -> list[str]:
    """README.md and every Markdown file under docs/, relative to the root."""
    return ["README.md"] + sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").rglob("*.md"))


def infra_lines(text: str) -> list[str]:
    """Every ``$ infra`` line inside a fence of ``text``."""
    out, inside = [], False
    for line in text.split("\n"):
        if line.startswith("```"):
            inside = not inside
        elif inside and INFRA.match(line):
            out.append(line)
    return out


# --- reading a doc ---------------------------------------------------------------------

@dataclass
class Case:
    """One ``$`` line of a doc and the lines shown under it."""

    command: str  # as run: annotation and trailing comment removed, without "$ "
    infra: bool  # an `infra` line (or a shipped Python example): run in a block
    excerpt: bool  # an annotated command: lines in any order
    first: int  # index in the doc's lines of the first line under the command
    end: int  # one past the last line under it
    lines: list = field(default_factory=list)  # the doc's lines first..end

    @property
    def status(self) -> int:
        for x in self.lines:
            m = STATUS.fullmatch(x.strip())
            if m:
                return int(m.group(1) or m.group(2))
        return 0

    def expected(self) -> list[str]:
        """The lines to find: blank and status lines dropped, elisions kept."""
        return [x.rstrip() if x.strip() not in ELIDE else "..." for x in self.lines
                if x.strip() and not STATUS.fullmatch(x.strip())]


def blocks(text: str) -> list[list[Case]]:
    """The fenced blocks of ``text`` that hold a ``$ infra`` line: their ``$`` lines, each
    with the lines under it."""
    lines = text.split("\n")
    out, cur = [], None
    for i, line in enumerate(lines):
        if line.startswith("```"):
            if cur is None:
                cur = []
            else:
                if cur:
                    cur[-1].end = i
                if any(c.infra for c in cur):
                    out.append(cur)
                cur = None
            continue
        if cur is None or not line.startswith("$ "):
            continue
        if cur:
            cur[-1].end = i
        note = NOTE.search(line)
        command = COMMENT.sub("", NOTE.sub("", line[2:])).strip()
        cur.append(Case(command, bool(RUNS.match(line)), bool(note), i + 1, i + 1))
    for b in out:
        for c in b:
            c.lines = lines[c.first:c.end]
    return out


# --- running ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Result:
    stdout: tuple  # lines, right-stripped
    stderr: tuple
    code: int


BOMB = "\n".join(["x0: &x0 [a, a, a, a, a, a, a, a, a]"]
                 + [f"x{i}: &x{i} [" + ", ".join([f"*x{i - 1}"] * 9) + "]" for i in range(1, 9)]
                 + ["name: *x8", "racks: {}", "build: {r: 1}"]) + "\n"
HIGH = textwrap.dedent("""\
    # high.yaml: the GB200 NVL72 rack at the high end of its range
    as_of: 2026-06-30
    currency: USD
    prices:
      - slug: nvidia-gb200-nvl72-rack
        usd: 4000000
        basis: estimate
        covers: contents
        date: 2026-05-01
        source: {title: "high end of the price file's range", url: "https://example.com", tag: AN}
    """)
QUOTE = textwrap.dedent("""\
    # my-quote.yaml
    as_of: 2026-06-30
    currency: USD
    prices:
      - slug: nvidia-dgx-h100
        usd: 400000
        basis: quote
        covers: contents
        date: 2026-06-01
        source: {title: "example vendor quote (illustration)", url: "https://example.com/quote", tag: V}
    """)
INCIDENTS = textwrap.dedent("""\
    time,host,asset,component,event,note
    2025-03-03T10:00:00Z,r001n02,,hbm,failure,uncorrectable ECC on GPU 5
    2025-03-04T02:00:00Z,r002n01,,software,interruption,driver hang
    2025-03-05T14:00:00Z,r001n01,,gpu,rma,GPU module 3 sent back
    2025-03-06T08:00:00Z,r002n03,,nic,failure,link flaps
    """)


def block_inputs(d: Path) -> None:
    """The files the docs' ``block`` commands name, beside links to the checkout's
    ``designs``, ``catalogs``, ``sweeps``, ``tests`` and ``docs``."""
    for name in ("designs", "catalogs", "sweeps", "tests", "docs"):
        (d / name).symlink_to(ROOT / name)
    (d / "bomb.yaml").write_text(BOMB)  # robustness guide: 9 levels of 9 aliases
    lines = (ROOT / "designs" / "gb200_nvl72.yaml").read_text().split("\n")
    at = next(i for i, x in enumerate(lines) if x.startswith("build:"))
    (d / "dup.yaml").write_text("\n".join(lines[:at + 2] + ["build:", "  nvl72: 2"]
                                          + lines[at + 2:]))  # a second build:
    (d / "tag.yaml").write_text("name: !!bool maybe\nracks: {}\nbuild: {r: 1}\n")
    (d / "high.yaml").write_text(HIGH)  # capex guide
    (d / "my-quote.yaml").write_text(QUOTE)
    # README: the AWS design with a typo in its cross-rack cable
    (d / "bad.yaml").write_text((ROOT / "designs" / "aws_nvl36x2.yaml").read_text().replace(
        "nvlink5-cross-rack-copper", "nvlink5-cross-rack-coper", 1))
    # README: two captures of the DGX H100 fixture a week apart, GPU module 3 of r001n01
    # swapped in between, and four incidents
    sys.path.insert(0, str(ROOT / "tests"))
    from history_support import swap_gpu

    shutil.copytree(ROOT / "tests/fixtures/inventory/hgx-h100", d / "2025-03-01")
    shutil.copytree(ROOT / "tests/fixtures/inventory/hgx-h100", d / "2025-03-08")
    swap_gpu(d / "2025-03-08", "r001n01", "GPU-000103a1-5c3e-4b7d-9f10-000001000003",
             "GPU-ffff03a1-5c3e-4b7d-9f10-0000010000ff", "1652329999999")
    (d / "incidents.csv").write_text(INCIDENTS)


def sequence_inputs(d: Path, doc: str) -> None:
    """A writable checkout for a ``sequence`` doc: ``designs`` a directory of links (a
    command may write a design there), ``catalogs`` a copy (paths print as a user's do)."""
    (d / "designs").mkdir()
    for p in (ROOT / "designs").iterdir():
        (d / "designs" / p.name).symlink_to(p)
    shutil.copytree(ROOT / "catalogs", d / "catalogs")
    for name in ("sweeps", "tests"):
        (d / name).symlink_to(ROOT / name)
    if doc == "docs/guides/format-tools.md":  # a copy of the GB200 tray under a new slug
        tray = (ROOT / "catalogs/trays/nvidia-gb200-compute-tray.yaml").read_text()
        (d / "my-parts" / "trays").mkdir(parents=True)
        (d / "my-parts/trays/acme-gb200-tray.yaml").write_text(
            tray.replace("nvidia-gb200-compute-tray", "acme-gb200-tray"))
        (d / "nvidia-gb200-compute-tray.yaml").write_text(tray)


@lru_cache(maxsize=None)
def _template() -> Path:
    d = Path(tempfile.mkdtemp(prefix="docs-inputs-"))
    atexit.register(shutil.rmtree, d, ignore_errors=True)
    block_inputs(d)
    return d


def _infra() -> str:
    """The ``infra`` a user runs: the environment's console script (its usage lines name
    ``infra``), else ``python -m infra.cli``; either imports this checkout's ``infra``."""
    script = Path(sys.executable).parent / "infra"
    if script.exists():
        return shlex.quote(str(script))
    return f"{shlex.quote(sys.executable)} -m infra.cli"


def _shell(command: str) -> str:
    """``command`` for bash, its ``infra`` (or ``python``) this environment's."""
    def program(m: re.Match) -> str:
        if m.group(2) == "infra ":
            return f"$ {m.group(1)}{_infra()} "
        return f"$ {m.group(1)}{shlex.quote(sys.executable)} {m.group(2)[len('python '):]}"

    return RUNS.sub(program, "$ " + command, count=1)[2:]


def _run(command: str, cwd: Path, columns: str, env: dict) -> Result:
    m = re.match(r"COLUMNS=(\d+) ", command)
    r = subprocess.run(["bash", "-c", _shell(command) + '\nexit "${PIPESTATUS[0]}"'],
                       cwd=cwd, capture_output=True, text=True, timeout=600,
                       env={**os.environ, "COLUMNS": m.group(1) if m else columns,
                            "INFRA_CATALOG": "catalogs", "INFRA_DB": "sqlite:///fleet.db",
                            "PYTHONPATH": str(ROOT), **env})
    out, err = r.stdout, r.stderr
    for name, value in env.items():
        out, err = out.replace(value, f"${name}"), err.replace(value, f"${name}")
    return Result(tuple(x.rstrip() for x in out.splitlines()),
                  tuple(x.rstrip() for x in err.splitlines()), r.returncode)


@lru_cache(maxsize=None)
def run_block(commands: tuple, columns: str) -> tuple:
    """The results of a block's ``infra`` commands, run in order in a fresh directory of
    :func:`block_inputs` (once per process for the same commands and width)."""
    d = Path(tempfile.mkdtemp(prefix="docs-block-"))
    for p in _template().iterdir():
        (d / p.name).symlink_to(p)
    try:
        return tuple(_run(c, d, columns, {}) for c in commands)
    finally:
        shutil.rmtree(d, ignore_errors=True)


@lru_cache(maxsize=None)
def run_sequence(doc: str) -> tuple:
    """The results of every ``$`` line of ``doc``, run in order in one directory."""
    d = Path(tempfile.mkdtemp(prefix="docs-seq-"))
    try:
        sequence_inputs(d, doc)
        spec = DOCS[doc]
        env = {k: str(d / v[1:]) if v.startswith("@") else v for k, v in spec.env}
        cases = [c for b in blocks((ROOT / doc).read_text(encoding="utf-8")) for c in b]
        return tuple(_run(c.command, d, spec.columns, env) for c in cases)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def results(doc: str, text: str | None = None) -> list[tuple[Case, Result | None]]:
    """Every case of ``doc`` (its text, or ``text`` read as that doc) with its run (None
    for a line that is not run)."""
    spec = DOCS[doc]
    text = (ROOT / doc).read_text(encoding="utf-8") if text is None else text
    found = blocks(text)
    out = []
    if spec.mode == "sequence":
        ran = list(run_sequence(doc))
        cases = [c for b in found for c in b]
        assert len(ran) == len(cases), doc
        return list(zip(cases, ran))
    for b in found:
        ran = iter(run_block(tuple(c.command for c in b if c.infra), spec.columns))
        out += [(c, next(ran) if c.infra else None) for c in b]
    return out


# --- checking --------------------------------------------------------------------------

def mismatches(case: Case, r: Result) -> list[str]:
    """What the doc shows under ``case`` that ``r`` does not print (empty: it agrees)."""
    bad = []
    if case.status != r.code:
        bad.append(f"exit status {r.code}, the doc shows {case.status}")
    shown = case.expected()
    printed = [x for x in r.stdout if x.strip()]
    errors = [x for x in r.stderr if x.strip()]
    if case.excerpt:
        lines = set(printed) | set(errors)
        return bad + [f"not printed: {x}" for x in shown if x != "..." and x not in lines]
    complete = "..." not in shown
    at = 0
    for x in shown:
        if x == "..." or x in errors:
            continue
        found = printed.index(x, at) if x in printed[at:] else -1
        if found < 0:
            bad.append(f"not printed{'' if complete else ' (in order)'}: {x}")
            continue
        if complete:
            bad += [f"printed, not shown: {y}" for y in printed[at:found]]
        at = found + 1
    if complete:
        bad += [f"printed, not shown: {y}" for y in printed[at:]]
        bad += [f"standard error not shown: {x}" for x in errors if x not in shown]
    return bad


def check(doc: str, text: str | None = None) -> list[str]:
    """``doc: command: what differs`` for every case of ``doc`` that the runs contradict
    (``text``: the doc's text to check instead of the file's)."""
    out = []
    for case, r in results(doc, text):
        if r is not None:
            out += [f"{doc}: {case.command}: {m}" for m in mismatches(case, r)]
    return out


# --- regenerating ----------------------------------------------------------------------

def _status_line(case: Case, code: int, doc: str) -> str | None:
    for x in case.lines:
        m = STATUS.fullmatch(x.strip())
        if m:
            return x.replace(m.group(1) or m.group(2), str(code))
    return None if code == 0 else DOCS[doc].status.format(code)


def regenerate_case(case: Case, r: Result, doc: str) -> list[str]:
    """The lines to show under ``case`` so that it agrees with ``r``: the whole output for
    a block without ``...``; otherwise each shown line that is no longer printed becomes
    the printed line most like it (between its neighbours), elisions and blanks kept."""
    status = _status_line(case, r.code, doc)
    body = [x for x in case.lines if not STATUS.fullmatch(x.strip())]
    trail = len(body) - len("\n".join(body).rstrip("\n").split("\n")) if "".join(body).strip() \
        else len(body)
    body = body[:len(body) - trail]
    stdout = list(r.stdout)
    errors = [x for x in r.stderr if x.strip()]
    if not case.excerpt and not any(x.strip() in ELIDE for x in body):
        first = next((x for x in body if x.strip()), "")
        like = lambda a, b: difflib.SequenceMatcher(None, a, b).ratio()  # noqa: E731
        err_first = not stdout or errors and like(first, errors[0]) > like(first, stdout[0])
        new = (errors + stdout) if err_first else (stdout + errors)
        while new and not new[-1].strip():
            new.pop()
    else:
        new = list(body)
        pool = [x for x in stdout if x.strip()] + errors
        used = set()
        anchor = 0
        for i, x in enumerate(body):
            s = x.rstrip()
            if not s.strip() or s.strip() in ELIDE:
                continue
            if s in pool:
                anchor = max(anchor, pool.index(s))
                continue
            nxt = next((pool.index(y.rstrip()) for y in body[i + 1:] if y.rstrip() in pool),
                       len(pool))
            window = [(j, y) for j, y in enumerate(pool[anchor:nxt], anchor)
                      if j not in used and y.strip()] or [
                          (j, y) for j, y in enumerate(pool) if j not in used and y.strip()]
            best = max(window, key=lambda jy: difflib.SequenceMatcher(None, s, jy[1]).ratio(),
                       default=None)
            if best and difflib.SequenceMatcher(None, s, best[1]).ratio() >= 0.5:
                new[i] = best[1]
                used.add(best[0])
                anchor = best[0] + 1
    if status is not None:
        new.append(status)
    return new + [""] * trail


def regenerate(doc: str, text: str | None = None) -> str:
    """``doc``'s text with every checked block rewritten from today's runs."""
    text = (ROOT / doc).read_text(encoding="utf-8") if text is None else text
    lines = text.split("\n")
    for case, r in reversed(results(doc, text)):
        if r is None or not mismatches(case, r):
            continue
        lines[case.first:case.end] = regenerate_case(case, r, doc)
    return "\n".join(lines)
