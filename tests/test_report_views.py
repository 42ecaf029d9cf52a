"""Diagrams and the HTML report as their readers see them: sizes, legends, a real browser.

The browser test runs headless Chromium (Debian package ``chromium``, installed by
``.ci/run``). It is skipped only where Chromium is missing outside CI; under ``CI`` a
missing browser fails the test.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import DESIGNS
from infra.analysis.summary import analyze_file
from infra.reports.writer import write_reports

SHIPPED = sorted(p.stem for p in DESIGNS.glob("*.yaml"))
MAX_PX = 2000  # widest diagram at 1x (96 px per inch; SVG sizes are in pt, 72 per inch)
PX_PER_PT = 96 / 72
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--hide-scrollbars"]


@pytest.fixture(scope="module")
def shipped(tmp_path_factory, catalog):
    """SVG diagrams and the HTML report of every shipped design."""
    out = tmp_path_factory.mktemp("views")
    for name in SHIPPED:
        a = analyze_file(DESIGNS / f"{name}.yaml", catalog)
        res = write_reports(a.as_dict(), name, ("svg", "html"), out, analysis=a)
        assert not [w for w in res.warnings if "failed" in w], res.warnings
    return out


def svg_px(path: Path) -> tuple[float, float]:
    root = ET.parse(path).getroot()
    return tuple(float(root.get(k).removesuffix("pt")) * PX_PER_PT for k in ("width", "height"))


@pytest.mark.parametrize("design", SHIPPED)
def test_diagrams_fit_2000px_and_have_a_legend(shipped, design):
    svgs = sorted((shipped / design).glob("*.svg"))
    assert len(svgs) >= 4  # elevations, scale-up (or tray domain), tray, failure
    for p in svgs:
        w, _ = svg_px(p)
        assert w <= MAX_PX, (p.name, round(w))
        text = " ".join(ET.parse(p).getroot().itertext())
        assert "Legend" in text, p.name
        assert "Liberation Sans" in p.read_text(), p.name  # font fallback list


def test_elevation_names_instances_front_rear_and_footer(shipped):
    """GB200 NVL72 SU: one drawing for the 8 racks su0/r0..su0/r7, rear cartridge and busbar."""
    text = " ".join(ET.parse(shipped / "gb200_nvl72_576" / "rack_elevations.svg").getroot().itertext())
    assert "su0/r0, su0/r1" in text and "su0/r7" in text and "8 rack(s)" in text
    for word in ("front", "rear", "NVLink", "cartridge", "DC busbar", "free"):
        assert word in text, word
    # 2 x SN2201 + 8 x 1U power shelves + 18 x 1U compute + 9 x 1U switch trays = 37U of 48U
    assert "37 U used, 11 U free of 48U" in text
    # tray names as in the cabling plan and exports (su0/r0/t0 ...): 18 compute trays t0..t17
    words = text.split()
    assert "t0" in words and "t17" in words and "t18" not in words


def test_failed_parts_marked_by_pattern_not_only_colour(shipped):
    src = (shipped / "aws_nvl36x2" / "failure_nvlink_backplane.svg").read_text()
    text = " ".join(ET.parse(shipped / "aws_nvl36x2" / "failure_nvlink_backplane.svg").getroot().itertext())
    assert "FAILED" in text and "LOST" in text  # words beside the colours
    assert 'stroke-dasharray' in src  # dashed borders of lost trays


def test_png_is_2x(tmp_path, catalog):
    a = analyze_file(DESIGNS / "gb200_nvl72.yaml", catalog)
    write_reports(a.as_dict(), "x", ("svg", "png"), tmp_path, analysis=a)
    svg_w, _ = svg_px(tmp_path / "x" / "rack_elevations.svg")
    png = (tmp_path / "x" / "rack_elevations.png").read_bytes()
    png_w, _ = struct.unpack(">II", png[16:24])
    assert abs(png_w - 2 * svg_w) <= 4, (png_w, svg_w)


def test_html_is_self_contained(shipped):
    for name in SHIPPED:
        page = (shipped / f"{name}.html").read_text()
        assert page.count("<figure") == len(list((shipped / name).glob("*.svg")))
        for bad in ("<script src", "<link ", "url(http", "@import", "<img src=\"http"):
            assert bad not in page, (name, bad)
        assert "Key figures" in page and "Assumptions and gaps" in page


def chromium() -> str:
    exe = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")
                if shutil.which(n)), None)
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed (.ci/run installs the Debian package)")
        pytest.skip("chromium not installed")
    return exe


def run_chromium(args: list[str], tmp: Path) -> subprocess.CompletedProcess:
    profile = tmp / f"profile{len(list(tmp.glob('profile*')))}"
    return subprocess.run([chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                           "--enable-logging=stderr", "--v=0", *args],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("design", ["aws_nvl36x2", "gb200_nvl72_576", "dgx_h100_superpod"])
def test_html_loads_in_chromium(shipped, design, tmp_path):
    """The page runs with no errors and every diagram is in the DOM after load."""
    url = (shipped / f"{design}.html").as_uri()
    r = run_chromium(["--dump-dom", url], tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    n = len(list((shipped / design).glob("*.svg")))
    assert f'data-diagrams="{n}"' in r.stdout and 'data-errors="0"' in r.stdout
    console = [l for l in r.stderr.splitlines() if "CONSOLE" in l or "Uncaught" in l]
    assert not console, console


def test_html_screenshot_1280(shipped, tmp_path):
    shot = tmp_path / "aws_nvl36x2_1280.png"
    r = run_chromium(["--window-size=1280,1600", f"--screenshot={shot}",
                      (shipped / "aws_nvl36x2.html").as_uri()], tmp_path)
    assert r.returncode == 0 and shot.exists(), r.stderr[-2000:]
    assert struct.unpack(">II", shot.read_bytes()[16:24]) == (1280, 1600)


def test_failures_html(tmp_path, run_cli):
    res = run_cli("failures", str(DESIGNS / "gb200_nvl72.yaml"), "--samples", "2000",
                  "--report", "html", "-o", str(tmp_path))
    assert res.exit_code == 0, res.output
    page = (tmp_path / "gb200_nvl72.failures.html").read_text()
    assert "Failure review" in page and "Job interruptions by kind" in page
    r = run_chromium(["--dump-dom", (tmp_path / "gb200_nvl72.failures.html").as_uri()], tmp_path)
    assert 'data-errors="0"' in r.stdout


def test_compare_html(tmp_path, run_cli):
    res = run_cli("compare", str(DESIGNS / "gb200_nvl72.yaml"), str(DESIGNS / "dgx_h100_su.yaml"),
                  "--report", "html", "-o", str(tmp_path), "--name", "c")
    assert res.exit_code == 0, res.output
    page = (tmp_path / "c.html").read_text()
    assert "Comparison" in page and 'id="comparison"' in page
    r = run_chromium(["--dump-dom", (tmp_path / "c.html").as_uri()], tmp_path)
    assert 'data-errors="0"' in r.stdout


def test_failures_workbook_has_real_charts_and_units(tmp_path, run_cli):
    """Two charts (interruptions by kind, availability vs spare trays); units per row;
    no empty Assumption header."""
    import zipfile

    import openpyxl

    res = run_cli("failures", str(DESIGNS / "gb200_nvl72.yaml"), "--samples", "2000",
                  "--report", "xlsx", "-o", str(tmp_path))
    assert res.exit_code == 0, res.output
    path = tmp_path / "gb200_nvl72.failures.xlsx"
    charts = [n for n in zipfile.ZipFile(path).namelist() if n.startswith("xl/charts/chart")]
    assert len(charts) == 2
    summary = openpyxl.load_workbook(path)["Summary"]
    units = {r[4]: r[2] for r in summary.iter_rows(min_row=5, values_only=True) if r[0]}
    assert units["gpu_hours_lost_per_year"] == "GPU-hours per year"
    assert units["checkpoint_write_seconds"] == "seconds"
    assert units["young_checkpoint_interval_minutes"] == "minutes"
    assert "Assumption" not in [r[0] for r in summary.iter_rows(values_only=True)]
