"""A small inline SVG bar chart (grouped or stacked) for the HTML reports: no script, no
external library, every text escaped; unknown values are left out (no bar), never 0.

Examples
--------
>>> svg = bar_chart("t", ["a", "\u2265 b"], {"capex": [1.5, None]}, "USD")
>>> svg.startswith("<svg") and "\u2265 b" in svg and svg.count("<rect") == 2
True
"""

from __future__ import annotations

import html
import math

from infra.reports.svg_chart import COLOURS

W, H, LEFT, TOP, BOTTOM = 640, 320, 78, 30, 70


def _nice(top: float) -> float:
    """The axis top: 1, 2, 2.5 or 5 x 10^k at or above ``top``."""
    if top <= 0:
        return 1.0
    step = 10 ** math.floor(math.log10(top))
    for m in (1, 2, 2.5, 5, 10):
        if m * step >= top:
            return m * step
    return 10 * step


def _tick(v: float) -> str:
    return f"{v:,.0f}" if v >= 100 or v == int(v) else f"{v:,.2g}"


def bar_chart(title: str, categories: list[str], series: dict[str, list[float | None]],
              y_label: str, stacked: bool = False, scale: float = 1.0) -> str:
    """Bars per category; ``series``: name -> one value per category (None: no bar).
    ``scale`` divides every value (1e6 for $M axes). Empty string when nothing is known."""
    vals = {k: [None if v is None else v / scale for v in vs] for k, vs in series.items()}
    if not any(v for vs in vals.values() for v in vs if v):
        return ""
    n = len(categories)
    if stacked:
        top = max(sum(vs[i] or 0 for vs in vals.values()) for i in range(n))
    else:
        top = max(v or 0 for vs in vals.values() for v in vs)
    ytop = _nice(top)
    legend = [k for k, vs in vals.items() if any(vs)]
    rows = math.ceil(len(legend) / 3)
    height = H + 16 * rows
    pw, ph = W - LEFT - 20, H - TOP - BOTTOM
    e = html.escape
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {height}" role="img" '
           f'aria-label="{e(title)}" font-family="Liberation Sans, Arial, sans-serif" '
           'font-size="11">', f"<title>{e(title)}</title>",
           f'<text x="8" y="16" font-size="13" font-weight="bold">{e(title)}</text>']

    def sy(v: float) -> float:
        return TOP + ph - v / ytop * ph

    for k in range(5):
        y = ytop * k / 4
        out.append(f'<line x1="{LEFT}" x2="{LEFT + pw}" y1="{sy(y):.1f}" y2="{sy(y):.1f}" '
                   'stroke="#ddd"/>')
        out.append(f'<text x="{LEFT - 6}" y="{sy(y) + 4:.1f}" text-anchor="end">{_tick(y)}</text>')
    out.append(f'<text x="14" y="{TOP + ph / 2}" transform="rotate(-90 14 {TOP + ph / 2})" '
               f'text-anchor="middle">{e(y_label)}</text>')
    slot = pw / max(n, 1)
    groups = 1 if stacked else max(len(legend), 1)
    bw = min(slot * 0.7 / groups, 60)
    for i, cat in enumerate(categories):
        x0 = LEFT + slot * i + (slot - bw * groups) / 2
        base = 0.0
        for g, name in enumerate(legend):
            v = vals[name][i]
            if v is None or v <= 0:
                continue
            c = COLOURS[g % len(COLOURS)]
            x = x0 if stacked else x0 + g * bw
            y0, y1 = (base, base + v) if stacked else (0.0, v)
            out.append(f'<rect x="{x:.1f}" y="{sy(y1):.1f}" width="{bw:.1f}" '
                       f'height="{max(sy(y0) - sy(y1), 0.5):.1f}" fill="{c}">'
                       f"<title>{e(cat)}: {e(name)} {_tick(v)}</title></rect>")
            if stacked:
                base += v
        out.append(f'<text x="{LEFT + slot * (i + 0.5):.1f}" y="{TOP + ph + 16}" '
                   f'text-anchor="middle">{e(cat)}</text>')
    for j, name in enumerate(legend):
        c = COLOURS[j % len(COLOURS)]
        lx, ly = 8 + (j % 3) * 210, H - 22 + 16 * (j // 3)
        out.append(f'<rect x="{lx}" y="{ly - 9}" width="10" height="10" fill="{c}"/>')
        out.append(f'<text x="{lx + 14}" y="{ly}">{e(name)}</text>')
    out.append("</svg>")
    return "".join(out)


__all__ = ["bar_chart"]
