"""Reports whose memory does not grow with what they inline (issue 34): the HTML page
streams its diagrams from their SVG files, the renderer copies images file to file."""

from __future__ import annotations

from infra.reports.html_report import design_html, write_design_html


def test_streamed_page_is_the_page_with_the_svgs_inlined(aws, tmp_path):
    data = aws.as_dict()
    svgs = []
    for i, text in enumerate(['<?xml version="1.0"?>\n<!DOCTYPE svg>\n<svg id="a">é</svg>',
                              "<svg id='b'><!-- c --><text>x \x01 y</text></svg>"]):
        f = tmp_path / f"d{i}.svg"
        f.write_text(text, encoding="utf-8")
        svgs.append((f"rack_elevations_p00{i + 1}", f"page {i + 1}", f, text))
    out = write_design_html(data, [(s, t, f) for s, t, f, _ in svgs], [], tmp_path / "p.html")
    want = design_html(data, [(s, t, text) for s, t, _, text in svgs], [])
    assert out.read_text(encoding="utf-8") == want
    assert '<svg id="a">é</svg>' in want and "<!-- c -->" not in want
