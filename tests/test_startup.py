"""Start-up budget: what ``infra design ... --report json`` and ``import infra`` import.

Behavioural checks, not timings (those are in ``benchmarks/bench_startup.py``): each
case runs in a fresh interpreter and lists ``sys.modules`` afterwards. A module named
here costs start-up on every run of a path that never uses it; the fix is to import it
inside the function that needs it.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import ROOT

AWS = ROOT / "designs" / "aws_nvl36x2.yaml"

# Never imported by the parent of a quiet JSON design run: workbook, dataframes, the
# terminal renderer (rich: only when the summary is printed), diagrams, the "did you
# mean" matcher (error paths only), and the layers beside analyses.
NOT_ON_DESIGN_PATH = (
    "openpyxl", "pandas", "numpy", "rich", "graphviz", "lxml", "formulas", "defusedxml",
    "difflib", "multiprocessing", "concurrent.futures",
    "infra.reports.xlsx_report", "infra.reports.markdown", "infra.reports.html_report",
    "infra.reports.diagrams", "infra.exports", "infra.ingest", "infra.sweeps",
    "infra.analysis.cost.compare", "infra.analysis.reliability.failures",
)
# ... nor, for a design without fabrics, what only fabrics need
FABRIC_ONLY = ("infra.analysis.layout.cabling", "infra.analysis.layout.identity",
               "infra.analysis.network.fat_tree", "infra.analysis.network.attach")

# the command in process, then the parent's modules (the forked summary printer ends
# with os._exit and never gets here)
_RUN = """
import json, sys
from infra.cli.main import cli
cli(sys.argv[1:], standalone_mode=False)
with open({out!r}, "w") as f:
    json.dump(sorted(sys.modules), f)
"""


def _modules_after(tmp_path, code: str, *args: str, stdout=subprocess.DEVNULL) -> set[str]:
    out = tmp_path / "modules.json"
    subprocess.run([sys.executable, "-c", code.replace("{out!r}", repr(str(out))), *args],
                   check=True, stdout=stdout, stderr=subprocess.PIPE, cwd=ROOT)
    return set(json.loads(out.read_text()))


def _design_run(tmp_path, *extra: str, stdout=subprocess.DEVNULL) -> set[str]:
    # --output and --quiet, not -o and -q: click itself imports difflib while it parses
    # a short option (it tries it as a long one first and builds a NoSuchOption with
    # suggestions), which is click's cost, not infra's
    return _modules_after(tmp_path, _RUN, "design", str(AWS), "--report", "json",
                          "--output", str(tmp_path / "r"), *extra, stdout=stdout)


def _present(mods: set[str], names) -> list[str]:
    return sorted(n for n in names if any(m == n or m.startswith(n + ".") for m in mods))


@pytest.mark.parametrize("quiet", [True, False], ids=["quiet", "summary"])
def test_design_json_path_imports_only_what_it_uses(tmp_path, quiet):
    # the default summary is the decision summary, plain text: rich is imported only for
    # --full's tables (the forked report workers that imported it beside the analysis
    # were removed in issue 32: they saved no CPU time)
    with open(tmp_path / "stdout.txt", "w") as so:
        mods = _design_run(tmp_path, *(["--quiet"] if quiet else []), stdout=so)
    assert (tmp_path / "r" / "aws_nvl36x2.json").exists()
    assert _present(mods, NOT_ON_DESIGN_PATH + FABRIC_ONLY) == []
    # the path itself is what it is meant to be (this check cannot pass vacuously)
    assert {"networkx", "pydantic", "yaml", "infra.analysis.summary",
            "infra.reports.json_report"} <= mods
    if not quiet:
        assert "GB200" in (tmp_path / "stdout.txt").read_text()


def test_fabric_design_still_imports_the_fabric_analyses(tmp_path):
    d = ROOT / "designs" / "dgx_h100_su.yaml"
    mods = _modules_after(tmp_path, _RUN, "design", str(d), "--report", "json", "-q",
                          "--output", str(tmp_path / "r"))
    assert set(FABRIC_ONLY) <= mods
    rows = json.loads((tmp_path / "r" / "dgx_h100_su.json").read_text())["tables"]["cabling"]
    assert rows  # the plan is still computed where there is a fabric


def test_import_infra_is_lazy(tmp_path):
    code = "import json, sys, infra\nwith open({out!r}, 'w') as f: json.dump(sorted(sys.modules), f)"
    mods = _modules_after(tmp_path, code)
    assert _present(mods, ("pydantic", "networkx", "yaml", "click", "infra.api",
                           "infra.models", "infra.analysis")) == []


def test_python_api_analyze_imports_no_sweeps_or_numpy(tmp_path):
    code = ("import json, sys, infra\na = infra.analyze('designs/aws_nvl36x2.yaml')\n"
            "assert a.metrics()['gpus'] == 72\n"
            "with open({out!r}, 'w') as f: json.dump(sorted(sys.modules), f)")
    mods = _modules_after(tmp_path, code)
    assert _present(mods, NOT_ON_DESIGN_PATH) == []


def test_lazy_api_names_resolve():
    import infra
    from infra.analysis.cost.compare import Comparison
    from infra.analysis.reliability.failure_review import FailureReview
    from infra.sweeps import SweepResult, diff_designs, sweep

    assert (infra.Comparison, infra.FailureReview, infra.SweepResult, infra.sweep,
            infra.diff_designs) == (Comparison, FailureReview, SweepResult, sweep, diff_designs)
    from infra.api import sweep as s2

    assert s2 is sweep
    assert {"sweep", "Comparison"} <= set(dir(infra.api))
    with pytest.raises(AttributeError):
        infra.api.no_such_name  # noqa: B018


def _model_defaults():
    """(model, field, default) for every field whose default is itself a model."""
    from pydantic import BaseModel

    import infra.models.design  # noqa: F401 - every model module, so subclasses exist
    import infra.models.fabric  # noqa: F401
    import infra.models.prices  # noqa: F401
    import infra.models.rates  # noqa: F401
    from infra.models.base import Strict

    def walk(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from walk(sub)

    for cls in set(walk(Strict)):
        for name, info in cls.model_fields.items():
            if isinstance(info.default, BaseModel):
                yield cls, name, info.default


def test_model_defaults_equal_validated_instances():
    # defaults built with model_construct() (no validator at import) must be exactly
    # what validating an empty mapping gives: same values, same fields set, no extras
    found = list(_model_defaults())
    assert {(c.__name__, n) for c, n, _ in found} >= {
        ("Gpu", "peak_sparse_tflops"), ("Design", "assumptions"), ("TierSpec", "down")}
    for cls, name, default in found:
        validated = type(default).model_validate({})
        assert default == validated, (cls.__name__, name)
        assert default.__dict__ == validated.__dict__
        assert default.__pydantic_fields_set__ == validated.__pydantic_fields_set__ == set()
        assert default.__pydantic_extra__ == validated.__pydantic_extra__
        assert default.model_dump() == validated.model_dump()


def test_collector_tuned_only_in_a_one_command_process():
    """The infra command tunes and freezes; a process that only calls it (this test
    runner, a notebook) keeps its collector as it was."""
    import gc

    from click.testing import CliRunner

    from infra.cli.main import cli, freeze_long_lived

    before = (gc.get_threshold(), gc.get_freeze_count())
    freeze_long_lived()
    assert CliRunner().invoke(cli, ["design", str(AWS)]).exit_code == 0
    assert (gc.get_threshold(), gc.get_freeze_count()) == before
    code = ("import gc, sys\n"
            "from infra.cli.main import short_lived_gc, freeze_long_lived\n"
            "short_lived_gc()\n"
            "n = gc.get_freeze_count()\n"
            "x = [[i] for i in range(1000)]\n"
            "freeze_long_lived()\n"
            "print(gc.get_threshold(), gc.get_freeze_count() > n)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert r.stdout.split("\n")[0] == "(50000, 20, 100) True", r.stderr
