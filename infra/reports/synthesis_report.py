"""``infra synthesize`` output: the front table, the rejected families, the files."""

from __future__ import annotations

import json
from pathlib import Path

from infra.reports.tabular import to_csv
from infra.reports.terminal import table


def render_synthesis(result, fmt: str, top: int | None = None) -> str:
    from infra.synthesis.output import front_table

    rows = front_table(result, top)
    d = result.as_dict()
    if fmt == "json":
        return json.dumps({**d, "front": rows}, indent=2, default=str) + "\n"
    if fmt == "csv":
        return to_csv(rows)
    b = d["budget"]
    head = (f"Budget {b['power_mw']:g} MW" + (f", ${b['capex_usd']:,.0f}" if b["capex_usd"] else "")
            + (f", {b['train_model']} on {b['tokens']:.3g} tokens" if b["train_model"] else ""))
    view = [{k: r[k] for k in ("design", "gpus", "facility_power_mw", "capex_usd", "train_days",
                               "train_facility_energy_mwh") if k in r} for r in rows]
    out = [head, f"  {d['evaluated']} candidates analysed, {len(d['front'])} on the front "
                 f"({', '.join(f'{k} {v}' for k, v in result.objectives.items())})", table(view)]
    if result.rejected:
        out.append("\nRejected families:")
        out.extend(f"  - {r['family']} ({r['gpu']}): {r['reason']}" for r in result.rejected)
    return "\n".join(out) + "\n"


def write_synthesis(result, outdir: Path | str, top: int | None = None) -> list[Path]:
    """Each front design as ``<family>-x<n>.yaml``, and synthesis.json / .csv."""
    from infra.reports.atomic import write_text_atomic
    from infra.synthesis.output import design_name, design_text, front_table

    out = Path(outdir)
    rows = {design_name(r): r for r in front_table(result, top)}
    paths = []
    for i in result.front:
        name = design_name(result.rows[i])
        if name in rows:
            paths.append(write_text_atomic(out / f"{name}.yaml", design_text(result, i)))
    paths.append(write_text_atomic(out / "synthesis.json", render_synthesis(result, "json", top)))
    paths.append(write_text_atomic(out / "synthesis.csv", to_csv(list(rows.values()))))
    return paths


__all__ = ["render_synthesis", "write_synthesis"]
