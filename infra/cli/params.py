"""click parameter types that validate numbers the way the schemas do (issue 18).

``click.FloatRange`` lets NaN through (every comparison with NaN is false) and accepts
``inf`` and ``1e308``; these types refuse non-finite values and state the range.
"""

from __future__ import annotations

import math
from pathlib import Path

import click


class FiniteFloat(click.ParamType):
    """A finite float in [lo, hi] (ends open where asked).

    Examples
    --------
    >>> FiniteFloat(0, 10).convert("2.5", None, None)
    2.5
    """

    name = "number"

    def __init__(self, lo: float, hi: float, *, lo_open: bool = False, hi_open: bool = False,
                 what: str = "") -> None:
        self.lo, self.hi, self.lo_open, self.hi_open, self.what = lo, hi, lo_open, hi_open, what

    def _range(self) -> str:
        return (f"{'(' if self.lo_open else '['}{self.lo:g}, {self.hi:g}"
                f"{')' if self.hi_open else ']'}")

    def convert(self, value, param, ctx):
        if isinstance(value, float):
            x = value
        else:
            try:
                x = float(value)
            except (TypeError, ValueError):
                self.fail(f"{str(value)[:40]!r} is not a number", param, ctx)
        ok = math.isfinite(x) and (x > self.lo if self.lo_open else x >= self.lo) and (
            x < self.hi if self.hi_open else x <= self.hi)
        if not ok:
            what = f" ({self.what})" if self.what else ""
            self.fail(f"{str(value)[:40]} is not a finite number in {self._range()}{what}",
                      param, ctx)
        return x


# Floor geometry (issue 31, D6: 1e-300 m was accepted): a 19-inch rack's frame is about
# 0.48 m wide (EIA-310 panel 482.6 mm), a double-wide rack 1.2 m; rows are a rack's depth
# plus an aisle apart (at least about 1.2 m), and no row pitch exceeds a hall's width.
RACK_WIDTH_M = FiniteFloat(0.45, 3.0, what="a plausible rack width in metres")
ROW_PITCH_M = FiniteFloat(1.2, 30.0, what="a plausible row pitch in metres: a rack's depth plus an aisle")
SEED = click.IntRange(0, 2**63 - 1)
COUNT = click.IntRange(1, 10**12)


def rows_option(f):
    """``--rows N``: rows a terminal table prints at most, the most telling first; 0: all."""
    return click.option("--rows", "max_rows", type=click.IntRange(min=0), default=25,
                        show_default=True,
                        help="Rows a summary table prints at most (the most telling "
                             "first); 0: all. Reports always hold every row.")(f)


def host_map_options(f):
    """``--host-regex`` and ``--host-map``: the site's host names (parsed by
    :func:`infra.ingest.hostmap.site_naming`), for ``export`` and ``history``."""
    f = click.option("--host-map", "host_map_file", default=None,
                     type=click.Path(path_type=Path),
                     help="Site host names as a CSV (host,rack,slot or host,design_host) or "
                          "YAML (host: {rack: N, slot: M}) file.")(f)
    return click.option("--host-regex", default=None, metavar="REGEX",
                        help="Site host names as a regular expression with named groups "
                             "(1-based numbers: index, rack, slot, u, domain, domain_node, "
                             "group, group_node), e.g. 'a05-p1-dgx-(?P<group>\\d{2})-c"
                             "(?P<group_node>\\d{2})'.")(f)
