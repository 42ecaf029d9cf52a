"""One pricing rule in the tool and in the recalculated workbook; unknown is not zero.

DGX SuperPOD H100 (designs/dgx_h100_superpod.yaml, NVIDIA RA): 127 DGX H100 = 1,016 GPUs.

    [rack: generic 42U] --> [nvidia-dgx-h100 x4] --> [nvidia-h100-sxm5 x8], CPUs, NICs ...
                       \\-> [apc-ap8886 PDUs]
    fabric: QM9700 leaves/spines, MMS4X00 optics, fibres (top level)
"""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest
from xlsx_recalc import cell_of, recalc

from conftest import CATALOGS, DESIGNS
from infra.analysis.summary import analyze_file
from infra.errors import PriceError
from infra.models.prices import load_prices
from infra.reports.xlsx_report import write_xlsx

TODAY = CATALOGS / "prices" / "public-press-2023-2026.yaml"  # the prices the issue was filed with
BOM = "Bill of materials"


def _price_file(tmp_path: Path, name: str, *entries: str) -> Path:
    p = tmp_path / f"{name}.yaml"
    p.write_text("as_of: 2026-06-30\ncurrency: USD\nprices:\n" + "".join(entries))
    return p


def _entry(slug: str, usd: float, covers: str = "unit", basis: str = "quote") -> str:
    return (f"  - {{slug: {slug}, usd: {usd}, basis: {basis}, covers: {covers}, "
            f"date: 2026-05-01,\n     source: {{title: test quote, url: https://example.com/q, "
            f"tag: V}}}}\n")


def _workbook(tmp_path, design, book, catalog):
    a = analyze_file(DESIGNS / design, catalog, book)
    path = write_xlsx(a.as_dict(), tmp_path / f"{Path(design).stem}.xlsx", a)
    return a, path


def _sheet_values(path, edits=None):
    ws = openpyxl.load_workbook(path)[BOM]
    v = recalc(path, keep=("Summary", BOM), edits=edits)
    get = lambda label: v[(BOM.upper(), cell_of(ws, label))]  # noqa: E731
    return ws, v, get


def test_dgx_system_price_superpod_tool_and_sheet(tmp_path, catalog):
    """DGX H100 quoted at $400,000 as a system (covers contents): 127 x 400,000 =
    $50,800,000; its 1,016 H100s ($27,500 each today) are included, not counted again."""
    dgx = _price_file(tmp_path, "dgx", _entry("nvidia-dgx-h100", 400000, "contents"))
    book = load_prices([TODAY, dgx], catalog, defaults=False)
    a, path = _workbook(tmp_path, "dgx_h100_superpod.yaml", book, catalog)
    assert a.capex.priced_usd == 127 * 400_000 == 50_800_000
    gpu = next(ln for ln in a.capex.lines if ln.kind == "gpu")
    assert gpu.included_in == "nvidia-dgx-h100" and gpu.total_usd == 0
    ws, v, get = _sheet_values(path)
    assert get("Total") == 50_800_000
    summary = openpyxl.load_workbook(path)["Summary"]
    row = next(r for r in summary.iter_rows() if "capex_priced_usd" in [c.value for c in r])
    assert row[1].value.startswith("='Bill of materials'!")  # a formula on the BOM total
    assert v[("SUMMARY", row[1].coordinate)] == 50_800_000
    assert v[("SUMMARY", row[3].coordinate)].startswith("lower bound: ")  # its live note
    # a buyer edits the DGX price in the sheet: the total follows the tool's rule
    header = [c.value for c in ws[1]]
    row = next(r[0].row for r in ws.iter_rows(min_row=2) if r[header.index("slug")].value
               == "nvidia-dgx-h100")
    price = ws.cell(row=row, column=header.index("unit_price_usd") + 1).coordinate
    _, _, get2 = _sheet_values(path, {(BOM, price): 300_000})
    assert get2("Total") == 127 * 300_000
    # blank the DGX price: the H100s count again (1,016 x 27,500) and the DGX is unpriced
    _, _, get3 = _sheet_values(path, {(BOM, price): None})
    assert get3("Total") == 1016 * 27_500
    assert get3("Capex scope") == "gpus-only"
    assert get3("Capex is").startswith("lower bound: ")
    # with every shipped price as well: + 48 QM9700 x $36,000 (optics, fibres unpriced)
    full = load_prices([dgx], catalog)
    assert analyze_file(DESIGNS / "dgx_h100_superpod.yaml", catalog, full).capex.priced_usd \
        == 50_800_000 + 48 * 36_000


def test_priced_empty_rack_never_zeroes_contents(tmp_path, catalog):
    """A $1,500 empty 42U rack (covers the unit alone) adds 8 x 1,500 to the DGX SU's
    256 x 27,500 GPUs: 7,052,000, in the tool and in the sheet."""
    rack = _price_file(tmp_path, "rack", _entry("generic-42u-air-rack", 1500))
    book = load_prices([TODAY, rack], catalog, defaults=False)
    a, path = _workbook(tmp_path, "dgx_h100_su.yaml", book, catalog)
    assert a.capex.priced_usd == 8 * 1500 + 256 * 27_500 == 7_052_000
    assert all(ln.included_in is None for ln in a.capex.lines)
    _, _, get = _sheet_values(path)
    assert get("Total") == 7_052_000
    assert get("Unpriced lines") == len(a.capex.unpriced_lines) > 0
    assert get("Capex is") == f"lower bound: {len(a.capex.unpriced_lines)} lines unpriced"
    assert get("Capex scope") == a.capex.scope == "gpus-only"


def test_unpriced_workbook_is_not_zero(tmp_path, catalog):
    """AWS NVL36x2: nothing is priced; the total is blank, never $0."""
    a, path = _workbook(tmp_path, "aws_nvl36x2.yaml", load_prices(catalog=catalog), catalog)
    m = a.metrics()
    assert m["capex_priced_usd"] is None and m["capex_scope"] == "none"
    _, v, get = _sheet_values(path)
    assert get("Total") is None
    assert get("Capex is") == "unknown: no line priced" == m["capex_lower_bound"]
    assert get("Capex scope") == "none"


def test_nvl72_integrated_rack_and_completeness(tmp_path, catalog):
    a, path = _workbook(tmp_path, "gb200_nvl72.yaml", load_prices(catalog=catalog), catalog)
    c = a.capex
    # the populated rack: $3.5M planning (Morgan Stanley's $3.5-4.0M, low end; prices file)
    assert c.priced_usd == 3_500_000 and c.scope == "full" and c.completeness == 1.0
    assert {ln.included_in for ln in c.lines[1:]} == {"nvidia-gb200-nvl72-rack"}
    _, _, get = _sheet_values(path)
    assert get("Total") == 3_500_000 and get("Capex is") == "complete"
    assert get("Capex completeness (priced share of lines)") == 1.0


def test_price_entry_checks(tmp_path, catalog):
    bad = _price_file(tmp_path, "bad", "  - {slug: nvidia-h100-sxm5, usd: 50000, low_usd: 20000,"
                      " high_usd: 30000, basis: quote, date: 2026-01-01,\n     source: {title: q,"
                      " url: https://example.com, tag: V}}\n")
    with pytest.raises(PriceError, match="within low_usd"):
        load_prices([bad], catalog)
    gpu = _price_file(tmp_path, "gpu", _entry("nvidia-h100-sxm5", 25000, "contents"))
    with pytest.raises(PriceError, match="cannot cover contents") as e:
        load_prices([gpu], catalog)
    assert e.value.line == 4
    fibre = _price_file(tmp_path, "fibre", _entry("fibre-link", 120, basis="quote"))
    assert load_prices([fibre], catalog).get("fibre-link").basis == "quote"


@pytest.mark.parametrize("design", sorted(p.name for p in DESIGNS.glob("*.yaml")))
def test_every_shipped_workbook_recalculates_to_the_tool(design, tmp_path, catalog):
    """For every shipped design at the shipped prices, the recalculated BOM sheet gives
    the tool's capex (blank when nothing is priced), unpriced-line count and scope."""
    from infra.reports.xlsx_report import build_workbook

    a = analyze_file(DESIGNS / design, catalog)
    data = a.as_dict()
    data["tables"] = {"bill_of_materials": data["tables"]["bill_of_materials"]}  # fast
    path = tmp_path / "bom.xlsx"
    build_workbook(data).save(path)
    _, _, get = _sheet_values(path)
    c = a.capex
    assert get("Total") == (None if c.priced_usd is None else pytest.approx(c.priced_usd))
    assert get("Unpriced lines") == len(c.unpriced_lines)
    assert get("Capex scope") == c.scope
