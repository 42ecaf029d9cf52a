"""Terminal summary of a design analysis (no figure is computed here).

Tables are laid out by ``rich`` to fit the terminal (``$COLUMNS``, else the terminal's
width, else 100 columns): the key columns of each table by default, every column with
``wide=True`` (then at natural width, for ``less -S`` or a wide window).
"""

from __future__ import annotations

import io
import os
import re
import shutil
import sys
import textwrap
from typing import Any

from infra.reports.labels import column_header, metric_label, shown_unit, value_text

DEFAULT_WIDTH = 100
HEADLINE = [
    "gpus", "cpus", "racks", "compute_racks", "other_racks", "network_racks", "compute_trays",
    "hbm_tbyte", "hbm_gib", "hbm_tbyte_s",
    "cpu_memory_tbyte", "combined_memory_tbyte",
    "peak_dense_pflops_bf16", "peak_dense_pflops_fp8", "peak_dense_pflops_fp4",
    "peak_sparse_pflops_fp4", "achievable_pflops_bf16", "it_power_kw", "it_power_typical_kw",
    "facility_power_kw", "liquid_heat_kw", "air_heat_kw", "scale_up_domains",
    "scale_up_domain_gpus", "scale_up_gbyte_s_per_gpu", "scale_up_bisection_gbyte_s",
    "scale_up_domain_combined_memory_tbyte", "scale_up_max_oversubscription_ratio",
    "scale_out_gbit_s_per_gpu_nominal", "scale_out_gbit_s_per_gpu_effective",
    "front_end_gbit_s_per_tray", "pcie_max_oversubscription",
    "allreduce_busbw_8gib_domain_gbyte_s", "allreduce_busbw_8gib_design_gbyte_s",
    "worst_single_failure_gpus", "fabric_tiers", "leaf_switches", "spine_switches", "core_switches", "transceivers",
    "scale_out_bisection_tbit_s", "fabric_power_kw", "capex_priced_usd",
    "capex_unpriced_sku_count", "capex_scope", "capex_completeness_fraction",
]
EXTRA = ("capex_unpriced_sku_count", "capex_scope", "power_unknown_parts_count")  # read beside
FABRIC_METRICS = ("fabric_", "leaf_", "spine_", "core_", "transceivers", "scale_out_bisection")
# (table, title, key columns shown by default; ``--wide`` shows every column)
SECTIONS = [
    ("bill_of_materials", "Bill of materials (by kind)", ["kind", "slug", "count"]),
    ("power_by_rack", "Power per rack", ["layout", "racks", "it_kw_per_rack", "liquid_kw_per_rack",
                                         "air_kw_per_rack", "supply_kw_per_rack",
                                         "published_estimate_kw_per_rack"]),
    ("power_envelopes", "Published power envelopes vs computed (difference in %)", [
        "scope", "figure", "computed_kw", "published_kw", "difference_pct", "envelope"]),
    ("power_supply", "Rack power supply", ["layout", "installed_kw", "redundancy", "usable_kw",
                                           "load_kw", "survives_one_feed_loss"]),
    ("cooling", "Cooling", ["unit", "removes", "heat_kw", "capacity_kw", "needed", "spares",
                            "installed", "total_units"]),
    ("bandwidth", "Per-GPU bandwidth by tray type (per direction)", [
        "tray", "trays", "scale_up_gbyte_s_per_gpu", "scale_out_gbit_s_per_gpu_nominal",
        "scale_out_gbit_s_per_gpu_effective", "pcie_max_oversubscription", "worst_link"]),
    ("fabric", "Fabric tiers", ["fabric", "role", "switch", "switches", "down_links",
                                "ports_free", "cables"]),
    ("blast_radius", "Blast radius", ["component", "count", "gpus_lost", "gpus_degraded",
                                      "domains_broken", "largest_placeable_job_gpus"]),
    ("storage", "Storage by job size (alone on it, per direction)", [
        "storage", "gpus", "write_gbyte_s", "write_gbyte_s_per_gpu", "write_binds",
        "checkpoint_write_per_gpu_gigabyte_seconds"]),
]
# A table longer than ``max_rows`` shows its most telling rows first: (key, descending)
FIRST = {
    "blast_radius": (lambda r: (_n0(r.get("gpus_lost")), _n0(r.get("gpus_degraded"))), True,
                     "most GPUs lost first"),
    "power_by_rack": (lambda r: _n0(r.get("it_kw_per_rack")), True, "highest IT kW first"),
    "power_envelopes": (lambda r: abs(_n0(r.get("difference_pct"))), True,
                        "largest difference first"),
    "power_supply": (lambda r: _n0(r.get("headroom_kw"), float("inf")), False,
                     "least headroom first"),
    "cooling": (lambda r: _n0(r.get("heat_kw")), True, "most heat first"),
    "failures": (lambda r: (_n0(r.get("share_of_interruptions")),
                            _n0(r.get("gpu_hours_lost_per_year"))), True,
                 "largest share of interruptions first"),
}
DEFAULT_ROWS = 25
BLANKS = ("-", "n/a", "unknown", "")
ASCII_HEAD = "    \n    \n -- \n    \n    \n    \n    \n    \n"  # rich Box: a rule under the header


def terminal_width() -> int:
    """``$COLUMNS`` if set, else the terminal's width, else 100."""
    env = os.environ.get("COLUMNS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    return shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns


def fmt(value: Any, none: str = "unknown") -> str:
    if value is None:
        return none
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:,.2f}".rstrip("0").rstrip(".") if value % 1 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def table(rows: list[dict], columns: list[str] | None = None, none: str = "-", *,
          headers: bool = False, width: int | None = None, wide: bool = False) -> str:
    """Text table of ``rows`` (list of dicts), laid out by ``rich`` to fit ``width``.

    ``headers=True`` prints human labels with units instead of the column names; ``wide``
    ignores the width (every cell on one line). A column is right-aligned when all its
    cells are numbers or blanks. A table that cannot fit even with every cell wrapped is
    printed as one record per row (``label: value`` lines) rather than cut.

    Examples
    --------
    >>> print(table([{"layout": "nvl72", "racks": 8}], width=40))
      layout  racks
      -------------
      nvl72       8
    >>> print(table([{"layout": "nvl72", "racks": 8}], width=8))
      layout: nvl72
      racks: 8
    """
    from rich.console import Console

    if not rows:
        return "  (none)"
    cols = columns or list(rows[0])
    cells = [[fmt(r.get(c), none) for c in cols] for r in rows]
    names = [column_header(c) if headers else c for c in cols]
    width = 10_000 if wide else (width or terminal_width()) - 2
    # below ~10 characters a column's words are cut into syllables: print records instead
    need = sum(min(max(len(w) for text in [n, *(row[i] for row in cells)] for w in text.split()),
                   10) + 1 for i, n in enumerate(names))
    attempts = []  # (headers, cells, keep words, wrap number headers, planned widths)
    if wide or need <= width + 1:
        attempts = [(names, cells, True, False, None), (names, cells, True, True, None)]
        plan = None if wide else _plan(names, cells, width)
        if plan is not None:  # when rich would cut a word: text wrapped at separators
            attempts.append((*_wrapped(names, cells, plan), True, False, plan))
        attempts.append((names, cells, False, False, None))
    for k, (heads, body, keep_words, wrap_heads, plan) in enumerate(attempts):
        console = Console(file=io.StringIO(), width=width, color_system=None,
                          force_terminal=False, highlight=False, emoji=False, markup=False)
        console.print(_rich_table(heads, body, wide, width if keep_words else 0, wrap_heads,
                                  plan), crop=False)
        text = console.file.getvalue()
        lines = [line.rstrip() for line in text.rstrip("\n").split("\n")]
        whole = plan is not None or "\u2026" not in text or k == len(attempts) - 1
        if wide or (max(len(line) for line in lines) <= width and whole):
            return "\n".join("  " + line for line in lines)
    return "\n\n".join("\n".join(f"  {n}: {v}" for n, v in zip(names, row)) for row in cells)


SEPARATED = re.compile(r"\s+|[^\s\-/]*[\-/]+|[^\s\-/]+")  # cells: snake_case stays whole
HEAD_SEPARATED = re.compile(r"\s+|[^\s\-_/]*[\-_/]+|[^\s\-_/]+")  # headers: also after _


def wrap_at_separators(text: str, width: int, header: bool = False) -> list[str]:
    """``text`` in lines of at most ``width`` characters, broken at spaces or after a
    hyphen or slash, never inside a word (a piece wider than the line, say a snake_case
    name, stays whole: the table ends it in an ellipsis).

    >>> wrap_at_separators("nvidia-gb200-compute-tray-cx8", 14)
    ['nvidia-gb200-', 'compute-tray-', 'cx8']
    >>> wrap_at_separators("PCIe worst over-subscription", 13)
    ['PCIe worst', 'over-', 'subscription']
    """
    out, line = [], ""
    for tok in (HEAD_SEPARATED if header else SEPARATED).findall(text):
        if tok.isspace():
            line += " " if line else ""
            continue
        if line.strip() and len(line) + len(tok) > width:
            out.append(line.rstrip())
            line = tok
        else:
            line += tok
    if line.strip():
        out.append(line.rstrip())
    return out or [""]


def _plan(names: list[str], cells: list[list[str]], width: int) -> list[int] | None:
    """Column widths that fit ``width`` (None: the table fits as it is). Number columns
    keep their numbers and header words whole; text columns share the rest in proportion
    to what they would need, each at least its longest unbreakable piece where it can."""
    def pieces(text: str, header: bool = False) -> int:
        sep = HEAD_SEPARATED if header else SEPARATED
        return max((len(p.strip()) for p in sep.findall(text)), default=1)

    n = len(names)
    lines = [[n_.split("\n") for n_ in [names[i], *(row[i] for row in cells)]] for i in range(n)]
    natural = [max(len(x) for ls in col for x in ls) for col in lines]
    gaps = 2 * n - 1  # a padding column before each, a divider between them
    if sum(natural) + gaps <= width:
        return None
    numeric = [all(_num(row[i]) or row[i] in BLANKS for row in cells) for i in range(n)]
    plan = [0] * n
    for i in range(n):
        if numeric[i]:
            plan[i] = min(natural[i], max([len(row[i]) for row in cells]
                                          + [min(pieces(names[i], True), 16)]))
    text = [i for i in range(n) if not numeric[i]]
    room = width - gaps - sum(plan)
    floor = {i: min(natural[i], max([pieces(row[i]) for row in cells]
                                    + [pieces(names[i], True)]))
             for i in text}
    if sum(floor.values()) > room:  # even the slugs do not fit whole: share the room
        floor = {i: max(4, room * floor[i] // max(sum(floor.values()), 1)) for i in text}
    spare = room - sum(floor.values())
    want = sum(natural[i] - floor[i] for i in text) or 1
    for i in text:
        plan[i] = min(natural[i], floor[i] + max(0, spare) * (natural[i] - floor[i]) // want)
    left = width - gaps - sum(plan)  # text at its natural width: number headers widen
    while left > 0 and any(numeric[i] and plan[i] < natural[i] for i in range(n)):
        for i in range(n):  # a character at a time, in turn
            if left > 0 and numeric[i] and plan[i] < natural[i]:
                plan[i] += 1
                left -= 1
    return plan


def _wrapped(names: list[str], cells: list[list[str]], plan: list[int]):
    """Headers and text cells wrapped at separators to the planned widths."""
    def wrap(text: str, w: int, header: bool = False) -> str:
        return "\n".join(wrap_at_separators(text, w, header))

    numeric = [all(_num(row[i]) or row[i] in BLANKS for row in cells) for i in range(len(names))]
    names = [wrap(name, w, True) for name, w in zip(names, plan)]
    cells = [[c if numeric[i] else wrap(c, plan[i]) for i, c in enumerate(row)] for row in cells]
    return names, cells


def _rich_table(names: list[str], cells: list[list[str]], wide: bool, width: int,
                wrap_heads: bool = False, plan: list[int] | None = None):
    """A rich Table; with ``width`` columns keep their words whole where they can; with a
    ``plan`` (:func:`_plan`) each column is exactly that wide (its text wrapped to it)."""
    from rich.box import Box
    from rich.table import Table

    t = Table(box=Box(ASCII_HEAD), show_edge=False, pad_edge=False, padding=(0, 0, 0, 1),
              header_style="", expand=False)
    for i, name in enumerate(names):
        numeric = all(_num(row[i]) or row[i] in BLANKS for row in cells)
        longest_word = max((len(w) for row in cells for w in row[i].split()), default=1)
        head_word = max((len(w) for w in name.split()), default=1)
        if not width or numeric:
            keep = None
        else:  # a text column keeps its longest word (a slug) whole, up to a third
            keep = min(max(longest_word, head_word), max(width // 3, 8))
        if wrap_heads and numeric:  # as narrow as its numbers or its longest header word
            cap = max([head_word] + [len(row[i]) for row in cells])
            name = "\n".join(textwrap.wrap(name, cap, break_long_words=False,
                                           break_on_hyphens=False))
        # text wraps at spaces; a word wider than its column ends in an ellipsis, never
        # folded mid-word (a slug, 'over-subscription')
        fixed = plan[i] if plan else None
        t.add_column(name, justify="right" if numeric else "left",
                     overflow="fold" if wide else "ellipsis", no_wrap=wide,
                     min_width=fixed or keep, max_width=fixed)
    for row in cells:
        t.add_row(*row)
    return t


def _num(text: str) -> bool:
    return text.replace(",", "").replace(".", "").replace("-", "").isdigit()


def metric_lines(m: dict[str, Any], keys: list[str], width: int | None = None) -> list[str]:
    """``  label  value  unit`` lines; capex carries its completeness. A unit text that
    would pass ``width`` columns wraps under the unit column."""
    rows = []
    for k in keys:
        value, unit = value_text(k, m[k]), shown_unit(k)
        if k == "capex_priced_usd" and m.get("capex_unpriced_sku_count") and m[k] is None:
            unit += f" ({_n(m['capex_unpriced_sku_count'], 'SKU')} unpriced)"
        elif k == "capex_priced_usd" and m.get("capex_unpriced_sku_count"):
            unit += f" (lower bound: {_n(m['capex_unpriced_sku_count'], 'SKU')} unpriced)"
        if k == "capex_priced_usd" and m.get("capex_scope"):
            unit += f", scope {m['capex_scope']}"
        if k == "it_power_kw" and m.get("power_unknown_parts_count"):
            unit += (f" (lower bound: {_n(m['power_unknown_parts_count'], 'part')} "
                     "with unpublished power)")
        rows.append((metric_label(k), value, unit))
    label_w = max(len(r[0]) for r in rows)
    lines = [f"  {a.ljust(label_w)}  {b:>12}  {c}".rstrip() for a, b, c in rows]
    indent = " " * (2 + label_w + 2 + 12 + 2)
    if width is None or width <= len(indent) + 20:
        return lines
    return [line if len(line) <= width else textwrap.fill(
        line, width, subsequent_indent=indent, break_long_words=False,
        break_on_hyphens=False) for line in lines]


def _n0(value: Any, missing: float = float("-inf")) -> float:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else missing


def shown_rows(name: str, rows: list[dict], max_rows: int | None) -> tuple[list[dict], str]:
    """The rows of table ``name`` the terminal prints, and what the title adds.

    Up to ``max_rows`` (``None`` or 0: all) rows print in the analysis's order; a longer
    table prints its ``max_rows`` most telling rows (``FIRST``: most GPUs lost, highest
    power, least headroom...) and says how many it holds. Nothing is computed: rows are
    only chosen and ordered.

    Examples
    --------
    >>> rows = [{"layout": f"l{i}", "it_kw_per_rack": float(i)} for i in range(30)]
    >>> top, note = shown_rows("power_by_rack", rows, 2)
    >>> [r["layout"] for r in top], note
    (['l29', 'l28'], '2 of 30 rows, highest IT kW first')
    """
    if not max_rows or len(rows) <= max_rows:
        return rows, ""
    key, descending, order = FIRST.get(name, (None, False, "first in the report's order"))
    top = sorted(rows, key=key, reverse=descending)[:max_rows] if key else rows[:max_rows]
    return top, f"{max_rows:,} of {len(rows):,} rows, {order}"


def render_summary(data: dict[str, Any], extra_metrics: list[str] | None = None, *,
                   wide: bool = False, width: int | None = None,
                   max_rows: int | None = DEFAULT_ROWS, full: bool = True) -> str:
    """Terminal summary of the JSON-contract dict, fitting ``width`` (default: terminal).

    The decision summary first (:mod:`infra.reports.decision`); ``full`` (the default
    here; ``infra design`` prints it with ``--full``) adds every key figure and table.
    Each table prints at most ``max_rows`` rows (``None`` or 0: all; see
    :func:`shown_rows`), and at most ``max_rows`` warnings print: a hall of a thousand
    distinct racks reads as a summary, and every row stays in the JSON and xlsx reports.
    ``render_summary(data)`` is ``render_view(summary_view(data), full=True)``.
    """
    return render_view(summary_view(data, extra_metrics, max_rows=max_rows), wide=wide,
                       width=width, full=full)


def summary_view(data: dict[str, Any], extra_metrics: list[str] | None = None, *,
                 max_rows: int | None = DEFAULT_ROWS) -> dict[str, Any]:
    """What the summary shows of ``data``: its metrics, and of each table the rows shown.

    A small dict (a few dozen rows whatever the design's size) that :func:`render_view`
    lays out. Rows are only chosen, never computed.
    """
    m, t = data["metrics"], data["tables"]
    keys = [k for k in HEADLINE + [k for k in (extra_metrics or []) if k not in HEADLINE]
            if k in m and not (k.startswith(FABRIC_METRICS) and not t.get("fabric"))]
    sections = []
    for name, title, cols in SECTIONS:
        if name not in t or (name in ("fabric", "power_envelopes", "power_supply") and not t[name]):
            continue
        if name == "blast_radius":
            title += f" ({_partition_mode(t)} NVLink partitions)"
        rows, cut = shown_rows(name, t[name], max_rows)
        sections.append((title + (f" [{cut}]" if cut else ""), cols, rows))
    notes = [a for a in t["assumptions"] if a["item"] != "note"]
    more = len(notes) - max_rows if max_rows and len(notes) > max_rows else 0
    from infra.reports.decision import decision_summary

    return {"name": data["design"]["name"], "source_file": data["design"]["source_file"],
            "decision": decision_summary(data),
            "metrics": {k: m[k] for k in keys}, "extra": {k: m.get(k) for k in EXTRA},
            "sections": sections, "notes": notes[:len(notes) - more], "more_notes": more,
            "max_rows": max_rows if max_rows and any(
                len(t.get(n) or []) > max_rows for n, _, _ in SECTIONS) else 0}


def render_view(view: dict[str, Any], *, wide: bool = False, width: int | None = None,
                full: bool = False) -> str:
    """Lay out a :func:`summary_view` for the terminal: the decision summary (one screen,
    at most 50 lines), and with ``full`` every key figure and table below it."""
    from infra.reports.decision import render_decision

    w = width or terminal_width()
    if not full:
        return render_decision(view["decision"], w, wide=wide) + "\n"
    m = {**view["extra"], **view["metrics"]}
    out = [render_decision(view["decision"], w, wide=wide, max_lines=None,
                           footer=False), "", "Key figures:"]
    out += metric_lines(m, list(view["metrics"]), None if wide else (width or terminal_width()))
    for title, cols, rows in view["sections"]:
        show = list(rows[0]) if wide and rows else [c for c in cols if not rows or c in rows[0]]
        out += ["", f"{title}:", table(rows, show, headers=True, width=width, wide=wide)]
    if view["notes"]:
        out += ["", "Assumptions and gaps:"]
        wrap = 10_000 if wide else (width or terminal_width())
        out += [textwrap.fill(f"{a['item']}: {fmt(a['value'])}", wrap, initial_indent="  - ",
                              subsequent_indent="    ") for a in view["notes"]]
        if view["more_notes"]:
            out.append(f"  ... and {view['more_notes']:,} more (every one in the json "
                       "report's assumptions)")
    if not wide:
        out += ["", "(key columns only: --wide shows every column)"]
    if view["max_rows"]:
        out += [f"(at most {view['max_rows']} rows a table: --rows 0 prints every row; every "
                "row is in the json and xlsx reports)"]
    return "\n".join(out) + "\n"


def print_summary(view: dict[str, Any], *, wide: bool = False, full: bool = False) -> None:
    """Print a :func:`summary_view` on standard output.

    A reader that went away (``| head``) ends the printing quietly.
    """
    try:
        sys.stdout.write(render_view(view, wide=wide, full=full) + "\n")  # as click.echo
        sys.stdout.flush()
    except BrokenPipeError:  # nothing left to show to: later writes (and the exit's
        import os  # flush) go nowhere, as Python's documentation advises

        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):  # not a real file: nothing to redirect
            pass


def _n(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _partition_mode(t: dict) -> str:
    return next((fmt(a["value"]) for a in t.get("assumptions", [])
                 if a["item"] == "NVLink partition mode"), "?")
