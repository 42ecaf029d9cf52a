"""Mutate shipped inputs and classify what ``infra`` does with them (issue 18).

Used by ``tests/test_fuzz.py`` (hypothesis, bounded) and ``benchmarks/fuzz_run.py``
(>= 10,000 cases, forked with a time and memory limit). A case is a family, a seed
and an index; :func:`make_case` turns it into files and a command line, :func:`run_case`
runs it in-process with click's runner and :func:`classify` names the outcome:

=====  =======================================================================
class  rule
=====  =======================================================================
a      exit 2, one ``error:`` line naming the input file, under 1,000 characters
b      exit 2, but the message lacks the file or is over 1,000 characters
c      a traceback, an uncaught exception, exit 1 (an internal error) or another code
d      exit 0 with a non-finite figure, or 0 GPUs, in the JSON written
e      over the time limit (or memory limit) - set by the forking runner
f      a temporary file or a report left after a failed run, or an unreadable JSON
n      exit 0, the output is valid and finite
s      a security finding (surface families, see ``fuzz_surfaces.py``)
=====  =======================================================================
"""

from __future__ import annotations

import json
import math
import random
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
DESIGNS = sorted((ROOT / "designs").glob("*.yaml"))
SMALL = [ROOT / "designs" / n for n in ("gb200_nvl72.yaml", "aws_nvl36x2.yaml")]
CATALOG = ROOT / "catalogs"
PARTS = sorted(p for p in CATALOG.rglob("*.yaml") if not {"prices", "rates"} & set(p.parts))
RATES = CATALOG / "rates" / "default.yaml"
PRICES = sorted((CATALOG / "prices").glob("*.yaml"))

NUMBERS = [-1, 0, -0.5, 1e308, -1e308, 10**30, 2**63, 2**64, float("nan"), float("inf"),
           float("-inf"), 1e-308, "nan", "1e999", "inf", True, False, 4.5, 10**7]
STRINGS = ["", "x" * 10_000, "\u200b", "nvidia-h100-sxm", "é" * 50, "a\nb", "\x1b[31mred",
           "../../etc/passwd", "UPPER-Case"]
TAGS = ["!!bool maybe", "!!float abc", "!!int 0x", "!!binary aGk=", "!!set {a}",
        "!!python/object/apply:os.system ['true']", "!!timestamp 2020-13-45", "!mine x",
        "2020-13-45", '!!float ""']
FAMILIES = ("design", "part", "rates", "prices", "bytes", "cli")
SURFACE_FAMILIES = ("inventory", "sweep", "export", "pricefile", "new")  # fuzz_surfaces.py


@dataclass
class Case:
    family: str
    op: str
    args: list[str]
    target: str  # the file the case is about (its name must appear in an error)
    files: dict[str, bytes] = field(default_factory=dict)  # relative path -> content
    catalog_file: str | None = None  # a part file replaced inside the catalog copy
    extra: dict | None = None  # surface cases: symbolic links and FIFOs to plant


# ----------------------------------------------------------------------------- tree ops

def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, prefix + (i,))
    return out


def _get(node: Any, path: tuple) -> Any:
    for p in path:
        node = node[p]
    return node


def _tree_mutation(data: Any, rnd: random.Random) -> tuple[str, Any]:
    paths = [p for p in _paths(data) if p]
    if not paths:
        return "none", data
    path = rnd.choice(paths)
    parent, key = _get(data, path[:-1]), path[-1]
    op = rnd.choice(["delete", "rename", "type", "number", "number", "number", "string",
                     "dup_list", "empty", "huge_count"])
    if op == "delete":
        del parent[key]
    elif op == "rename" and isinstance(parent, dict):
        parent[str(key) + rnd.choice(["s", "_", "x"])] = parent.pop(key)
    elif op == "type":
        parent[key] = rnd.choice(["text", 7, [1, 2], {"a": 1}, None, True])
    elif op in ("number", "huge_count"):
        parent[key] = rnd.choice(NUMBERS) if op == "number" else rnd.choice(
            [10**6, 10**9, 10**12, 10**13, 31250000000])
    elif op == "string":
        parent[key] = rnd.choice(STRINGS)
    elif op == "dup_list" and isinstance(parent[key], list) and parent[key]:
        parent[key].append(parent[key][0])
    elif op == "empty":
        parent[key] = type(parent[key])() if isinstance(parent[key], (list, dict)) else ""
    return f"{op}:{'.'.join(map(str, path))}"[:80], data


def _text_mutation(text: str, rnd: random.Random) -> tuple[str, str]:
    lines = text.splitlines(keepends=True) or ["\n"]
    i = rnd.randrange(len(lines))
    op = rnd.choice(["dup_line", "tag", "alias_bomb", "deep", "recursive_alias",
                     "merge", "flow_dup"])
    if op == "dup_line":
        lines.insert(i + 1, lines[i])
    elif op == "tag":
        key = next((ln.split(":")[0] for ln in lines if ":" in ln and not ln.startswith("#")
                    and not ln.startswith(" ")), "name")
        lines.append(f"{key.strip() or 'name'}_x: {rnd.choice(TAGS)}\n")
        lines = [ln.replace("name:", f"name: {rnd.choice(TAGS)} #", 1) if ln.startswith("name:")
                 else ln for ln in lines]
    elif op == "alias_bomb":
        depth = rnd.choice([3, 5, 7, 9, 10])
        bomb = ["b0: &b0 [l, l, l, l, l, l, l, l, l]\n"]
        bomb += [f"b{k}: &b{k} [" + ", ".join([f"*b{k - 1}"] * 9) + "]\n" for k in range(1, depth)]
        lines = bomb + [ln.replace("name:", f"name: *b{depth - 1} #", 1)
                        if ln.startswith("name:") else ln for ln in lines]
    elif op == "deep":
        n = rnd.choice([60, 100, 1000, 20_000])
        lines.append("deep: " + "[" * n + "]" * n + "\n")
    elif op == "recursive_alias":
        lines.append("loop: &loop [*loop]\n")
    elif op == "merge":
        lines.append("m1: &m1 {a: 1}\nm2: {<<: *m1, b: 2}\n")
    elif op == "flow_dup":
        lines = [ln.replace("count:", "count: 1, count:", 1) for ln in lines]
    return op, "".join(lines)


def _byte_mutation(raw: bytes, rnd: random.Random) -> tuple[str, bytes]:
    op = rnd.choice(["empty", "space", "comment", "docsep", "multidoc", "list", "scalar",
                     "truncate", "flip", "latin1", "utf16", "bom", "crlf", "nul", "binary",
                     "long_line", "padding", "control", "tab", "unclosed"])
    n = len(raw)
    if op == "empty":
        return op, b""
    if op == "space":
        return op, b"   \n\n"
    if op == "comment":
        return op, b"# nothing\n"
    if op == "docsep":
        return op, b"---\n"
    if op == "multidoc":
        return op, raw + b"\n---\n" + raw
    if op == "list":
        return op, b"- a\n- b\n"
    if op == "scalar":
        return op, b"just text\n"
    if op == "truncate":
        return op, raw[: rnd.randrange(max(n, 1))]
    if op == "flip":
        b = bytearray(raw)
        for _ in range(rnd.randint(1, 5)):
            if b:
                b[rnd.randrange(len(b))] = rnd.randrange(256)
        return op, bytes(b)
    if op == "latin1":
        return op, raw.decode("utf-8").replace("name: ", "name: café ", 1).encode("latin-1",
                                                                                  "replace")
    if op == "utf16":
        return op, raw.decode("utf-8").encode("utf-16")
    if op == "bom":
        return op, b"\xef\xbb\xbf" + raw
    if op == "crlf":
        return op, raw.replace(b"\n", b"\r\n")
    if op == "nul":
        return op, raw[: n // 2] + b"\x00" + raw[n // 2:]
    if op == "binary":
        return op, bytes(rnd.randrange(256) for _ in range(512))
    if op == "long_line":
        return op, raw + b"description: " + b"y" * 1_000_000 + b"\n"
    if op == "padding":
        return op, b"#" * 80 + b"\n" + (b"# pad\n" * 300_000) + raw
    if op == "control":
        return op, raw.replace(b"name: ", b"name: \x07", 1)
    if op == "tab":
        return op, raw.replace(b"  ", b"\t", 3)
    return op, raw + b"x: [1, 2\n"


def _dump(data: Any) -> bytes:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True).encode("utf-8")


# ----------------------------------------------------------------------------- cases

def make_case(family: str, seed: int) -> Case:
    """The case ``seed`` of ``family`` (deterministic)."""
    if family in SURFACE_FAMILIES:
        import fuzz_surfaces

        return fuzz_surfaces.make_surface_case(family, seed, Case)
    rnd = random.Random(f"{family}:{seed}")
    if family == "design":
        src = rnd.choice(DESIGNS)
        text = src.read_text()
        if rnd.random() < 0.7:
            op, data = _tree_mutation(yaml.safe_load(text), rnd)
            body = _dump(data)
        else:
            op, t = _text_mutation(text, rnd)
            body = t.encode("utf-8")
        cmd = rnd.choice([["validate"], ["design", "-q", "--report", "json"],
                          ["failures", "--samples", "1000", "--format", "json"], ["compare"]])
        return Case(family, op, cmd + ["d.yaml"], "d.yaml", {"d.yaml": body})
    if family == "part":
        src = rnd.choice(PARTS)
        rel = str(src.relative_to(CATALOG))
        text = src.read_text()
        if rnd.random() < 0.8:
            op, data = _tree_mutation(yaml.safe_load(text), rnd)
            body = _dump(data)
        else:
            op, t = _text_mutation(text, rnd)
            body = t.encode("utf-8")
        design = rnd.choice(DESIGNS)
        cmd = rnd.choice([["validate", "--catalog", "CAT", "CAT/" + rel],
                          ["design", "-q", "--report", "json", "--catalog", "CAT", str(design)]])
        return Case(family, op, cmd, src.name, {"part.yaml": body}, rel)
    if family == "rates":
        op, data = _tree_mutation(yaml.safe_load(RATES.read_text()), rnd)
        return Case(family, op, ["failures", "--samples", "1000", "--format", "json",
                                 "--rates", "r.yaml", str(rnd.choice(SMALL))], "r.yaml",
                    {"r.yaml": _dump(data)})
    if family == "prices":
        src = rnd.choice(PRICES)
        op, data = _tree_mutation(yaml.safe_load(src.read_text()), rnd)
        return Case(family, op, ["compare", "--format", "json", "--prices", "p.yaml",
                                 "nvidia-h100-sxm5", "nvidia-dgx-h100"], "p.yaml",
                    {"p.yaml": _dump(data)})
    if family == "bytes":
        src = rnd.choice(DESIGNS)
        op, body = _byte_mutation(src.read_bytes(), rnd)
        cmd = rnd.choice([["validate"], ["design", "-q", "--report", "json"]])
        return Case(family, op, cmd + ["d.yaml"], "d.yaml", {"d.yaml": body})
    return _cli_case(rnd)


def _cli_case(rnd: random.Random) -> Case:
    d = str(rnd.choice(DESIGNS))
    bad = rnd.choice(["-1", "0", "nan", "inf", "-inf", "1e308", "1e400", "1e11", "10" * 16,
                      "abc", "", "0.5", "true"])
    choices = [
        ("failures", ["failures", d, "--samples", "1000", "--format", "json",
                      rnd.choice(["--job-gpus", "--checkpoint-seconds", "--restart-minutes",
                                  "--target", "--seed"]), bad]),
        ("failures-samples", ["failures", d, "--format", "json", "--samples", bad]),
        ("compare", ["compare", "nvidia-h100-sxm5", d, "--format", "json",
                     rnd.choice(["--years", "--pue", "--energy-usd-per-kwh", "--maintenance"]),
                     bad]),
        ("compare-target", ["compare", "nvidia-h100-sxm5", "--format", "json", "--target",
                            f"{bad} {rnd.choice(['MW', 'EFLOPS bf16', 'PFLOPS fp8', 'MW IT'])}"]),
        ("design-highlight", ["design", d, "-q", "--report", "svg", "--highlight",
                              rnd.choice(["nvlink_switch_tray", "gpu", "bogus", "", "rack"])]),
        ("missing-file", ["design", d, "missing.yaml", "-q", "--report", "json"]),
        ("report-dir", ["design", d, "-q", "--report", "json", "-o", "OUT_AS_DIR"]),
        ("fifo", ["validate", "FIFO"]),
        ("devzero", ["validate", "/dev/zero"]),
        ("symlink-loop", ["validate", "LOOP"]),
        ("directory", ["validate", "."]),
    ]
    op, args = rnd.choice(choices)
    target = {"missing-file": "missing.yaml", "fifo": "FIFO", "devzero": "/dev/zero",
              "symlink-loop": "LOOP", "directory": "."}.get(op, "")
    return Case("cli", f"{op}:{bad}"[:60], args, target)


# ----------------------------------------------------------------------------- running

@dataclass
class Outcome:
    klass: str
    exit_code: int | None
    message: str
    seconds: float = 0.0


def prepare(case: Case, work: Path, catalog_copy: Path | None) -> list[str]:
    """Write the case's files under ``work``; return its arguments with paths filled in."""
    import os

    for name, body in case.files.items():
        (work / name).write_bytes(body)
    args = [str(work / a) if a in case.files else a for a in case.args]
    if case.catalog_file:
        assert catalog_copy is not None
        (catalog_copy / case.catalog_file).write_bytes(case.files["part.yaml"])
        args = [a.replace("CAT", str(catalog_copy)) for a in args]
    out = work / "out"
    if "OUT_AS_DIR" in args:
        (out / (Path(args[1]).stem + ".json")).mkdir(parents=True)  # the report's own path
        args[args.index("OUT_AS_DIR")] = str(out)
    if "FIFO" in args:
        os.mkfifo(work / "FIFO")
    if "LOOP" in args:
        (work / "LOOP").symlink_to(work / "LOOP2")
        (work / "LOOP2").symlink_to(work / "LOOP")
    if args[0] in ("design", "failures", "compare") and "-o" not in args:
        args += ["-o", str(out)]
    return args


def _finite(x: Any) -> bool:
    if isinstance(x, dict):
        return all(_finite(v) for v in x.values())
    if isinstance(x, list):
        return all(_finite(v) for v in x)
    return not isinstance(x, float) or math.isfinite(x)


def _reject_constant(name: str):
    raise ValueError(f"non-standard JSON constant {name}")


def classify(case: Case, exit_code: int, output: str, exception: BaseException | None,
             work: Path, before: set | None = None) -> Outcome:
    """Name the outcome of one run (see the module docstring); ``before``: the files that
    were there before the run (a surface case's planted inputs)."""
    out = work / "out"
    leftovers = [p for p in work.rglob(".*.tmp") if "secret" not in p.parts]
    if exception is not None and not isinstance(exception, SystemExit):
        return Outcome("c", exit_code, f"{type(exception).__name__}: {exception}"[:300])
    if exit_code == 1 and "finding:" in output and "internal error" not in output:
        exit_code = 0  # a design-rule finding: every figure computed, exit 1 by design
    if "Traceback" in output or exit_code not in (0, 2):
        return Outcome("c", exit_code, output[-300:])
    if leftovers:
        return Outcome("f", exit_code, f"left {leftovers[0].name}")
    reports = (sorted(p for p in out.rglob("*.json")) if out.is_dir() and not out.is_symlink()
               else [])
    if exit_code == 2:
        written = ([p for p in out.rglob("*") if p.is_file()] if out.is_dir()
                   and not out.is_symlink() else [])
        if before is not None:
            written = [p for p in work.rglob("*") if (p.is_file() or p.is_symlink())
                       and p not in before and "secret" not in p.parts]
        if written and case.op.split(":")[0] != "report-dir":
            return Outcome("f", 2, f"failed run left {written[0].name}")
        first = next((ln for ln in output.splitlines() if ln.startswith(("error:", "Error:"))),
                     "")
        named = (not case.target or Path(case.target).name in output
                 or first.startswith("Error:")  # click's usage errors name the option
                 or any((a.startswith("--") or len(a) >= 3) and a in first
                        for a in case.args[1:]))  # the option, its value or another file
        if not first or not named or len(output) > 1000:
            return Outcome("b", 2, output[:300])
        return Outcome("a", 2, first[:200])
    # exit 0: every JSON written or printed must parse strictly and be finite
    texts = [p.read_text() for p in reports]
    if "--format" in case.args and "json" in case.args:
        texts.append(output[output.find("{"):] if "{" in output else output)
    for t in texts:
        try:
            data = json.loads(t, parse_constant=_reject_constant)
        except ValueError as exc:
            return Outcome("d" if "constant" in str(exc) else "f", 0, str(exc)[:200])
        if not _finite(data):
            return Outcome("d", 0, "non-finite figure")
        gpus = data.get("metrics", {}).get("gpus") if isinstance(data, dict) else None
        if gpus is not None and not 1 <= gpus <= 10**8:  # MAX_GPUS
            return Outcome("d", 0, f"gpus = {gpus}")
    return Outcome("n", 0, "")


def run_case(case: Case, work: Path, catalog_copy: Path | None = None) -> Outcome:
    """Run ``case`` in this process (click's runner) and classify it."""
    import time

    from click.testing import CliRunner

    from infra.cli.main import cli
    from infra.models import catalog as catalog_mod

    if case.family in SURFACE_FAMILIES:
        import fuzz_surfaces

        return fuzz_surfaces.run_surface(case, work)
    args = prepare(case, work, catalog_copy)
    if case.catalog_file:
        catalog_mod._load.cache_clear()
    t0 = time.perf_counter()
    try:
        res = CliRunner().invoke(cli, args, obj={}, catch_exceptions=True)
        outcome = classify(case, res.exit_code, res.output, res.exception, work)
    finally:
        if case.catalog_file and catalog_copy is not None:
            shutil.copyfile(CATALOG / case.catalog_file, catalog_copy / case.catalog_file)
            catalog_mod._load.cache_clear()
    outcome.seconds = time.perf_counter() - t0
    return outcome


def catalog_copy(dst: Path) -> Path:
    shutil.copytree(CATALOG, dst)
    return dst
