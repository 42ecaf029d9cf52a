"""Analyses raise errors and findings with the file and YAML path only (issue 32); the line
is found from them where the message is shown (``infra.errors.LOCATE``). The lines
expected here are counted in the YAML text itself, independently of the reader."""

from __future__ import annotations

import pickle

import pytest

from conftest import DESIGNS
from infra.errors import LOCATE, InfraError, TopologyError, locate_line

GOOD = (DESIGNS / "aws_nvl36x2.yaml").read_text()


def line_of_text(text: str, needle: str) -> int:
    """1-based number of the one line of ``text`` that starts (after spaces) with ``needle``."""
    hits = [i for i, ln in enumerate(text.splitlines(), 1) if ln.lstrip().startswith(needle)]
    assert len(hits) == 1, (needle, hits)
    return hits[0]


def test_liquid_heat_error_names_the_rack_line(tmp_path, run_cli):
    # cooling.py raises InfeasibleDesignError(path=("racks", "nvl36"), line=LOCATE)
    text = GOOD.replace("    cooling:\n      - {type: aws-irhx}\n", "")
    p = tmp_path / "d.yaml"
    p.write_text(text)
    line = line_of_text(text, "nvl36:")  # the key under racks: (line 22 of the shipped file)
    res = run_cli("validate", str(p))
    assert res.exit_code == 2, res.output
    assert f"d.yaml:{line}: racks.nvl36: 58.9 kW of liquid heat" in res.output, res.output


def test_power_override_error_names_its_row(tmp_path, run_cli):
    # power_figures.check_overrides: path ("power_overrides", 0), line=LOCATE
    text = GOOD + "power_overrides:\n  - {type: no-such-part, max_w: 100, source: quote}\n"
    p = tmp_path / "d.yaml"
    p.write_text(text)
    line = line_of_text(text, "- {type: no-such-part")
    res = run_cli("validate", str(p))
    assert res.exit_code == 2, res.output
    assert f"d.yaml:{line}: power_overrides[0]: power override for unknown part type" \
        in res.output, res.output


def test_finding_carries_the_line_in_every_report(tmp_path, run_cli, catalog):
    # supply.py: a finding at ("racks", <layout>, "contents") with line=LOCATE. The shipped
    # design lists no power shelf; one NVIDIA shelf (33 kW class) is short of the 58.9 kW
    # rack, so the power_supply rule breaks (a finding, figures kept).
    from infra.analysis.summary import analyze_file

    shelves = [e for e in catalog.of_kind("power_shelf") if e.slug.startswith("nvidia")]
    assert shelves
    shelf = shelves[0].slug
    text = GOOD.replace("      - {type: aws-in-rack-tor, count: 3, role: tor (bottom)}\n",
                        "      - {type: aws-in-rack-tor, count: 3, role: tor (bottom)}\n"
                        f"      - {{type: {shelf}, count: 1}}\n")
    p = tmp_path / "d.yaml"
    p.write_text(text)
    a = analyze_file(p, catalog)
    supply = [f for f in a.findings if f.kind == "power_supply"]
    assert supply, a.findings
    line = line_of_text(text, "contents:")
    f = supply[0]
    assert (f.path, f.line) == ("racks.nvl36.contents", line)
    assert str(f).startswith(f"{p}:{line}: racks.nvl36.contents: rack layout 'nvl36' draws")
    assert f.as_dict()["line"] == line


def test_line_is_found_only_when_shown(monkeypatch):
    import infra.errors as errors

    calls = []
    monkeypatch.setattr(errors, "_LINE_LOCATOR", lambda f, p: calls.append((f, p)) or 7)
    exc = TopologyError("too few ports", file="d.yaml", path=("fabrics", "f", "planes"),
                        line=LOCATE, hint="fix it")
    assert calls == []  # raising costs no lookup
    assert str(exc) == "d.yaml:7: fabrics.f.planes: too few ports (fix it)"
    assert exc.line == 7 and calls == [("d.yaml", ("fabrics", "f", "planes"))]  # once
    back = pickle.loads(pickle.dumps(exc))  # a report worker sends errors back pickled
    assert (str(back), back.line, type(back)) == (str(exc), 7, TopologyError)


def test_locate_without_a_reader_or_a_path_gives_no_line(monkeypatch):
    import infra.errors as errors

    monkeypatch.setattr(errors, "_LINE_LOCATOR", None)
    assert str(InfraError("m", file="d.yaml", path=("a",), line=LOCATE)) == "d.yaml: a: m"
    assert locate_line("d.yaml", "a.b") is None  # a rendered path is not looked up


def test_explicit_line_is_kept(tmp_path):
    exc = InfraError("m", file="d.yaml", path=("a",), line=3)
    assert (exc.line, str(exc)) == (3, "d.yaml:3: a: m")
    exc.line = 5  # the models layer's resolver sets it on a failed lookup
    assert str(exc) == "d.yaml:5: a: m"


@pytest.mark.parametrize("needle,path", [("nvl36:", ("racks", "nvl36")),
                                          ("cross_rack_cable:",
                                           ("pods", "ultraserver", "scale_up", "cross_rack_cable"))])
def test_registered_reader_answers_from_the_file(tmp_path, needle, path):
    import infra.models.yamlio  # noqa: F401  (registers the reader)

    p = tmp_path / "d.yaml"
    p.write_text(GOOD)
    assert locate_line(p, path) == line_of_text(GOOD, needle)
