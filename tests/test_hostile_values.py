"""Values that were accepted without a bound or check (issue 31, D6, D7): each is now an
exit 2 naming the option or the file, line and YAML path."""

from __future__ import annotations

import datetime as dt

import pytest
from click.testing import CliRunner
from conftest import CATALOGS, DESIGNS

from infra.cli.main import cli


def run(*args: str):
    return CliRunner().invoke(cli, list(args), obj={})


@pytest.mark.parametrize("option, value", [
    ("--rack-width-m", "1e-300"), ("--rack-width-m", "0.0001"), ("--rack-width-m", "nan"),
    ("--rack-width-m", "5"), ("--row-pitch-m", "0.5"), ("--row-pitch-m", "1e-300"),
])
def test_floor_geometry_is_plausible(tmp_path, option, value):
    # D6: 1e-300 and 0.0001 m were accepted (the check was only 0 < v < 1000)
    res = run("export", str(DESIGNS / "dgx_h100_su.yaml"), "--to", "cabling", "-o",
              str(tmp_path), option, value)
    assert res.exit_code == 2, res.output
    assert option in res.output and "plausible" in res.output
    assert not (tmp_path / "cabling").exists()


def test_a_rack_width_of_0_8_m_still_works(tmp_path):
    res = run("export", str(DESIGNS / "dgx_h100_su.yaml"), "--to", "cabling", "-o",
              str(tmp_path), "--rack-width-m", "0.8", "--row-pitch-m", "2.4")
    assert res.exit_code == 0, res.output


@pytest.mark.parametrize("field", ["date", "as_of"])
def test_a_price_dated_in_the_future_is_refused(tmp_path, field):
    # D7: date: 2099-01-01 was accepted in a --prices file
    src = sorted((CATALOGS / "prices").glob("*.yaml"))[0].read_text()
    key = f"{field}: " if field == "as_of" else "    date: "
    line = next(ln for ln in src.splitlines() if ln.lstrip().startswith(f"{field}: "))
    future = (dt.date.today() + dt.timedelta(days=30)).isoformat()
    p = tmp_path / "p.yaml"
    p.write_text(src.replace(line, line[: line.index(f"{field}:")] + f"{field}: {future}", 1))
    assert future in p.read_text(), key
    res = run("compare", "nvidia-h100-sxm5", "--prices", str(p), "--format", "json")
    assert res.exit_code == 2, res.output
    assert "p.yaml:" in res.output and f"{field} {future} is in the future" in res.output
    p.write_text(src.replace(line, line[: line.index(f"{field}:")] + f"{field}: 2020-01-01", 1))
    assert run("compare", "nvidia-h100-sxm5", "--prices", str(p), "--format", "json").exit_code == 0
