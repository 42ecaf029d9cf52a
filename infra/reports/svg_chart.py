"""A small inline SVG line chart (log-2 x axis) for the HTML report: no script, no
external library, every text escaped.

Examples
--------
>>> svg = line_chart("t", {"8 GPUs": [(2**20, 100.0), (2**30, 400.0)]}, "busbw GB/s")
>>> svg.startswith("<svg") and "8 GPUs" in svg and "1 MiB" in svg
True
"""

from __future__ import annotations

import html
import math

COLOURS = ("#305496", "#c55a11", "#548235", "#7030a0", "#bf9000", "#2e75b6", "#a50021")
W, H, LEFT, RIGHT, TOP, BOTTOM = 640, 300, 60, 150, 30, 45


def _size(n: float) -> str:
    for unit, name in ((2**40, "TiB"), (2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB")):
        if n >= unit:
            v = n / unit
            return f"{v:g} {name}"
    return f"{n:g} B"


def _open(title: str, font_size: int) -> list[str]:
    """The SVG element's start, its accessible title and the visible heading."""
    e = html.escape
    return [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" role="img" '
            f'aria-label="{e(title)}" font-family="Liberation Sans, Arial, sans-serif" '
            f'font-size="{font_size}">', f'<title>{e(title)}</title>',
            f'<text x="{LEFT}" y="16" font-size="13" font-weight="bold">{e(title)}</text>']


def line_chart(title: str, series: dict[str, list[tuple[float, float]]], y_label: str) -> str:
    """``series``: name -> [(x, y)]; x > 0 on a log-2 axis, y from 0."""
    pts = [p for s in series.values() for p in s if p[0] > 0]
    if not pts:
        return ""
    x0, x1 = math.log2(min(p[0] for p in pts)), math.log2(max(p[0] for p in pts))
    x1 = x1 if x1 > x0 else x0 + 1
    ymax = max(p[1] for p in pts) or 1.0
    step = 10 ** math.floor(math.log10(ymax))
    ytop = math.ceil(ymax / step) * step
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM

    def sx(x: float) -> float:
        return LEFT + (math.log2(x) - x0) / (x1 - x0) * pw

    def sy(y: float) -> float:
        return TOP + ph - y / ytop * ph

    e = html.escape
    out = _open(title, 11)
    for k in range(5):
        y = ytop * k / 4
        out.append(f'<line x1="{LEFT}" x2="{LEFT + pw}" y1="{sy(y):.1f}" y2="{sy(y):.1f}" '
                   'stroke="#ddd"/>')
        out.append(f'<text x="{LEFT - 6}" y="{sy(y) + 4:.1f}" text-anchor="end">{y:g}</text>')
    ticks = sorted({p[0] for p in pts})
    for x in ticks:
        out.append(f'<text x="{sx(x):.1f}" y="{TOP + ph + 16}" text-anchor="middle">'
                   f'{e(_size(x))}</text>')
    out.append(f'<text x="{LEFT + pw / 2}" y="{H - 6}" text-anchor="middle">message size '
               '(log scale)</text>')
    out.append(f'<text x="14" y="{TOP + ph / 2}" transform="rotate(-90 14 {TOP + ph / 2})" '
               f'text-anchor="middle">{e(y_label)}</text>')
    for i, (name, s) in enumerate(series.items()):
        c = COLOURS[i % len(COLOURS)]
        line = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in sorted(s) if x > 0)
        out.append(f'<polyline fill="none" stroke="{c}" stroke-width="2" points="{line}"/>')
        ly = TOP + 14 * i
        out.append(f'<line x1="{W - RIGHT + 12}" x2="{W - RIGHT + 32}" y1="{ly}" y2="{ly}" '
                   f'stroke="{c}" stroke-width="2"/>')
        out.append(f'<text x="{W - RIGHT + 36}" y="{ly + 4}">{e(name)}</text>')
    out.append("</svg>")
    return "".join(out)


def scatter_chart(title: str, points: list[tuple[float, float, str]], x_label: str,
                  y_label: str) -> str:
    """Labelled points on linear axes from 0 (``points``: ``(x, y, label)``).

    Examples
    --------
    >>> "gb200-x8" in scatter_chart("t", [(10.9, 72.5, "gb200-x8")], "MW", "days")
    True
    """
    pts = [p for p in points if p[0] is not None and p[1] is not None]
    if not pts:
        return ""
    xmax = max(p[0] for p in pts) * 1.1 or 1.0
    ymax = max(p[1] for p in pts) * 1.1 or 1.0
    pw, ph = W - LEFT - 120, H - TOP - BOTTOM  # room for the last point's label

    def sx(x: float) -> float:
        return LEFT + x / xmax * pw

    def sy(y: float) -> float:
        return TOP + ph - y / ymax * ph

    e = html.escape
    out = _open(title, 10) + [
           f'<line x1="{LEFT}" x2="{LEFT + pw}" y1="{TOP + ph}" y2="{TOP + ph}" stroke="#999"/>',
           f'<line x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{TOP + ph}" stroke="#999"/>']
    for k in range(5):
        x, y = xmax * k / 4, ymax * k / 4
        out.append(f'<text x="{sx(x):.1f}" y="{TOP + ph + 14}" text-anchor="middle">{x:,.3g}</text>')
        out.append(f'<text x="{LEFT - 6}" y="{sy(y) + 4:.1f}" text-anchor="end">{y:,.3g}</text>')
    out.append(f'<text x="{LEFT + pw / 2}" y="{H - 8}" text-anchor="middle">{e(x_label)}</text>')
    out.append(f'<text x="14" y="{TOP + ph / 2}" transform="rotate(-90 14 {TOP + ph / 2})" '
               f'text-anchor="middle">{e(y_label)}</text>')
    for i, (x, y, label) in enumerate(pts):
        c = COLOURS[i % len(COLOURS)]
        out.append(f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="4" fill="{c}"/>')
        out.append(f'<text x="{sx(x) + 6:.1f}" y="{sy(y) - 5:.1f}">{e(label)}</text>')
    out.append("</svg>")
    return "".join(out)


__all__ = ["line_chart", "scatter_chart"]
