"""In-suite fuzzer (issue 18): mutated shipped inputs give exit 2 or a valid result.

Never a traceback or internal error (c), a non-finite figure or 0 GPUs on exit 0 (d), a
case over 10 s (e), a temporary file or report left by a failed run, or a corrupt JSON
(f), nor a security finding (s) on the newer surfaces. Seeded (derandomized), 48 cases
over the six families of ``tests/fuzzing.py`` and 30 over the five of
``tests/fuzz_surfaces.py``; ``benchmarks/fuzz_run.py`` runs the same generators on >= 13,000.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fuzzing

CASE_SECONDS = 10.0


@pytest.fixture(scope="module")
def catalog_copy(tmp_path_factory):
    return fuzzing.catalog_copy(tmp_path_factory.mktemp("fuzz") / "cat")


@settings(max_examples=48, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(family=st.sampled_from(fuzzing.FAMILIES), seed=st.integers(0, 10**6))
def test_mutated_inputs_are_handled(catalog_copy, family, seed):
    case = fuzzing.make_case(family, seed)
    with tempfile.TemporaryDirectory() as work:
        outcome = fuzzing.run_case(case, Path(work), catalog_copy)
    assert outcome.klass not in "cdef", (family, seed, case.op, case.args, outcome)
    assert outcome.seconds < CASE_SECONDS, (family, seed, case.op, outcome.seconds)


@settings(max_examples=30, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(family=st.sampled_from(fuzzing.SURFACE_FAMILIES), seed=st.integers(0, 10**6))
def test_hostile_surface_inputs_are_handled(family, seed):
    """Inventory dumps, sweep grids, export options, --prices files and ``infra new``
    (issue 31): never c, d, e, f, nor a security finding (s)."""
    case = fuzzing.make_case(family, seed)
    with tempfile.TemporaryDirectory() as work:
        outcome = fuzzing.run_case(case, Path(work))
    assert outcome.klass not in "cdefs", (family, seed, case.op, case.args, outcome)
    assert outcome.seconds < CASE_SECONDS, (family, seed, case.op, outcome.seconds)


@pytest.mark.parametrize("family", fuzzing.FAMILIES + fuzzing.SURFACE_FAMILIES)
def test_each_family_produces_cases(family):
    ops = {fuzzing.make_case(family, s).op.split(":")[0] for s in range(30)}
    assert len(ops) >= 3, ops  # the generator really varies its mutations


def test_the_security_oracle_sees_each_finding(tmp_path):
    """The class-s oracle is not vacuous: each planted finding is named."""
    import zipfile

    import fuzz_surfaces as fs

    case = fuzzing.Case("export", "x", ["export"], "d.yaml", {}, None,
                        {"links": {"lnk": "SECRET"}, "fifos": []})
    fs.plant(case, tmp_path)
    assert fs.security(case, tmp_path, "") is None
    assert fs.security(case, tmp_path, f"error: got {fs.SECRET!r}") == "secret in the message"
    checks = [("a.csv", "n,v\nx,=SUM(1337,1)\n", "formula cell in a.csv"),
              ("b.sh", "#!/bin/sh\n# su\ntouch PWNED\n", "command in b.sh"),
              ("c.yaml", "name: x\ninjected: 1\n", "key injected into c.yaml"),
              ("d.txt", fs.SECRET, "secret in d.txt")]
    for name, text, says in checks:
        (tmp_path / name).write_text(text)
        assert fs.security(case, tmp_path, "") == says
        (tmp_path / name).unlink()
    with zipfile.ZipFile(tmp_path / "w.xlsx", "w") as z:
        z.writestr("xl/worksheets/sheet1.xml", '<c r="B1"><f>SUM(1337,1)</f></c>')
    assert fs.security(case, tmp_path, "") == "formula in w.xlsx"
    (tmp_path / "w.xlsx").unlink()
    (tmp_path / "lnk").unlink()
    (tmp_path / "lnk").write_text("replaced")
    assert fs.security(case, tmp_path, "") == "symlink lnk replaced"
