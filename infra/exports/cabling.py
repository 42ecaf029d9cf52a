"""Cabling (point-to-point) sheets for installers: CSV and xlsx, UFM column order first.

The first eight columns are those of NVIDIA's UFM Cable Validation Tool,
``Rack | U | Name | HCA/Port | Rack | U | Name | Port`` (A end, then B end); the rest
(cable ID, split ports, media and part number per end, cable, length, reach) follow.
Files: ``cabling/<fabric>.csv`` per fabric, ``cabling/network-racks.csv`` (where each
switch sits, with power) and ``cabling/<design>.xlsx`` with one sheet of each. Designs
above the plan limit get the per-link-type summary instead. The xlsx is written with
fixed timestamps so reruns are byte-identical.

Examples
--------
>>> from infra.models.resolve import load_design
>>> ex = cabling_export(load_design("designs/dgx_h100_su.yaml"))
>>> [f.path for f in ex.files]
['cabling/compute.csv', 'cabling/network-racks.csv', 'cabling/dgx_h100_su.xlsx']
>>> ex.files[0].text.splitlines()[0].split(",")[:9]
['Rack', 'U', 'Name', 'HCA/Port', 'Rack', 'U', 'Name', 'Port', 'Cable ID']
"""

from __future__ import annotations

import csv
import io
import re
import zipfile

from infra.analysis.layout.cabling import UFM_COLUMNS, UFM_HEADER, cabling_plan
from infra.analysis.network.fabric import design_fabrics
from infra.analysis.layout.identity import DEFAULT_HOST_PATTERN
from infra.analysis.layout.placement import Geometry, network_placement
from infra.exports.common import Export, ExportError, ExportFile
from infra.models.resolve import ResolvedDesign

EXTRA = (("cable_id", "Cable ID"), ("fabric", "Fabric"), ("tier", "Tier"),
         ("a_split", "A split"), ("a_media", "A media"), ("a_part", "A part"),
         ("b_split", "B split"), ("b_media", "B media"), ("b_part", "B part"),
         ("cable", "Cable"), ("length_m", "Length (m)"), ("reach_m", "Reach (m)"),
         ("reach_ok", "Reach OK"))
RACK_COLUMNS = (("rack", "Rack"), ("row", "Row"), ("slot", "Slot"), ("u", "U"),
                ("switch", "Switch"), ("part", "Part"), ("role", "Role"), ("fabric", "Fabric"),
                ("power_w", "Power (W)"), ("unknown_power", "Power not published"))
FIXED_TIME = (2000, 1, 1, 0, 0, 0)


def cabling_export(rd: ResolvedDesign, pattern: str = DEFAULT_HOST_PATTERN,
                   geometry: Geometry | None = None) -> Export:
    """Cabling sheets of every fabric of ``rd``; ExportError when it has none.

    ``geometry`` overrides the stated floor geometry (rack width, row pitch, overhead
    run, slack, rounding) used for cable lengths.
    """
    if pattern != DEFAULT_HOST_PATTERN:
        raise ExportError("the cabling plan names nodes with the default host-name pattern",
                          hint="drop --hostnames for --to cabling")
    fabrics = design_fabrics(rd)
    if not fabrics:
        raise ExportError(f"{rd.file}: design {rd.name!r} has no fabric, so nothing to cable",
                          hint="add a 'fabrics:' section")
    sheets: list[tuple[str, list[str], list[list]]] = []
    warnings = []
    p = network_placement(rd, geometry)
    for f in fabrics:
        rows = cabling_plan(rd, f, placement=p)
        if rows and "note" in rows[0]:
            keys = list(rows[0])
            sheets.append((f.name, keys, [[r.get(k) for k in keys] for r in rows]))
            warnings.append(rows[0]["note"])
            continue
        header = list(UFM_HEADER) + [h for _, h in EXTRA]
        keys = list(UFM_COLUMNS) + [k for k, _ in EXTRA]
        sheets.append((f.name, header, [[r[k] for k in keys] for r in rows]))
        bad = [r["cable_id"] for r in rows if r["reach_ok"] is False]
        if bad:
            warnings.append(f"fabric {f.name!r}: {len(bad)} cables exceed their media's reach "
                            f"(first {bad[0]}): use longer-reach optics or move the racks")
    racks = [[s.rack, p.position[s.rack][0], p.position[s.rack][1], s.u, s.name, s.slug, s.role,
              s.fabric, round(s.power_w, 1), ", ".join(s.unknown)]
             for s in sorted(p.switches.values(), key=lambda s: (p.position[s.rack], -s.u))]
    sheets.append(("network-racks", [h for _, h in RACK_COLUMNS], racks))
    files = [ExportFile(f"cabling/{name}.csv", _csv(header, rows)) for name, header, rows in sheets]
    files.append(ExportFile(f"cabling/{rd.file.stem}.xlsx", f"{len(sheets)} sheets",
                            _xlsx(sheets)))
    return Export("cabling", tuple(files), tuple(warnings))


def _csv(header: list[str], rows: list[list]) -> str:
    from infra.reports.cellsafe import csv_row
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(csv_row(header))
    w.writerows(csv_row("" if v is None else v for v in r) for r in rows)
    return buf.getvalue()


def _xlsx(sheets: list[tuple[str, list[str], list[list]]]) -> bytes:
    from openpyxl import Workbook

    from infra.reports.cellsafe import defuse

    wb = Workbook()
    wb.remove(wb.active)
    for name, header, rows in sheets:
        ws = wb.create_sheet(name[:31])
        ws.append(header)
        for r in rows:
            ws.append(r)
        ws.freeze_panes = "A2"
    defuse(wb)  # names from the design are text, never formulas
    buf = io.BytesIO()
    wb.save(buf)
    return _stable_zip(buf.getvalue())


def _stable_zip(data: bytes) -> bytes:
    """The same xlsx with fixed entry times and document dates (byte-stable reruns)."""
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            body = src.read(info.filename)
            if info.filename == "docProps/core.xml":
                body = re.sub(rb"(<dcterms:(?:created|modified)[^>]*>)[^<]*",
                              rb"\g<1>2000-01-01T00:00:00Z", body)
            dst.writestr(zipfile.ZipInfo(info.filename, FIXED_TIME), body,
                         compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()
