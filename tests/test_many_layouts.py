"""Halls of many distinct rack layouts (issue 17): reports grouped by layout, not one
graph or one row per unit of everything."""

from __future__ import annotations


import openpyxl
import pytest

from conftest import write_hall
from infra.analysis.layout.elevation import elevation_rows, rack_elevations
from infra.analysis.layout.placement import network_elevations
from infra.analysis.summary import analyze_file
from infra.reports.writer import write_reports


def _hall(n: int, tmp_path):
    return analyze_file(write_hall(n, tmp_path))


@pytest.fixture(scope="module")
def hall23(tmp_path_factory):
    return _hall(23, tmp_path_factory.mktemp("hall"))


def test_elevations_are_drawn_ten_layouts_per_page(hall23):
    from infra.reports.diagrams.elevation import rack_elevation_diagrams

    pages = rack_elevation_diagrams(hall23)
    # 23 compute layouts and, last, the 3-tier fabric's network racks (4 contents: leaf,
    # spine and core racks), 10 per page: 10 + 10 + 7
    assert [d.name for d in pages] == ["rack_elevations_p001", "rack_elevations_p002",
                                       "rack_elevations_p003"]
    assert pages[2].title == "Rack elevations, layouts 21-27 of 27"
    assert pages[2].source.count("<b>network: ") == 4
    for k, d in enumerate(pages):
        drawn = {f"l{i}" for i in range(23) if f"<b>l{i}</b>" in d.source}
        assert drawn == {f"l{i}" for i in range(10 * k, min(23, 10 * k + 10))}
    # each layout's drawing names its rack instances (instance 0 of pod p22 holds 2 racks
    # of l22; identity names pod instances <pod><i>)
    assert "<b>l22</b>: 2 rack(s) of nvidia-gb200-nvl72-rack, 48U<br/>hall0/p220/r0, " \
        "hall0/p220/r1" in pages[2].source


def test_small_design_keeps_one_elevation_drawing():
    from conftest import DESIGNS
    from infra.reports.diagrams.elevation import rack_elevation_diagrams

    (d,) = rack_elevation_diagrams(analyze_file(DESIGNS / "gb200_nvl72_576.yaml"))
    assert (d.name, d.title) == ("rack_elevations", "Rack elevations")


def test_workbook_groups_elevation_runs_and_parts(hall23, tmp_path):
    data = hall23.as_dict()
    res = write_reports(data, "h", ("xlsx",), tmp_path, analysis=hall23)
    wb = openpyxl.load_workbook(tmp_path / "h.xlsx")
    ws = wb["Rack elevation"]
    head = [c.value for c in ws[1]]
    rows = [dict(zip(head, r)) for r in ws.iter_rows(min_row=2, values_only=True)]
    runs = data["tables"]["rack_elevation"]  # JSON format 2: runs, as the sheet shows them
    units = elevation_rows(rack_elevations(hall23.rd, hall23.power)
                           + network_elevations(hall23.rd))
    # every mounted unit is in exactly one run, and the runs' counts add up
    assert sum(r["Count"] for r in rows) == sum(r["count"] for r in runs) == len(units)
    assert len(rows) == len(runs)
    # layout l0 (bench_hetero's first): 4 shelves at the top (U48-U45 of the 48U rack),
    # then 10 compute trays (1U: U44-U35), 9 switch trays (U34-U26), 6 compute trays
    # (U25-U20), the CDU at the bottom
    l0 = [r for r in rows if r["Layout"] == "l0"]
    trays = [r for r in l0 if r["Unit"] == "nvidia-gb200-compute-tray"]
    assert [(r["Top position (U)"], r["Bottom position (U)"], r["Count"]) for r in trays] == [
        (44, 35, 10), (25, 20, 6)]
    # power by part: once per unit type, not once per layout
    parts = data["tables"]["power_by_part"]
    assert len({(p["unit"], p["part"]) for p in parts}) == len(parts)
    assert max(p["layouts"] for p in parts) == 23
    # no 10-rack elevation page is rasterised into the workbook (4-5 s and 400 MiB at 2x):
    # the first is too large, the other two are listed in one warning
    assert any(w.startswith("rack_elevations_p001: not embedded") for w in res.warnings)
    assert any("2 further rack elevation pages not embedded" in w for w in res.warnings)
    titles = [r[0] for r in wb["Diagrams"].iter_rows(values_only=True) if r and r[0]]
    assert titles and not any(t.startswith("Rack elevations") for t in titles)
