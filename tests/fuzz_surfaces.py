"""Hostile inputs on the newer surfaces (issue 31): inventory dumps (``ingest``, ``diff``),
sweep grids, ``export`` options and design names, price files through ``--prices``, and
``infra new``. Used by :mod:`fuzzing` (``make_case`` / ``run_case``) for the families in
:data:`SURFACES`.

Besides the classes of :mod:`fuzzing`, these cases are checked for security findings
(class ``s``): a planted secret (``secret/shadow``, reachable only through a symbolic
link the case plants) in any output or message; an injected formula (``1337``) as a
workbook ``<f>`` cell or a CSV cell starting with ``= + - @``; an injected command
(``PWNED``) on its own line of a generated shell script; an injected key (``injected``)
in written YAML; a symbolic link or FIFO planted at an output path replaced. A ``new``
that exits 0 must write a design that validates (else ``f``); ``diff``'s exit 1 is its
bring-up gate (a finding), not an internal error.
"""

from __future__ import annotations

import random
import re
import shutil
import zipfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
INVENTORIES = {"hgx-h100-clean": ROOT / "designs" / "dgx_h100_su.yaml",
               "gb200-nvl72-clean": ROOT / "designs" / "gb200_nvl72.yaml"}
FIXTURES = ROOT / "tests" / "fixtures" / "inventory"
SURFACES = ("inventory", "sweep", "export", "pricefile", "new")
SECRET = "root:$6$FUZZSECRET$0123456789"
FORMULA = "=SUM(1337,1)"
INJECT = "x\ninjected: 1\n#"
SHELL = "su\ntouch PWNED\n#"
HOSTILE = [FORMULA, INJECT, SHELL, "", "x" * 5000, "\x1b[31m", "a\u2028b", "../../etc/x",
           "+cmd|' /C calc'!A0", "@SUM(1337)", "-1337+1", "null", "yes", "0x1F", "1.5",
           "{a: 1}", "\x00", "é" * 20]
NUMBERS = [0, -1, 1e308, -1e308, 10**30, 2**63, float("nan"), float("inf"), 1e-308, True,
           "abc", None, [1, 2], {"a": 1}, 1.0e6, 0.5, 3]


def make_surface_case(family: str, seed: int, case_cls):
    rnd = random.Random(f"{family}:{seed}")
    return {"inventory": _inventory, "sweep": _sweep, "export": _export,
            "pricefile": _pricefile, "new": _new}[family](rnd, case_cls, family)


# ----------------------------------------------------------------------------- inventory

def _inventory(rnd: random.Random, Case, family):
    fixture = rnd.choice(sorted(INVENTORIES))
    src = FIXTURES / fixture
    files = {f"inv/{p.relative_to(src)}": p.read_bytes() for p in sorted(src.rglob("*"))
             if p.is_file()}
    extra: dict = {"links": {}, "fifos": []}
    names = sorted(files)
    victim = rnd.choice(names)
    op = rnd.choice(["digits", "hexdigits", "newline_name", "dup_host", "delete", "truncate",
                     "binary", "symlink_secret", "fifo", "deep_xml", "entity", "formula_host",
                     "huge_line", "empty", "host_pattern"])
    body = files[victim]
    if op == "digits":
        files[victim] = re.sub(rb"\b\d+\b", b"9" * 5000, body, count=rnd.randint(1, 3))
    elif op == "hexdigits":
        files[victim] = re.sub(rb"0x[0-9a-fA-F]+", b"0x" + b"f" * 400, body, count=2)
    elif op == "newline_name":
        files[victim] = body.replace(b"<product_name>", b"<product_name>X&#10;injected: 1&#10;#", 1)
    elif op == "dup_host":
        host = sorted({n.split("/")[1] for n in names if n.count("/") == 2})[0]
        for n in [n for n in names if n.startswith(f"inv/{host}/")]:
            files[n.replace(f"inv/{host}/", "inv/r009n09/")] = files[n]
    elif op == "delete":
        del files[victim]
    elif op == "truncate":
        files[victim] = body[: rnd.randrange(max(len(body), 1))]
    elif op == "binary":
        files[victim] = bytes(rnd.randrange(256) for _ in range(600))
    elif op == "symlink_secret":
        del files[victim]
        extra["links"][victim] = "SECRET"
    elif op == "fifo":
        del files[victim]
        extra["fifos"].append(victim)
    elif op == "deep_xml" and victim.endswith(".xml"):
        n = rnd.choice([100, 990, 5000])
        i = body.find(b">", body.find(b"<", body.find(b"?>") + 2)) + 1
        files[victim] = body[:i] + b"<pci>" * n + b"</pci>" * n + body[i:]
    elif op == "entity" and victim.endswith(".xml"):
        files[victim] = (b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM '
                         b'"file:///etc/passwd">]>' + body.split(b"?>", 1)[-1].replace(
                             b"<driver_version>", b"<driver_version>&e;", 1))
    elif op == "formula_host":
        host = sorted({n.split("/")[1] for n in names if n.count("/") == 2})[-1]
        for n in [n for n in names if n.startswith(f"inv/{host}/")]:
            files[n.replace(f"inv/{host}/", "inv/=SUM(1337,1)/")] = files.pop(n)
    elif op == "huge_line":
        files[victim] = body + b"x" * 3_000_000 + b"\n"
    elif op == "empty":
        files[victim] = b""
    design = str(INVENTORIES[fixture])
    cmd = rnd.choice([
        ["ingest", "INV", "--to-design", "out/draft.yaml"],
        ["diff", design, "--inventory", "INV", "--format", "json"],
        ["diff", design, "--inventory", "INV", "--report", "xlsx", "--report", "csv",
         "-o", "out"],
    ])
    if op == "host_pattern":
        cmd = ["diff", design, "--inventory", "INV", "--format", "json", "--host-pattern",
               rnd.choice(["r{rack:>300000000}n{slot}", "r{rack.foo}", "r{rack[0]}", "r{rack:q}",
                           "{index.__class__}", "r{rack:03d}n{slot:02d}", "", "r{nope}"])]
    return Case(family, f"{op}:{victim.split('/', 1)[-1]}"[:80], cmd, "inv", files, None, extra)


# ----------------------------------------------------------------------------- sweep

SWEEP_PARAMS = {
    "pue": {"input": "pue", "values": [1.1, 1.3]},
    "years": {"input": "years", "values": [3, 5]},
    "apue": {"path": "assumptions.pue", "values": [1.2, 1.25]},
    "red": {"path": "racks.nvl72.power_redundancy", "values": ["N+N", "N+1"]},
    "tdp": {"catalog": "nvidia-b200-gb200.tdp_w", "values": [1000, 1200]},
}
CONSTRAINTS = ["'x' * 3000000000 == 'x'", "'%0999999999d' % 1 == ''", "not " * 1200 + "True",
               "+".join(["1"] * 5000) + " > 0", "__import__('os').system('touch PWNED')",
               "f'{pue}' == ''", "pue > 5", "pue in (1.1, 1.3)", "nosuch > 1", "pue == 'a'",
               "-" * 300 + "1 > 0", "(lambda: 1)()", "pue.__class__ == 1"]


def _sweep(rnd: random.Random, Case, family):
    names = rnd.sample(sorted(SWEEP_PARAMS), rnd.randint(1, 2))
    grid = {"parameters": {n: dict(SWEEP_PARAMS[n]) for n in names}}
    op = rnd.choice(["value", "value", "range", "constraint", "path", "catalog", "objectives",
                     "zip", "size", "prices", "shape", "formula"])
    p = grid["parameters"][names[0]]
    extra_args: list[str] = []
    files: dict[str, bytes] = {}
    if op == "value":
        p["values"] = [p["values"][0], rnd.choice(NUMBERS + HOSTILE)]
    elif op == "range":
        p.pop("values")
        p["range"] = {"start": rnd.choice([0, 1.1, -1, 1e308]),
                      "stop": rnd.choice([1.0e308, 1.3, 1e6, float("nan"), 0]),
                      "step": rnd.choice([1.0e302, 0.1, 0, -1, 1e-9, 1])}
    elif op == "constraint":
        grid["constraints"] = [rnd.choice(CONSTRAINTS).replace("pue", names[0])]
    elif op == "path":
        grid["parameters"][names[0]] = {"path": rnd.choice(
            ["nosuch.x", "racks..x", "racks.nvl72.contents[999].type", "name[0]", "",
             "racks.nvl72.contents.2.type.__class__", "a" * 5000]), "values": [1, 2]}
    elif op == "catalog":
        grid["parameters"][names[0]] = {"catalog": rnd.choice(
            ["nosuch-gpu.tdp_w", "nvidia-b200-gb200.__class__", "nvidia-b200-gb200.slug",
             "nvidia-b200-gb200.nosuch", "nvidia-b200-gb200.kind", "x"]), "values": [1, 2]}
    elif op == "objectives":
        extra_args = ["--objectives", rnd.choice([",,,", "capex_usd", "it_power_kw:min,it_power_kw:max",
                                                  "nosuch:min", ":max", "capex_usd:up"])]
    elif op == "zip":
        grid["zip"] = [[names[0], rnd.choice(["zz", names[0]])]]
    elif op == "size":
        grid["parameters"] = {"e": {"input": "energy_usd_per_kwh",
                                    "range": {"start": 0.001, "stop": 1.0, "step": 0.001}},
                              "m": {"input": "maintenance_fraction_per_year",
                                    "range": {"start": 0.0001, "stop": 0.1, "step": 0.0001}}}
    elif op == "prices":
        extra_args = ["--prices", rnd.choice(["nosuch.yaml", "PY", "SECRETLINK"])]
        if extra_args[1] == "PY":
            files["py.yaml"] = b"!!python/object/apply:os.system ['touch PWNED']\n"
            extra_args[1] = "py.yaml"
    elif op == "shape":
        grid = rnd.choice([[1, 2], "text", {"parameters": {}}, {"parameters": {"a": {}}},
                           {"parameters": {"a": {"input": "pue", "values": []}}}, None])
    elif op == "formula":
        grid["parameters"] = {"n": {"path": "name", "values": [FORMULA, "@SUM(1337)"]}}
    files["g.yaml"] = yaml.safe_dump(grid, allow_unicode=True, width=10**7).encode()
    cmd = ["sweep", str(ROOT / "designs" / "gb200_nvl72.yaml"), "--grid", "g.yaml", "-o", "out",
           "--workers", "1", "-q", "--report", rnd.choice(["csv", "json", "xlsx"]), *extra_args]
    extra = {"links": {"secret.yaml": "SECRET"} if "SECRETLINK" in cmd else {}, "fifos": []}
    cmd = ["secret.yaml" if a == "SECRETLINK" else a for a in cmd]
    return Case(family, f"{op}:{names[0]}", cmd, "g.yaml", files, None, extra)


# ----------------------------------------------------------------------------- export

def _export(rnd: random.Random, Case, family):
    src = rnd.choice(["dgx_h100_su.yaml", "gb200_nvl72.yaml", "aws_nvl36x2.yaml"])
    data = yaml.safe_load((ROOT / "designs" / src).read_text())
    op = rnd.choice(["name", "name", "hostnames", "scope", "geometry", "out_symlink",
                     "out_fifo", "out_file", "plain"])
    extra: dict = {"links": {}, "fifos": []}
    args: list[str] = []
    out = "out"
    if op == "name":
        data["name"] = rnd.choice(HOSTILE)
    elif op == "hostnames":
        args = ["--hostnames", rnd.choice(["r{rack:>300000000}", "r{rack.foo}", "{rack[0]}",
                                           "r{rack:q}", "{index.__class__.__subclasses__}",
                                           "=SUM(1337,1){index}", "a b{index}", "{index:099d}",
                                           "n{index}", "", "x" * 100 + "{index}"])]
    elif op == "scope":
        args = ["--scope", rnd.choice(["fabric:nosuch", "tray:nosuch", "domain", "rack", "x",
                                       "tray:", "cluster"])]
    elif op == "geometry":
        args = [rnd.choice(["--rack-width-m", "--row-pitch-m"]),
                rnd.choice(["1e-300", "0", "nan", "-1", "1e308", "0.8", "3"])]
    elif op == "out_symlink":
        extra["links"]["out"] = "SECRETDIR"
    elif op == "out_fifo":
        extra["fifos"].append("out")
    elif op == "out_file":
        out = "d.yaml"
    to = rnd.choice(["slurm", "nccl", "k8s", "netbox", "graphml", "cabling"])
    return Case(family, f"{op}:{to}", ["export", "d.yaml", "--to", to, "-o", out, *args],
                "d.yaml", {"d.yaml": yaml.safe_dump(data, allow_unicode=True).encode()}, None,
                extra)


# ----------------------------------------------------------------------------- prices

def _pricefile(rnd: random.Random, Case, family):
    import fuzzing

    src = rnd.choice(fuzzing.PRICES)
    op, data = fuzzing._tree_mutation(yaml.safe_load(src.read_text()), rnd)
    if rnd.random() < 0.3:
        op, data = "date", yaml.safe_load(src.read_text())
        data["prices"][0]["date"] = rnd.choice(["2099-01-01", "0001-01-01", "2026-02-30", 20990101])
    design = str(ROOT / "designs" / "gb200_nvl72.yaml")
    cmd = rnd.choice([["design", design, "-q", "--report", "json", "--prices", "p.yaml", "-o", "out"],
                      ["compare", "nvidia-h100-sxm5", "--format", "json", "--prices", "p.yaml"],
                      ["sweep", design, "--grid", "g.yaml", "--workers", "1", "-q", "-o", "out",
                       "--prices", "p.yaml"]])
    grid = {"parameters": {"pue": {"input": "pue", "values": [1.1, 1.2]}}}
    return Case(family, op, cmd, "p.yaml", {"p.yaml": fuzzing._dump(data),
                                            "g.yaml": yaml.safe_dump(grid).encode()})


# ----------------------------------------------------------------------------- new

def _new(rnd: random.Random, Case, family):
    name = rnd.choice(["null", "yes", "no", "on", "123", "1.5", "0x1F", "2026-01-01",
                       "../../escaped", "sub/dir/x", "/abs/x", "", ".", "..", "x/", "a" * 300,
                       "-x", "=SUM(1337,1)", "a\nb", "ok_name", "my-nvl72.v2", "~", "*"])
    args = ["new", "--", name] if name.startswith("-") else ["new", name]
    op = rnd.choice(["name", "name", "from", "out"])
    files: dict[str, bytes] = {}
    extra: dict = {"links": {}, "fifos": []}
    if op == "from":
        files["t.yaml"] = rnd.choice([b"- a\n- b\n", b"name: [\n", b"", b"name: x\n",
                                      b"!!python/object/apply:os.system ['touch PWNED']\n",
                                      (ROOT / "designs" / "gb200_nvl72.yaml").read_bytes()])
        args[1:1] = ["--from", rnd.choice(["t.yaml", "nosuch", "../../etc/passwd", "gb200_nvl72"])]
    elif op == "out":
        o = rnd.choice(["out/n.yaml", "out", "d_link.yaml", "fifo.yaml", "/proc/nope.yaml",
                        "-", "exists.yaml"])
        args[1:1] = ["-o", o]
        if o == "d_link.yaml":
            extra["links"]["d_link.yaml"] = "SECRET"
        if o == "fifo.yaml":
            extra["fifos"].append("fifo.yaml")
        if o == "exists.yaml":
            files["exists.yaml"] = b"name: keep\n"
    return Case(family, f"{op}:{name[:30]!r}", args, "", files, None, extra)


# ----------------------------------------------------------------------------- oracles

def plant(case, work: Path) -> None:
    """The secret, the links and FIFOs a case needs, under ``work``."""
    import os

    secret_dir = work / "secret"
    secret_dir.mkdir(exist_ok=True)
    (secret_dir / "shadow").write_text(SECRET + "\n")
    for rel, target in (case.extra or {}).get("links", {}).items():
        p = work / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.unlink(missing_ok=True)
        p.symlink_to(secret_dir if target == "SECRETDIR" else secret_dir / "shadow")
    for rel in (case.extra or {}).get("fifos", []):
        p = work / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(p)


def security(case, work: Path, output: str) -> str | None:
    """The first security observation of a finished case, or None."""
    import stat

    if SECRET[:20] in output:
        return "secret in the message"
    for rel, _ in (case.extra or {}).get("links", {}).items():
        if not (work / rel).is_symlink():
            return f"symlink {rel} replaced"
    for rel in (case.extra or {}).get("fifos", []):
        if not stat.S_ISFIFO((work / rel).lstat().st_mode):
            return f"FIFO {rel} replaced"
    if (work / "PWNED").exists():
        return "code ran"
    for p in sorted(work.rglob("*")):
        if p.is_symlink() or not p.is_file() or "secret" in p.parts or p.name in case.files:
            continue
        raw = p.read_bytes()[:20_000_000]
        if SECRET[:20].encode() in raw:
            return f"secret in {p.name}"
        if p.suffix == ".xlsx":
            try:
                with zipfile.ZipFile(p) as z:
                    for n in z.namelist():
                        if n.startswith("xl/worksheets/") and re.search(
                                rb"<f>[^<]*1337", z.read(n)):
                            return f"formula in {p.name}"
            except zipfile.BadZipFile:
                return None  # a corrupt workbook is class f, seen by the caller
        text = raw.decode("utf-8", "replace")
        if p.suffix == ".csv" and re.search(r"(^|,)\"?[=+\-@][^,\n]*1337", text, re.M):
            return f"formula cell in {p.name}"
        if p.suffix == ".sh" and re.search(r"^\s*touch PWNED", text, re.M):
            return f"command in {p.name}"
        if p.suffix in (".yaml", ".yml"):
            try:
                data = yaml.safe_load(text)
            except yaml.YAMLError:
                continue
            if isinstance(data, dict) and "injected" in data:
                return f"key injected into {p.name}"
    return None


def new_output_validates(case, work: Path, res_output: str) -> str | None:
    """A ``new`` that exited 0 wrote a file that ``infra validate`` accepts."""
    from click.testing import CliRunner

    from infra.cli.main import cli

    written = [p for p in work.rglob("*.yaml") if p.is_file() and not p.is_symlink()
               and p.name not in case.files and "secret" not in p.parts]
    for p in written:
        r = CliRunner().invoke(cli, ["validate", str(p)], obj={})
        if r.exit_code != 0:
            return f"new wrote {p.name}, which fails validate: {r.output[:150]}"
    return None


def copy_tree(src: Path, dst: Path) -> None:
    shutil.copytree(src, dst, dirs_exist_ok=True)


def run_surface(case, work: Path):
    """Run a surface case in ``work`` (its working directory) and classify it."""
    import os
    import time

    from click.testing import CliRunner

    import fuzzing
    from infra.cli.main import cli

    for name, body in case.files.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_bytes(body)
    plant(case, work)
    args = ["inv" if a == "INV" else a for a in case.args]
    before = {p for p in work.rglob("*") if p.is_file() or p.is_symlink()}
    cwd = os.getcwd()
    t0 = time.perf_counter()
    os.chdir(work)
    try:
        res = CliRunner().invoke(cli, args, obj={}, catch_exceptions=True)
    finally:
        os.chdir(cwd)
    output = res.output
    code = res.exit_code
    if isinstance(res.exception, SystemExit):
        exc = None
    else:
        exc = res.exception
    gate = args[0] == "diff" and code == 1 and "internal error" not in output
    outcome = fuzzing.classify(case, 0 if gate else code, output, exc, work, before=before)
    if outcome.klass in "adn" or (gate and outcome.klass == "n"):
        why = security(case, work, output)
        if why:
            outcome = fuzzing.Outcome("s", code, why)
        elif args[0] == "new" and code == 0:
            bad = new_output_validates(case, work, output)
            if bad:
                outcome = fuzzing.Outcome("f", 0, bad)
    outcome.seconds = time.perf_counter() - t0
    if gate:
        outcome.exit_code = 1
    return outcome
