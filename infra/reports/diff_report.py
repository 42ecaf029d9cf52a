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
    out += [f"note: {n}" for n in data["notes"]]
    return "\n".join(out) + "\n"


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
    if data["notes"]:
        out += [""] + [f"- {n}" for n in data["notes"]]
    return "\n".join(out) + "\n"


def write_diff(data: dict[str, Any], path: Path, fmt: str) -> Path:
    """Write ``data`` as ``json``, ``md``, ``csv`` or ``xlsx`` to ``path`` atomically."""
    if fmt == "xlsx":
        return write_atomic(Path(path), lambda p: save_workbook(build_workbook(data), p))
    return write_text_atomic(Path(path), render(data, fmt))


def build_workbook(data: dict[str, Any]):
    """A ``Diff`` sheet (one row per finding) and a ``Coverage`` sheet."""
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
    return wb
