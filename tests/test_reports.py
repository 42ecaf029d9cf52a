"""Review-grade reports: workbook read back, diagrams parsed, fallbacks."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import openpyxl
import pytest

from conftest import DESIGNS
from infra.analysis.reliability.blast_radius import domain_effect
from infra.analysis.reliability.failure_view import affected_gpus, failure_view, highlight_kinds
from infra.analysis.summary import analyze_file
from infra.reports.writer import write_reports

SHIPPED = sorted(p.stem for p in DESIGNS.glob("*.yaml"))


@pytest.fixture(scope="module")
def aws_reports(tmp_path_factory):
    out = tmp_path_factory.mktemp("r")
    a = analyze_file(DESIGNS / "aws_nvl36x2.yaml")
    data = a.as_dict()
    prices = {"nvidia-gb200": 60_000.0, "aws-nitro-400g": 1_500.0}  # test prices, not real
    for r in data["tables"]["bill_of_materials"]:
        if r["slug"] in prices:
            r["unit_price_usd"] = prices[r["slug"]]
    res = write_reports(data, "aws", ("json", "xlsx", "md", "svg", "dot"), out, analysis=a)
    return out, data, res


def test_workbook_sheets_headers_formats(aws_reports):
    out, data, _ = aws_reports
    wb = openpyxl.load_workbook(out / "aws.xlsx")
    for name in ("Summary", "Charts", "Bill of materials", "Power", "Blast radius",
                 "Rack elevation", "FLOPS by precision", "Diagrams", "Sources"):
        assert name in wb.sheetnames
    # every table has its sheet, header = the table's columns, frozen and filtered
    ws = wb["Power"]
    from infra.reports.labels import column_header

    assert [c.value for c in ws[1]] == [column_header(c) for c in data["tables"]["power_by_rack"][0]]
    assert ws.freeze_panes == "A2" and ws.auto_filter.ref
    assert ws["D1"].font.bold
    col = [c.value for c in ws[1]].index("IT per rack (kW)")  # the unit once, in the header
    assert ws.cell(row=2, column=col + 1).number_format == "#,##0.0"
    summary = {r[4]: r for r in wb["Summary"].iter_rows(min_row=5, values_only=True) if r[0]}
    # 2 racks x 74.454 kW + 0.972 kW cross-rack copper (tests/test_designs.py); every part
    # now has a figure: no lower-bound mark
    assert summary["it_power_kw"][:4] == ("IT power (design maximum)", 140.88, "kW", None)
    gpus = next(r for r in wb["Summary"].iter_rows(min_row=5) if r[4].value == "gpus")
    assert gpus[1].number_format == "#,##0"  # no unit text
    # GB200 MAMF 1,822 TF (stas00 v2): 72 x 1,822 = 131.184 PF
    assert summary["achievable_pflops_bf16"][1:4] == (131.184, "PFLOPS", None)
    assert "PUE" in {r[0] for r in wb["Summary"].iter_rows(values_only=True)}  # assumptions
    unit = wb["Power by unit"]
    head = [c.value for c in unit[1]]
    tor = next(r for r in unit.iter_rows(min_row=2, values_only=True) if r[1] == "aws-in-rack-tor")
    assert tor[head.index("Power per unit (W)")] == 274  # estimate: 228 W typical x 1.2


def test_every_sheet_prints_fitted_to_width(aws_reports):
    """Page setup on every sheet: landscape, fit to width (1 page wide; 2-3 where one
    would print below 6 pt, the first column repeated), as many pages tall as needed
    (the Summary at most 2), header row repeated on each page, footer with design, infra
    version and date (SOURCE_DATE_EPOCH, else undated)."""
    out, data, _ = aws_reports
    wb = openpyxl.load_workbook(out / "aws.xlsx")
    for ws in wb.worksheets:
        assert ws.page_setup.orientation == "landscape", ws.title
        assert ws.sheet_properties.pageSetUpPr.fitToPage, ws.title
        assert 1 <= ws.page_setup.fitToWidth <= 3, ws.title
        assert ws.page_setup.fitToHeight == (2 if ws.title == "Summary" else 0), ws.title
        if ws.page_setup.fitToWidth > 1:
            assert ws.print_title_cols == "$A:$A", ws.title
        # Summary repeats the header of its printed block, the decision summary's figures
        head = 1 if ws.title != "Summary" else next(
            r for r in range(1, ws.max_row + 1) if ws.cell(row=r, column=1).value == "Metric")
        if ws.title != "Diagrams":  # there each picture prints under its own title
            assert ws.print_title_rows == f"${head}:${head}", ws.title
        assert data["design"]["name"] in ws.oddFooter.left.text and "infra " in ws.oddFooter.left.text
        assert "&P" in ws.oddFooter.right.text


def test_price_cells_are_inputs_and_sources_hyperlinked(aws_reports):
    out, data, _ = aws_reports
    wb = openpyxl.load_workbook(out / "aws.xlsx")
    bom = wb["Bill of materials"]
    col = [c.value for c in bom[1]].index("unit_price_usd") + 1
    letter = openpyxl.utils.get_column_letter(col)
    n = len(data["tables"]["bill_of_materials"])
    (dv,) = [d for d in bom.data_validations.dataValidation if d.type == "decimal"]
    assert str(dv.sqref) == f"{letter}2:{letter}{n + 1}" and dv.formula1 == "0"
    assert bom.cell(row=2, column=col).fill.fgColor.rgb.endswith("FFF2CC")
    src = wb["Sources"]
    urls = [c for c in src["F"][1:] if c.value]
    assert urls and all(c.hyperlink.target == c.value for c in urls)


def test_bom_formulas_recompute_to_json(aws_reports):
    """Prices typed into the rows (36 GB200 superchips at 60,000, 144 Nitro at 1,500; the
    superchip price covers the module alone) recalculate to 36 x 60,000 + 144 x 1,500."""
    from xlsx_recalc import cell_of, recalc

    out, data, _ = aws_reports
    ws = openpyxl.load_workbook(out / "aws.xlsx")["Bill of materials"]
    header = [c.value for c in ws[1]]
    rows = data["tables"]["bill_of_materials"]
    ci, pi, ei = (header.index(k) for k in ("count", "unit_price_usd", "extended_usd"))
    values = recalc(out / "aws.xlsx", keep=("Summary", "Bill of materials"))
    for i, r in enumerate(rows, start=2):
        cells = [c.value for c in ws[i]]
        assert cells[ei].startswith("=IF(")  # live formula, not a typed number
        assert cells[ci] == r["count"] and cells[pi] == r.get("unit_price_usd")
    assert values[("BILL OF MATERIALS", cell_of(ws, "Total"))] == 36 * 60_000 + 144 * 1_500


def test_charts_diagrams_sources(aws_reports):
    out, data, _ = aws_reports
    wb = openpyxl.load_workbook(out / "aws.xlsx")
    # openpyxl does not read charts back; count them in the package instead
    import zipfile

    names = zipfile.ZipFile(out / "aws.xlsx").namelist()
    # 3 (power, FLOPS, blast radius) + 5 collectives charts (one per op: all-reduce,
    # all-gather, reduce-scatter, all-to-all, broadcast)
    assert len([n for n in names if n.startswith("xl/charts/chart")]) == 3 + 5
    # blast-radius chart data: most severe first; a domain split without lost GPUs is named
    ch = wb["Charts"]
    labels = [c.value for c in ch["T"][1:] if c.value]
    lost = [c.value for c in ch["U"][1:len(labels) + 1]]
    assert lost == sorted(lost, reverse=True) and lost[0] == 72
    assert "the cross-rack NVLink cable set in ultraserver (2 x nvl36) [splits the NVLink domain]" in labels
    assert len([n for n in names if n.startswith("xl/media/image")]) == 4
    src = wb["Sources"]
    slugs = {r[0] for r in src.iter_rows(min_row=2, values_only=True)}
    assert {"nvidia-gb200", "nvidia-b200-gb200"} <= slugs
    assert [c.value for c in src[1]][:3] == ["slug", "field", "value"]


def test_svgs_parse_and_name_nodes(aws_reports):
    out, _, res = aws_reports
    d = out / "aws"
    names = {p.name for p in d.iterdir()}
    assert {"rack_elevations.svg", "scaleup_ultraserver_2_x_nvl36.svg",
            "tray_aws-gb200-compute-tray.svg", "failure_nvlink_backplane.svg"} <= names
    text = {p.stem: " ".join(ET.parse(p).getroot().itertext()) for p in d.glob("*.svg")}
    assert "r0.backplane" in text["scaleup_ultraserver_2_x_nvl36"] and "xrack" in text["scaleup_ultraserver_2_x_nvl36"]
    assert "pcisw0" in text["tray_aws-gb200-compute-tray"] and "1.74x" in text["tray_aws-gb200-compute-tray"]
    assert "nvidia-gb200-compute-tray" not in text["rack_elevations"]
    assert "aws-gb200-compute-tray" in text["rack_elevations"] and "IT 70 kW" in text["rack_elevations"]  # 69.954 kW
    assert "#cb181d" in (d / "failure_nvlink_backplane.svg").read_text()  # failed: red
    assert not any(n.startswith("fabric") for n in names)  # one UltraServer: no fabric
    assert not res.warnings


def test_markdown_links_diagrams(aws_reports):
    """Key figures with capex completeness; one heading per diagram, headline (scale-up)
    first; long tables folded."""
    out, data, _ = aws_reports
    md = (out / "aws.md").read_text()
    assert "| GPUs | 72 |  |  |" in md  # a count has no unit word
    # test prices: 36 GB200 x 60,000 + 144 Nitro x 1,500 are priced; the other 11 SKUs are not
    assert "| Capex, priced lines | unknown | USD | unknown: 13 SKUs unpriced |" in md
    assert "](aws/scaleup_ultraserver_2_x_nvl36.svg)" in md and ".dot)" not in md
    heads = [l for l in md.splitlines() if l.startswith("### ")]
    assert heads[0] == "### Scale-up domain: ultraserver 2 x nvl36" and len(heads) == 4
    assert "<details><summary>13 rows</summary>" in md  # blast radius
    assert "|---:|" in md  # numbers right-aligned


def test_json_unchanged_by_reports(aws_reports):
    out, data, _ = aws_reports
    assert json.loads((out / "aws.json").read_text())["metrics"] == data["metrics"]


def test_no_renderer_writes_dot_and_warns(tmp_path, monkeypatch):
    from infra.reports.diagrams import render

    monkeypatch.setattr(render, "find_renderer", lambda: None)
    a = analyze_file(DESIGNS / "gb200_nvl72.yaml")
    res = write_reports(a.as_dict(), "x", ("svg", "xlsx", "json"), tmp_path, analysis=a)
    assert (tmp_path / "x" / "rack_elevations.dot").exists()
    assert not list((tmp_path / "x").glob("*.svg"))
    assert any("no Graphviz renderer" in w for w in res.warnings)
    assert (tmp_path / "x.xlsx").exists() and (tmp_path / "x.json").exists()


def test_broken_diagram_does_not_stop_reports(tmp_path, monkeypatch):
    from infra.reports import diagrams

    def boom(*a, **k):
        raise RuntimeError("bug")

    monkeypatch.setattr(diagrams, "build_diagrams", boom)
    a = analyze_file(DESIGNS / "gb200_nvl72.yaml")
    res = write_reports(a.as_dict(), "x", ("png", "xlsx"), tmp_path, analysis=a)
    assert (tmp_path / "x.xlsx").exists() and any("bug" in w for w in res.warnings)


def test_diagrams_deterministic(tmp_path):
    a = analyze_file(DESIGNS / "dgx_h100_su.yaml")
    for n in (1, 2):
        write_reports(a.as_dict(), f"r{n}", ("svg", "dot"), tmp_path, analysis=a)
    for p in (tmp_path / "r1").iterdir():
        assert p.read_bytes() == (tmp_path / "r2" / p.name).read_bytes(), p.name


@pytest.mark.parametrize("design", SHIPPED)
def test_failure_view_matches_blast_table(design):
    """The diagram's node sets agree with the blast-radius counts, per component kind."""
    a = analyze_file(DESIGNS / f"{design}.yaml")
    mode = a.rd.design.assumptions.nvlink_partition_mode
    for kind in highlight_kinds(a):
        v = failure_view(a, kind)
        if v.scope == "domain" and v.failed and v.blast["gpus_lost"] <= v.domain.gpus:
            assert len(v.lost) == v.blast["gpus_lost"], kind
            eff = domain_effect(v.domain, set(v.failed), mode)
            assert affected_gpus(v.domain, set(v.failed), mode)[2] == eff.partitions
        if v.scope == "tray":
            assert (len(v.lost), len(v.degraded)) == (v.blast["gpus_lost"], v.blast["gpus_degraded"])


def test_highlight_cli(tmp_path, run_cli):
    res = run_cli("design", str(DESIGNS / "gb200_nvl72.yaml"), "--report", "svg",
                  "--highlight", "nvlink_switch_tray", "-o", str(tmp_path), "-q")
    assert res.exit_code == 0, res.output
    assert (tmp_path / "gb200_nvl72" / "failure_nvlink_switch_tray.svg").exists()
    bad = run_cli("design", str(DESIGNS / "gb200_nvl72.yaml"), "--report", "svg",
                  "--highlight", "nvlink_swich_tray", "-o", str(tmp_path), "-q")
    assert bad.exit_code == 2 and "nvlink_switch_tray" in bad.output


def test_fabric_diagram_collapsed_by_rail(catalog):
    """DGX SuperPOD H100: 8 rail leaf groups (4 leaves each) under one 16-spine group;
    each rail carries 127 node links up from the DGX and 4 x 32 = 128 links to spines."""
    from infra.reports.diagrams.fabric import fabric_diagrams

    a = analyze_file(DESIGNS / "dgx_h100_superpod.yaml", catalog)
    (d,) = fabric_diagrams(a)
    assert d.source.count("rail") >= 8 and "16 x nvidia-quantum-2-qm9700" in d.source
    assert "127 x 400G" in d.source and "128 x 400G" in d.source
    assert fabric_diagrams(analyze_file(DESIGNS / "gb200_nvl72.yaml", catalog)) == []


def test_bom_prices_total_equals_capex(tmp_path, catalog):
    """DGX SU at the shipped prices: 32 DGX H100 systems x $270,000 (covering their
    H100s) + 12 QM9700 x $36,000 = $9,072,000, a lower bound (optics, fibres, racks, PDUs,
    room cooling unpriced); the recalculated workbook total equals it."""
    from xlsx_recalc import cell_of, recalc

    from infra.reports.xlsx_report import write_xlsx

    a = analyze_file(DESIGNS / "dgx_h100_su.yaml", catalog)
    data = a.as_dict()
    assert data["metrics"]["capex_priced_usd"] == 32 * 270_000 + 12 * 36_000 == 9_072_000
    assert data["metrics"]["capex_unpriced_sku_count"] > 0
    path = write_xlsx(data, tmp_path / "su.xlsx", a)
    ws = openpyxl.load_workbook(path)["Bill of materials"]
    v = recalc(path, keep=("Summary", "Bill of materials"))
    assert v[("BILL OF MATERIALS", cell_of(ws, "Total"))] == 9_072_000


@pytest.mark.parametrize("design", SHIPPED)
def test_shipped_workbooks_page_setup(design, catalog):
    """Every sheet of every shipped design's workbook prints landscape, fitted to width
    (one page wide, or up to 3 where one would print below 6 pt: tests/test_print.py),
    as many pages tall as needed; the Summary at most 2."""
    from infra.reports.xlsx_report import build_workbook

    a = analyze_file(DESIGNS / f"{design}.yaml", catalog)
    wb = build_workbook(a.as_dict(), a)
    for ws in wb.worksheets:
        setup = (ws.page_setup.orientation, ws.page_setup.fitToHeight,
                 ws.sheet_properties.pageSetUpPr.fitToPage)
        assert setup == ("landscape", 2 if ws.title == "Summary" else 0, True), (design, ws.title)
        assert 1 <= ws.page_setup.fitToWidth <= 3, (design, ws.title)
        assert ws.print_title_rows and ws.oddFooter.left.text.startswith(a.rd.name), ws.title


@pytest.mark.parametrize("design", SHIPPED)
def test_design_output_fits_100_columns(design, run_cli, monkeypatch):
    """`infra design` fits COLUMNS=100 (key columns); `--wide` shows every column."""
    monkeypatch.setenv("COLUMNS", "100")
    res = run_cli("design", str(DESIGNS / f"{design}.yaml"), "--full")
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert max(len(line) for line in lines) <= 100, max(lines, key=len)
    assert "Blast radius" in res.stdout and "GPUs lost" in res.stdout
    wide = run_cli("design", str(DESIGNS / f"{design}.yaml"), "--wide")
    assert "Cluster FLOPS lost (%)" in wide.stdout  # a column only --wide shows


def test_wrote_lines_go_to_stderr_and_quiet_silences(tmp_path, run_cli):
    args = ("design", str(DESIGNS / "gb200_nvl72.yaml"), "--report", "json", "-o", str(tmp_path))
    res = run_cli(*args)
    assert "wrote" not in res.stdout and f"wrote {tmp_path / 'gb200_nvl72.json'}" in res.stderr
    quiet = run_cli(*args, "-q")
    assert quiet.exit_code == 0 and quiet.stdout == "" and "wrote" not in quiet.stderr


def test_unknown_summary_figures_are_blank_and_marked(tmp_path):
    """An unknown figure (GB300 with its MAMF estimate taken out of a copy of the catalog:
    no MAMF) is a blank cell marked 'unknown', never 0."""
    import shutil

    from infra.analysis.summary import analyze_file
    from infra.models.catalog import DEFAULT_CATALOG_DIR, load_catalog
    from infra.reports.xlsx_report import write_xlsx

    from conftest import DESIGNS

    cat = tmp_path / "catalogs"
    shutil.copytree(DEFAULT_CATALOG_DIR, cat)
    gpu = cat / "gpus" / "nvidia" / "nvidia-b300-gb300.yaml"
    text = gpu.read_text()
    text = "\n".join(l for l in text.split("\n") if not l.startswith(("mamf_bf16_tflops:",
                                                                      "  mamf_bf16_tflops:")))
    gpu.write_text(text)
    a = analyze_file(DESIGNS / "gb300_nvl72.yaml", load_catalog(cat))
    assert a.metrics()["achievable_pflops_bf16"] is None
    write_xlsx(a.as_dict(), tmp_path / "g.xlsx")
    wb = openpyxl.load_workbook(tmp_path / "g.xlsx")
    summary = {r[4]: r for r in wb["Summary"].iter_rows(min_row=5, values_only=True) if r[0]}
    assert summary["achievable_pflops_bf16"][1:4] == (None, "PFLOPS", "unknown")
