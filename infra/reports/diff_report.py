"""Formats an ``infra diff`` result (:meth:`infra.ingest.findings.DiffResult.as_dict`):
terminal text, CSV, markdown and an xlsx sheet. Nothing is computed here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from infra.reports.atomic import save_workbook, write_atomic, write_text_atomic
from infra.reports.json_report import to_json
from infra.reports.tabular import to_csv

COLUMNS = ["severity", "check", "rack", "u", "node", "gpu", "port", "expected", "found", "cost",
           "source"]
COLLECTIVE_COLUMNS = ["file", "line", "op", "gpus", "nodes", "size_bytes", "measured_busbw_gbyte_s",
                      "busbw_out_of_place", "busbw_in_place", "predicted_busbw_gbyte_s", "ratio",
                      "status", "algorithm", "bottleneck", "binds", "note"]


def where(f: dict[str, Any]) -> str:
    """``nvl720 U35 r01-t08 sc0.gpu1 (module 2) leaf ... port 12``."""
    parts = [f["rack"], f"U{f['u']}" if f.get("u") else None, f["node"], f["gpu"], f["port"]]
    return " ".join(str(p) for p in parts if p) or "-"


def headline(data: dict[str, Any]) -> str:
    s = data["summary"]
    return (f"{data['design']} vs {data['inventory']}\n"
            f"inspected {s['inspected_nodes']} of {s['design_nodes']} design nodes, "
            f"{s['gpus_seen']} GPUs, {s['fabric_links_seen']} fabric links: "
            f"{s['errors']} error(s), {s['warnings']} warning(s), {s['info']} info")


def render_text(data: dict[str, Any]) -> str:
    out = [headline(data), ""]
    for f in data["findings"]:
        out.append(f"{f['severity'].upper():7}  {f['check']:20}  {where(f)}")
        out.append(f"{'':9}expected {f['expected']}; found {f['found']}")
        out.append(f"{'':9}cost: {f['cost']}")
    if not data["findings"]:
        out.append("no finding: the inspected nodes match the design")
    if data["switch_map"]:
        out += ["", "switches identified by their cables:"]
        out += [f"  0x{s['guid']}  \"{s['description']}\" = {s['design_leaf']}"
                for s in data["switch_map"]]
    if data["unknown_hosts"]:
        out += ["", "hosts not in the design: " + ", ".join(data["unknown_hosts"])]
    if data.get("collectives"):
        out += ["", f"nccl-tests: measured vs predicted busbw ({collective_rule()})"]
        out += collective_text(data["collectives"])
    out += [f"note: {n}" for n in data["notes"]]
    return "\n".join(out) + "\n"


def collective_rule() -> str:
    from infra.ingest.diff_collectives import JUDGE_MIN_BYTES, SLOW_BELOW
    from infra.ingest.nccl_tests import format_bytes

    return (f"rows of {format_bytes(JUDGE_MIN_BYTES)} and more are judged; slow: more than "
            f"{SLOW_BELOW * 100:.0f} % below the prediction")


def collective_groups(checks: list[dict[str, Any]]) -> dict[tuple, list[dict[str, Any]]]:
    """Rows by (log file, op, GPUs), in log order."""
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for c in checks:
        groups.setdefault((c["file"], c["op"], c["gpus"]), []).append(c)
    return groups


def collective_rows(checks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One display row per measured nccl-tests row of one run (text and markdown)."""
    from infra.ingest.nccl_tests import format_bytes

    rows = []
    for c in checks:
        pred = c["predicted_busbw_gbyte_s"]
        rows.append({"size": format_bytes(c["size_bytes"]),
                     "measured GB/s": round(c["measured_busbw_gbyte_s"], 2),
                     "predicted GB/s": round(pred, 1) if pred is not None else None,
                     "ratio": f"{c['ratio']:.3f}" if c["ratio"] is not None else None,
                     "status": c["status"], "predicted": c["algorithm"],
                     "bound by": c["bottleneck"]})
    return rows


def _run_title(key: tuple, rows: list[dict[str, Any]]) -> str:
    file, op, gpus = key
    title = f"{Path(file).name}: {op} on {gpus} GPUs"
    if rows[0]["status"] == "not comparable":
        title += f", not comparable: {rows[0]['note']}"
    return title


def collective_text(checks: list[dict[str, Any]]) -> list[str]:
    from infra.reports.terminal import table

    out = []
    for key, rows in collective_groups(checks).items():
        out += ["", "  " + _run_title(key, rows)]
        if rows[0]["status"] != "not comparable":
            out.append(table(collective_rows(rows)))
        else:
            out.append("  sizes " + ", ".join(r["size"] for r in collective_rows(rows)))
    return out


def render(data: dict[str, Any], fmt: str) -> str:
    """``table`` (text), ``json``, ``csv`` or ``md``."""
    if fmt == "json":
        return to_json(data)
    if fmt == "csv":
        return to_csv([{c: f.get(c) for c in COLUMNS} for f in data["findings"]]) or \
            ",".join(COLUMNS) + "\n"
    if fmt == "md":
        return to_markdown(data)
    return render_text(data)


def to_markdown(data: dict[str, Any]) -> str:
    out = [f"# As built vs as designed: {data['design']}", "", headline(data).split("\n", 1)[1],
           "", f"Design `{data['design_file']}`, inventory `{data['inventory']}`, host names "
           f"`{data['host_pattern']}`.", ""]
    if data["findings"]:
        out += ["| severity | check | where | expected | found | cost |",
                "|---|---|---|---|---|---|"]
        for f in data["findings"]:
            cells = [f["severity"], f["check"], where(f), f["expected"], f["found"], f["cost"]]
            out.append("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |")
    else:
        out.append("No finding: the inspected nodes match the design.")
    if data["switch_map"]:
        out += ["", "## Switches identified by their cables", "", "| GUID | description | design leaf |",
                "|---|---|---|"]
        out += [f"| 0x{s['guid']} | {s['description']} | {s['design_leaf']} |" for s in data["switch_map"]]
    if data.get("collectives"):
        from infra.reports.markdown import md_table

        out += ["", "## nccl-tests: measured vs predicted busbw", "", f"Rule: {collective_rule()}."]
        for key, rows in collective_groups(data["collectives"]).items():
            out += ["", f"**{_run_title(key, rows)}**", "",
                    md_table(collective_rows(rows), headers=False).rstrip("\n")]
    if data["notes"]:
        out += [""] + [f"- {n}" for n in data["notes"]]
    return "\n".join(out) + "\n"


def write_diff(data: dict[str, Any], path: Path, fmt: str) -> Path:
    """Write ``data`` as ``json``, ``md``, ``csv`` or ``xlsx`` to ``path`` atomically."""
    if fmt == "xlsx":
        return write_atomic(Path(path), lambda p: save_workbook(build_workbook(data), p))
    return write_text_atomic(Path(path), render(data, fmt))


def build_workbook(data: dict[str, Any]):
    """A ``Diff`` sheet (one row per finding), a ``Coverage`` sheet and, with nccl-tests
    logs, a ``Collectives`` sheet (measured vs predicted rows)."""
    from openpyxl import Workbook
    from openpyxl.styles import Font

    wb = Workbook()
    ws = wb.active
    ws.title = "Diff"
    ws.append(COLUMNS)
    for f in data["findings"]:
        ws.append([f.get(c) for c in COLUMNS])
    for cell in ws[1]:
        cell.font = Font(bold=True)
    ws.freeze_panes = "A2"
    ws.auto_filter.ref = ws.dimensions
    for col, width in zip("ABCDEFGHIJK", (9, 20, 12, 5, 10, 20, 40, 40, 40, 70, 40)):
        ws.column_dimensions[col].width = width
    cov = wb.create_sheet("Coverage")
    cov.append(["figure", "value"])
    for k, v in data["summary"].items():
        cov.append([k, v])
    cov.append(["design", data["design"]])
    cov.append(["inventory", data["inventory"]])
    cov.append(["host_pattern", data["host_pattern"]])
    for s in data["switch_map"]:
        cov.append([f"switch 0x{s['guid']} ({s['description']})", s["design_leaf"]])
    if data.get("collectives"):
        ws = wb.create_sheet("Collectives")
        ws.append(COLLECTIVE_COLUMNS)
        for c in data["collectives"]:
            ws.append([c.get(k) for k in COLLECTIVE_COLUMNS])
        for cell in ws[1]:
            cell.font = Font(bold=True)
        ws.freeze_panes = "A2"
    from infra.reports.xlsx_print import print_setup

    print_setup(wb, f"infra diff: {data['design']}")  # landscape A4, one page wide
    return wb
