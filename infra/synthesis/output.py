"""What synthesis hands on: each front design as design data with a header that says
which budget produced it (YAML text; the CLI writes it), and the front's table rows."""

from __future__ import annotations

from typing import Any

import yaml

FRONT_COLUMNS = ("family", "gpu", "blocks", "fabric_variant", "leaf_oversubscription", "gpus", "cooling", "fabric_tiers", "leaf_switches",
                 "spine_switches", "core_switches", "it_power_mw", "facility_power_mw",
                 "capex_usd", "capex_is_lower_bound", "train_parallelism", "train_mfu_fraction",
                 "train_days", "train_facility_energy_mwh", "train_usd_per_run")


def design_name(row: dict) -> str:
    """File stem of a front design: ``<family>-x<blocks>``, ``-os<ratio>`` where the first
    fabric tier is over-subscribed, ``-rail`` where the fabric is rail-only."""
    o = row.get("leaf_oversubscription") or 1
    return (f"{row['family']}-x{row['blocks']}" + (f"-os{o:g}" if o != 1 else "")
            + ("-rail" if row.get("fabric_variant") == "rail_only" else ""))


def design_text(result, index: int) -> str:
    """One front design as YAML: the family's design with its block count, and a comment
    header with the budget, the objectives and the figures it was chosen on."""
    row = result.rows[index]
    data = dict(result.designs[index])
    data["name"] = f"{data.get('name', row['family'])} x {row['blocks']} (synthesized)"
    b = result.budget
    lines = [f"# Synthesized by `infra synthesize` from designs/{row['family']}.yaml, its "
             f"block built {row['blocks']} times"
             + (f", first fabric tier {row['leaf_oversubscription']:g}:1 over-subscribed"
                if (row.get("leaf_oversubscription") or 1) != 1 else "")
             + (", its fabric rail-only (one switch a rail, no spine)"
                if row.get("fabric_variant") == "rail_only" else "") + ".",
             f"# Budget: {b.power_mw:g} MW facility"
             + (f", ${b.capex_usd:,.0f} capex" if b.capex_usd is not None else "")
             + (f", at least {b.gpus:,} GPUs" if b.gpus else "")
             + (f"; train {b.train_model} on {b.tokens:.3g} tokens" if b.train_model else "")
             + (f" in at most {b.days:g} days" if b.days else "") + ".",
             "# Objectives: " + ", ".join(f"{k} {v}" for k, v in result.objectives.items()) + ".",
             "# Figures at synthesis: " + ", ".join(
                 f"{k} {row[k]}" for k in FRONT_COLUMNS[5:] if row.get(k) is not None) + "."]
    return "\n".join(lines) + "\n" + yaml.safe_dump(data, sort_keys=False, allow_unicode=False)


def front_table(result, top: int | None = None) -> list[dict[str, Any]]:
    """The front's rows (``top``: the first K by the first objective), fixed columns."""
    rows = result.front_rows()
    if result.objectives:
        key, d = next(iter(result.objectives.items()))
        rows = sorted(rows, key=lambda r: (r.get(key) is None, (r.get(key) or 0) * (1 if d == "min" else -1)))
    rows = rows[:top] if top else rows
    return [{"design": design_name(r), **{c: r.get(c) for c in FRONT_COLUMNS}} for r in rows]


__all__ = ["FRONT_COLUMNS", "design_name", "design_text", "front_table"]
