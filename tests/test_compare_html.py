"""The compare HTML page: the comparison table first and open, four charts inline as SVG,
no raw mapping text, no "Tco" heading, USD in whole dollars, bounds marked."""

from __future__ import annotations

import re

import pytest

from conftest import DESIGNS
from infra.analysis.cost.compare import compare
from infra.models.prices import load_prices
from infra.reports.compare_html import compare_page, usd

OPTIONS = [str(DESIGNS / "gb200_nvl72.yaml"), str(DESIGNS / "dgx_h100_su.yaml"),
           "nvidia-h100-sxm5"]


@pytest.fixture(scope="module")
def page(catalog):
    cmp = compare(OPTIONS, load_prices(catalog=catalog), catalog, allow_mixed_scope=True)
    return cmp, compare_page(cmp.as_dict())


def test_no_raw_mapping_and_charts_inline(page):
    cmp, text = page
    assert not re.search(r"\{'[a-z_]+': ", text)  # no Python dict repr
    assert "{&#x27;" not in text and "[]</td>" not in text
    assert "Tco" not in text and ">TCO over 5 years<" in text
    assert text.count("<svg") == 4  # PFLOPS per $M, per MW, capex, TCO
    first = text.index('id="comparison"')
    assert first < text.index('id="charts"') < text.index('id="options"')
    assert "<details" not in text[first:text.index('id="charts"')]  # open, not folded


def test_whole_dollars_and_marks(page):
    cmp, text = page
    tco = cmp.options[1].tco.tco_usd  # dgx_h100_su: a lower-bound capex
    assert f"\u2265 {usd(tco)}" in text and re.fullmatch(r"\$[\d,]+", usd(tco))
    body = re.findall(r"<td[^>]*>([^<]*)</td>", text)
    cents = [c for c in body if re.fullmatch(r"(\u2265 )?\$[\d,]+\.\d{2}", c)]
    assert not cents, cents[:3]  # only $ per GPU-hour has decimals (three)
    labels = re.findall(r">([^<>]*dgx_h100_su \[systems\])</text>", text)
    assert "\u2264 dgx_h100_su [systems]" in labels  # PFLOPS per $M: upper bound
    assert "dgx_h100_su [systems]" in labels  # PFLOPS per MW: no bound
    assert "\u2265 dgx_h100_su [systems]" in labels  # capex and TCO: lower bound


def test_cli_writes_the_page(tmp_path, run_cli):
    r = run_cli("compare", *OPTIONS[:2], "--report", "html", "-o", str(tmp_path), "--name", "c")
    assert r.exit_code in (0, 1), r.output
    text = (tmp_path / "c.html").read_text()
    assert 'id="cash-flow"' in text and 'id="scenarios"' in text and "<svg" in text
