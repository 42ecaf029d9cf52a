"""``infra train --report xlsx``: a workbook whose run figures are live formulas on
editable inputs (tokens, tokens per step, step time, goodput, GPUs, power, PUE, $ per
GPU-hour, an MFU override), recalculated by any spreadsheet after an edit; the step
breakdown, memory and assumptions beside them as values."""

from __future__ import annotations

from pathlib import Path

INPUTS = [  # (row label, key of TrainingRun.as_dict(), number format)
    ("Tokens to train", "tokens", "#,##0"),
    ("Tokens per step", "tokens_per_step", "#,##0"),
    ("Step time, modelled (s)", "step_time_s", "0.000"),
    ("Goodput (failures)", "goodput_fraction", "0.000"),
    ("GPUs", "gpus", "#,##0"),
    ("IT power of the job, typical (kW)", "it_kw", "#,##0.0"),
    ("PUE", "pue", "0.00"),
    ("USD per GPU-hour (TCO; blank: unpriced)", "usd_per_gpu_hour", "0.000"),
    ("Model FLOPs per GPU per step", "model_flops_per_gpu_per_step", "0.000E+00"),
    ("BF16 dense peak per GPU (TFLOPS)", "peak_bf16_tflops_per_gpu", "#,##0"),
    ("MFU override (blank: the model's step time)", None, "0.000"),
]
# (label, formula on the Inputs sheet's B2.. cells and this sheet's B column; the engine in
# the tests reads no exponent literals, so 10^12 is written out)
RUN = [
    ("Step time (s)", "=IF(Inputs!B12=\"\",Inputs!B4,"
                      "Inputs!B10/(Inputs!B12*Inputs!B11*1000000000000))", "0.000"),
    ("Tokens per second", "=Inputs!B3/B2", "#,##0"),
    ("Days", "=Inputs!B2/(B3*Inputs!B5)/86400", "#,##0.00"),
    ("GPU-hours", "=Inputs!B6*B4*24", "#,##0"),
    ("IT energy (MWh)", "=Inputs!B7*B4*24/1000", "#,##0.0"),
    ("Facility energy (MWh)", "=B6*Inputs!B8", "#,##0.0"),
    ("USD per run", "=IF(Inputs!B9=\"\",\"\",B5*Inputs!B9)", "#,##0"),
    ("USD per million tokens", "=IF(B8=\"\",\"\",B8/(Inputs!B2/1000000))", "0.000"),
    ("Model TFLOPS per GPU", "=Inputs!B10/B2/1000000000000", "#,##0.0"),
    ("MFU (BF16 dense peak)", "=B10/Inputs!B11", "0.000"),
]


def train_workbook(d: dict):
    """The workbook of one training run (``TrainingRun.as_dict()``)."""
    from openpyxl import Workbook
    from openpyxl.styles import Font

    from infra.reports.cellsafe import formula

    wb = Workbook()
    ws = wb.active
    ws.title = "Inputs"
    ws.append(["Input (edit the blue cells)", "Value"])
    for label, key, fmt in INPUTS:
        ws.append([label, d.get(key) if key else None])
        c = ws.cell(row=ws.max_row, column=2)
        c.number_format, c.font = fmt, Font(color="1F4E79", bold=True)
    run = wb.create_sheet("Run")
    run.append(["Figure (formulas on Inputs)", "Value"])
    for i, (label, text, fmt) in enumerate(RUN, start=2):
        run.cell(row=i, column=1, value=label)
        formula(run, f"B{i}", text).number_format = fmt
    info = wb.create_sheet("Step")
    info.append(["Part of a step", "Seconds", "Share"])
    for k, v in d["breakdown"].items():
        info.append([k.removesuffix("_s"), v, v / d["step_time_s"] if d["step_time_s"] else None])
    info.append([])
    info.append(["Memory per GPU", "GB"])
    for k, v in d["memory"].items():
        info.append([k.replace("_", " "), v])
    info.append([])
    info.append(["Parallelism", d["parallelism"]])
    info.append(["FLOPs per token", d["flops_per_token"]])
    info.append(["of which attention", d["attention_flops_per_token"]])
    notes = wb.create_sheet("Assumptions")
    notes.append(["Item", "Value", "Source"])
    for a in d["assumptions"]:
        notes.append([a["item"], str(a["value"]), a["source"]])
    for sheet in wb.worksheets:
        sheet.column_dimensions["A"].width = 46
        sheet.column_dimensions["B"].width = 22
        for c in sheet[1]:
            c.font = Font(bold=True)
    return wb


def write_train_xlsx(d: dict, path: Path | str) -> Path:
    from infra.reports.atomic import save_workbook, write_atomic

    wb = train_workbook(d)
    return write_atomic(Path(path), lambda p: save_workbook(wb, p))


__all__ = ["INPUTS", "RUN", "train_workbook", "write_train_xlsx"]
