"""The decision summary: what a committee decides on, first in every report (issue 30).

One block, built once from the JSON-contract dict and laid out by every report
(terminal, markdown, HTML, the xlsx Summary): the findings first (design-rule errors,
then warnings, counted), then a handful of figures: GPUs, racks (compute + network),
peak and achievable PFLOPS, IT and facility MW, the highest per-rack kW and where its
heat goes, capex with its scope and bound, the worst single failure and the predicted
all-reduce bus bandwidth where the design has one. Nothing is computed here: figures are
chosen from the analysis (a kW figure is shown in MW, the highest per-rack row is
picked), never derived.

Examples
--------
>>> from infra.analysis.summary import analyze_file
>>> d = decision_summary(analyze_file("designs/dgx_h100_superpod.yaml").as_dict())
>>> d["counts"], [f["key"] for f in d["figures"]][:3]
({'errors': 0, 'warnings': 2}, ['gpus', 'racks', 'peak_dense_pflops_bf16'])
"""

from __future__ import annotations

from typing import Any

from infra.reports.labels import metric_label, shown_unit, value_text

FIGURES = ("gpus", "racks", "peak_dense_pflops_bf16", "achievable_pflops_bf16", "it_power_mw",
           "facility_power_mw", "max_it_kw_per_rack", "heaviest_rack_kg", "liquid_heat_kw",
           "air_heat_kw",
           "capex_priced_usd", "worst_single_failure_gpus",
           "allreduce_busbw_8gib_domain_gbyte_s", "allreduce_busbw_8gib_design_gbyte_s")
OPTIONAL = ("allreduce_busbw_8gib_domain_gbyte_s", "allreduce_busbw_8gib_design_gbyte_s")


def decision_summary(data: dict[str, Any]) -> dict[str, Any]:
    """The decision block of ``data`` (``DesignAnalysis.as_dict()``): a plain dict.

    ``findings``: ``(severity, text)`` pairs, errors (design rules broken) first, then
    warnings (the analysis' ``warning`` assumptions); ``counts``: how many of each;
    ``figures``: ``{key, label, value, unit, note}`` dicts in :data:`FIGURES` order (a
    value of None is unknown; the all-reduce figures only where the design has them).
    """
    m, t = data["metrics"], data["tables"]
    errors = [("error", _finding_text(f)) for f in data.get("findings") or ()]
    warnings = [("warning", str(a.get("value"))) for a in t.get("assumptions", ())
                if a.get("item") == "warning"]
    figures = []
    for key in FIGURES:
        fig = _figure(key, m, t)
        if fig is not None:
            figures.append(fig)
    return {"name": data["design"]["name"], "source_file": data["design"]["source_file"],
            "findings": errors + warnings,
            "counts": {"errors": len(errors), "warnings": len(warnings)},
            "figures": figures}


def findings_line(counts: dict[str, int]) -> str:
    """The findings counted, errors (design rules broken: exit status 1) first.

    >>> findings_line({"errors": 1, "warnings": 0})
    'FINDINGS: 1 design rule broken (exit status 1); 0 warnings'
    >>> findings_line({"errors": 0, "warnings": 2})
    'Findings: no design rule broken; 2 warnings'
    """
    e, w = counts["errors"], counts["warnings"]
    warn = f"{w} warning{'' if w == 1 else 's'}"
    if e:
        return f"FINDINGS: {e} design rule{'' if e == 1 else 's'} broken (exit status 1); {warn}"
    return f"Findings: no design rule broken; {warn}"


def _finding_text(f: dict) -> str:
    return str(f.get("text") or f.get("message") or f)


def _fig(key: str, value: Any, note: str = "", label: str | None = None,
         unit: str | None = None) -> dict[str, Any]:
    return {"key": key, "label": label or metric_label(key), "value": value,
            "unit": shown_unit(key) if unit is None else unit, "note": note}


def _figure(key: str, m: dict, t: dict) -> dict[str, Any] | None:
    if key == "gpus":
        gpus = sorted({r["slug"] for r in t.get("bill_of_materials", ()) if r.get("kind") == "gpu"})
        return _fig(key, m.get("gpus"), ", ".join(gpus), unit="GPUs")  # racks: next line
    if key == "racks":
        return _fig(key, m.get(key), racks_note(m), unit="racks")
    if key == "peak_dense_pflops_bf16":
        others = [f"{p.upper()} {value_text(f'peak_dense_pflops_{p}', m.get(f'peak_dense_pflops_{p}'))}"
                  for p in ("fp8", "fp4") if f"peak_dense_pflops_{p}" in m]
        return _fig(key, m.get(key), ", ".join(others))
    if key == "achievable_pflops_bf16":
        missing = m.get("gpus_without_mamf_count") or 0
        note = (f"leaves out {missing:,} GPUs without a published MAMF" if missing and m.get(key)
                else "unknown: no published MAMF" if missing else "at the measured MAMF")
        if _assumed(t, "estimated MAMF"):
            note = "at an estimated MAMF (no published measurement)"
        return _fig(key, m.get(key), note)
    if key == "it_power_mw":
        note = f"typical {value_text('it_power_mw', _mw(m.get('it_power_typical_kw')))} MW"
        if m.get("power_unknown_parts_count"):
            n = m["power_unknown_parts_count"]
            note = f"lower bound: {n:,} part{'' if n == 1 else 's'} with unpublished power; " + note
        return _fig(key, _mw(m.get("it_power_kw")), note)
    if key == "facility_power_mw":
        pue = next((a for a in t.get("assumptions", ()) if a.get("item") == "PUE"), None)
        note = f"PUE {value_text('pue', pue['value'])} (assumed)" if pue else ""
        return _fig(key, _mw(m.get("facility_power_kw")), note)
    if key == "max_it_kw_per_rack":
        return _rack_figure(t.get("power_by_rack") or ())
    if key in ("liquid_heat_kw", "air_heat_kw"):
        return _heat_figure(key, m, t)
    if key == "heaviest_rack_kg":
        return _weight_figure(m, t)
    if key == "capex_priced_usd":
        n = m.get("capex_unpriced_sku_count") or 0
        bound = ("" if not n else f"unknown: {n:,} SKU{'' if n == 1 else 's'} unpriced"
                 if m.get(key) is None else f"lower bound: {n:,} SKU{'' if n == 1 else 's'} unpriced")
        scope = f"scope {m['capex_scope']}" if m.get("capex_scope") else ""
        return _fig(key, m.get(key), "; ".join(x for x in (bound, scope) if x))
    if key == "worst_single_failure_gpus":
        worst = m.get(key)
        names = [r["component"] for r in t.get("blast_radius", ())
                 if worst and r.get("gpus_lost") == worst]
        note = names[0] + (f" (and {len(names) - 1} more)" if len(names) > 1 else "") if names else ""
        return _fig(key, worst, note, label="Worst single failure", unit="GPUs lost")
    if key in OPTIONAL:
        return _fig(key, m[key]) if m.get(key) is not None else None
    return None


def racks_note(m: dict) -> str:
    """How the rack count splits: compute racks, management or storage racks (the
    design's racks without a compute tray) and the fabric's network racks.

    >>> racks_note({"racks": 37, "compute_racks": 32, "other_racks": 0, "network_racks": 5})
    '32 compute + 5 network'
    >>> racks_note({"racks": 13, "compute_racks": 8, "other_racks": 1, "network_racks": 4})
    '8 compute + 1 management/storage + 4 network'
    >>> racks_note({"racks": 1, "compute_racks": 1, "other_racks": 0, "network_racks": 0})
    '1 compute, no network rack'
    """
    c, o, n = m.get("compute_racks"), m.get("other_racks") or 0, m.get("network_racks")
    if not isinstance(c, int) or not isinstance(n, int):
        return ""
    parts = [f"{c:,} compute"] + ([f"{o:,} management/storage"] if o else [])
    return " + ".join(parts + [f"{n:,} network"]) if n else " + ".join(parts) + ", no network rack"


def _rack_figure(rows) -> dict[str, Any]:
    """The layout with the highest IT kW per rack, and how its heat splits."""
    known = [r for r in rows if isinstance(r.get("it_kw_per_rack"), (int, float))]
    if not known:
        return _fig("max_it_kw_per_rack", None, label="Highest IT per rack", unit="kW")
    r = max(known, key=lambda r: r["it_kw_per_rack"])
    racks = r.get("racks")
    note = f"layout {r['layout']}" + (f" x {racks:,}" if isinstance(racks, int) else "")
    split = [f"{w} {value_text('kw', r.get(k))} kW" for w, k in
             (("liquid", "liquid_kw_per_rack"), ("air", "air_kw_per_rack"))
             if isinstance(r.get(k), (int, float))]
    if split:
        note += ": " + " + ".join(split)
    return _fig("max_it_kw_per_rack", r["it_kw_per_rack"], note, label="Highest IT per rack",
                unit="kW")


def _weight_figure(m: dict, t: dict) -> dict[str, Any] | None:
    """The heaviest rack: its planning weight and basis, or, where some part's weight is
    unpublished, unknown with the parts' sum as a lower bound."""
    rows = t.get("rack_weight") or ()
    if not rows:
        return None
    key = "weight_kg_per_rack"
    bound = m.get("heaviest_rack_lower_bound_kg")
    if bound is None:
        return _fig("heaviest_rack_kg", None, "no weight published for these racks' parts",
                    unit="kg")
    unknown = [r["layout"] for r in rows if r.get(key) is None]
    if unknown:  # any of them may be the heaviest: a bound, never a named heaviest rack
        n = len(unknown)
        names = ", ".join(unknown[:2]) + (f" and {n - 2} more" if n > 2 else "")
        return _fig("heaviest_rack_kg", None,
                    f"at least {value_text('kg', bound)} kg; {n} rack layout"
                    f"{'' if n == 1 else 's'} without every part's weight ({names})", unit="kg")
    r = max(rows, key=lambda r: r[key])
    if r.get("unpublished_weight_parts"):
        tag = f" [{r['published_loaded_kg_tag']}]" if r.get("published_loaded_kg_tag") else ""
        how = f"the rack's published loaded weight{tag}, as shipped"
    else:
        how = "its parts' published weights"
    return _fig("heaviest_rack_kg", m.get("heaviest_rack_kg"), f"layout {r['layout']}: {how}",
                unit="kg")


def _heat_figure(key: str, m: dict, t: dict) -> dict[str, Any]:
    """Heat to liquid or air, with the cooling units that remove it (or where it goes)."""
    medium = "liquid" if key.startswith("liquid") else "air"
    units = [r for r in t.get("cooling", ()) if r.get("removes") == medium]
    parts = []
    for r in units:
        n = r.get("total_units")
        parts.append(f"{n:,} x {r['unit']}" if isinstance(n, int) else f"{r['unit']} (count unknown)")
    heat = m.get(key)
    if parts:
        note = "removed by " + ", ".join(parts)
    elif medium == "air" and heat:
        note = "left to the hall's air handling (no unit sized)"
    elif heat:
        note = "no cooling unit in the design"
    else:
        note = ""
    return _fig(key, heat, note, label=f"Heat to {medium}")


def _assumed(t: dict, words: str) -> bool:
    return any(words in str(a.get("item")) for a in t.get("assumptions", ()))


def _mw(kw: Any) -> float | None:
    """kW as MW (a unit, not a figure: 1,374.05 kW is 1.37405 MW)."""
    return kw / 1000 if isinstance(kw, (int, float)) and not isinstance(kw, bool) else None


SCREEN_LINES = 50  # one 80 x 50 screen
FINDING_LINES = 4  # lines a finding may take in the summary (--full prints it whole)
FOOTER = ("(decision summary: --full prints every table; --report xlsx, html or md "
          "writes the reports)")


def fit(text: str, width: int, indent: str = "  ", next_indent: str = "    ") -> list[str]:
    """``text`` wrapped to ``width`` at spaces only, never inside a word: a word wider
    than the line (a long slug) ends in ``...``.

    >>> fit("a nvidia-connectx-7-integrated-pcie-switch b", 20)
    ['  a', '    nvidia-connec...', '    b']
    """
    import textwrap

    lines = textwrap.wrap(text, max(width, len(next_indent) + 8), initial_indent=indent,
                          subsequent_indent=next_indent, break_long_words=False,
                          break_on_hyphens=False) or [indent.rstrip()]
    return [ln if len(ln) <= width else ln[:max(width - 3, 1)] + "..." for ln in lines]


def render_decision(block: dict[str, Any], width: int = 80, *, wide: bool = False,
                    max_lines: int | None = SCREEN_LINES, footer: bool = True) -> str:
    """The decision block as terminal text: at most ``max_lines`` lines ``width`` wide.

    Findings first (errors, then warnings); each takes at most :data:`FINDING_LINES`
    lines and those that do not fit the screen are counted (``--full`` prints them all).
    ``wide``: no width or line limit.
    """
    width = 10_000 if wide else width
    head = [block["name"], f"  design file: {block['source_file']}", ""]
    figs = _figure_lines(block["figures"], width)
    tail = ["", *fit(FOOTER, width, "", "")] if footer else []
    room = None if wide or not max_lines else max_lines - len(head) - len(figs) - len(tail) - 3
    out = head + [findings_line(block["counts"])]
    shown = 0
    for severity, text in block["findings"]:
        lines = fit(f"{severity}: {text}", width, "  - ", "    ")
        if not wide and max_lines and len(lines) > FINDING_LINES:
            lines = lines[:FINDING_LINES]
            lines[-1] = lines[-1][:max(width - 3, 1)].rstrip() + "..."
        left = len(block["findings"]) - shown
        if room is not None and len(lines) + (1 if left > 1 else 0) > room:
            break
        out += lines
        shown += 1
        room = None if room is None else room - len(lines)
    if shown < len(block["findings"]):
        out += fit(f"... {len(block['findings']) - shown} more (--full lists every one)", width)
    return "\n".join(out + ["", "Decision figures:"] + figs + tail)


def _figure_lines(figures: list[dict], width: int) -> list[str]:
    """``  label  value  unit  note`` lines; unit and note wrap under the unit column."""
    rows = [(f["label"], value_text(f["key"], f["value"]), f["unit"], f["note"])
            for f in figures]
    lw = max(len(r[0]) for r in rows)
    vw = max(len(r[1]) for r in rows)
    out = []
    for label, value, unit, note in rows:
        first = f"  {label.ljust(lw)}  {value.rjust(vw)}  "
        tail = "  ".join(x for x in (unit, note) if x)
        if len(first) + 20 > width:  # too narrow for columns: label, then the rest below
            out += fit(f"{label}: {value} {tail}", width, "  ", "    ")
            continue
        out += fit(first + tail, width, "", " " * len(first))
    return out
