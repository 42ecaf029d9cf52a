"""Cabling (point-to-point) sheets for installers: CSV and xlsx in NVIDIA UFM's P2P format.

The first eight columns are those of the P2P file of NVIDIA's UFM Cable Validation Tool
(docs.nvidia.com/networking/display/cablevalidationtool150/p2p+file),
``Rack | U | Name | HCA/Port | Rack | U | Name | Port`` (A end, then B end), with the
values it expects: a node's ``HCA/Port`` is the number of its fabric port in NIC order
(1 for the first; the tool maps 1 -> mlx5_0, 2 -> mlx5_1 unless given an HCA mapping
file), a switch's port is its number, or ``cage/lane`` where one cage carries several
links ("a single number or a split port (e.g., 1/2)"). The rest follow: cable ID,
fabric, tier, each end's port name in the design (``nic0/p0``; a switch's logical
port), split, media and part, the cable, length, reach. Files:
``cabling/<fabric>.csv`` per fabric, ``cabling/network-racks.csv`` (where each switch
sits, with power) and ``cabling/<design>.xlsx`` with one sheet of each (rows streamed,
fixed timestamps so reruns are byte-identical). Designs above the plan limit get the
per-link-type summary instead.

Examples
--------
>>> from infra.models.resolve import load_design
>>> ex = cabling_export(load_design("designs/dgx_h100_su.yaml"))
>>> [f.path for f in ex.files]
['cabling/compute.csv', 'cabling/network-racks.csv', 'cabling/dgx_h100_su.xlsx']
>>> ex.files[0].text.splitlines()[1].split(",")[:9]
['su0/r0', '35', 'r001n01', '1', 'su0/n0', '42', 'su0.rail0.leaf0', '1/1', 'compute-leaf-00001']
"""

from __future__ import annotations

import csv
import io

from infra.analysis.layout.cabling import UFM_COLUMNS, UFM_HEADER, cabling_plan
from infra.analysis.network.fabric import design_fabrics
from infra.analysis.layout.identity import DEFAULT_HOST_PATTERN
from infra.analysis.layout.placement import Geometry, network_placement
from infra.exports.common import Export, ExportError, ExportFile, check_node_count
from infra.models.resolve import ResolvedDesign

EXTRA = (("cable_id", "Cable ID"), ("fabric", "Fabric"), ("tier", "Tier"),
         ("a_name", "A port"), ("a_split", "A split"), ("a_media", "A media"),
         ("a_part", "A part"), ("b_name", "B port"), ("b_split", "B split"),
         ("b_media", "B media"), ("b_part", "B part"),
         ("cable", "Cable"), ("length_m", "Length (m)"), ("reach_m", "Reach (m)"),
         ("reach_ok", "Reach OK"))
RACK_COLUMNS = (("rack", "Rack"), ("row", "Row"), ("slot", "Slot"), ("u", "U"),
                ("switch", "Switch"), ("part", "Part"), ("role", "Role"), ("fabric", "Fabric"),
                ("power_w", "Power (W)"), ("unknown_power", "Power not published"))


def cabling_export(rd: ResolvedDesign, pattern: str = DEFAULT_HOST_PATTERN,
                   geometry: Geometry | None = None,
                   names: dict[str, str] | None = None) -> Export:
    """Cabling sheets of every fabric of ``rd``; ExportError when it has none.

    ``geometry`` overrides the stated floor geometry (rack width, row pitch, overhead
    run, slack, rounding) used for cable lengths; ``names`` (node path -> the site's
    host name, as for :func:`infra.exports.export_design`) renames the nodes' ends.
    """
    if pattern != DEFAULT_HOST_PATTERN:
        raise ExportError("the cabling plan names nodes with the default host-name pattern",
                          hint="drop --hostnames for --to cabling")
    if names:
        from infra.analysis.layout.identity import node_identities
        from infra.exports.common import site_named

        site_named(node_identities(rd, pattern, fabrics=False), names)  # checked as elsewhere
    fabrics = design_fabrics(rd)
    if not fabrics:
        raise ExportError(f"{rd.file}: design {rd.name!r} has no fabric, so nothing to cable",
                          hint="add a 'fabrics:' section")
    check_node_count(rd, "cabling", "the network-racks sheet places every switch: export a "
                     "design with one or a few pods of each kind (lower the 'build:' counts); "
                     "infra design --report xlsx gives the counts and power of every tier")
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
        if names:
            rows = [_site(r, names) for r in rows]
        sheets.append((f.name, header, [[r[k] for k in keys] for r in map(_ufm, rows)]))
        bad = [r["cable_id"] for r in rows if r["reach_ok"] is False]
        if bad:
            warnings.append(f"fabric {f.name!r}: {len(bad)} cables exceed their media's reach "
                            f"(first {bad[0]}): use longer-reach optics or move the racks")
    racks = [[s.rack, p.position[s.rack][0], p.position[s.rack][1], s.u, s.name, s.slug, s.role,
              s.fabric, round(s.power_w, 1), ", ".join(s.unknown)]
             for s in sorted(p.switches.values(), key=lambda s: (p.position[s.rack], -s.u))]
    sheets.append(("network-racks", [h for _, h in RACK_COLUMNS], racks))
    files = [ExportFile(f"cabling/{name}.csv", stream=lambda h=header, r=rows: _csv(h, r))
             for name, header, rows in sheets]
    files.append(ExportFile(f"cabling/{rd.file.stem}.xlsx", f"{len(sheets)} sheets",
                            _xlsx(sheets)))
    return Export("cabling", tuple(files), tuple(warnings))


def _site(r: dict, names: dict[str, str]) -> dict:
    """A node-to-leaf row with the node's site name (its plan path is ``from_device``)."""
    got = names.get(r["from_device"]) if r["from_port"].startswith("p") else None
    return dict(r, a_device=got) if got else r


def _ufm(r: dict) -> dict:
    """A plan row with the UFM P2P port values: a node's fabric port number (``p3`` of
    the plan -> 3), a switch's ``cage/lane`` where it has one, else its number; the
    design's port names move to ``a_name`` / ``b_name``."""
    port = r["from_port"]  # the plan's earlier port column: p<k> on a node, up<j> on a switch
    a = int(port[1:]) if port.startswith("p") else (r["a_split"] or r["a_port"])
    return dict(r, a_port=a, a_name=r["a_port"], b_port=r["b_split"] or r["b_port"],
                b_name=r["b_port"])


def _csv(header: list[str], rows: list[list]):
    """The CSV's lines, a block of rows at a time."""
    from infra.reports.cellsafe import csv_row
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(csv_row(header))
    for i in range(0, len(rows), 4096):
        w.writerows(csv_row("" if v is None else v for v in r) for r in rows[i:i + 4096])
        yield buf.getvalue()
        buf.seek(0)
        buf.truncate()
    yield buf.getvalue()


def _xlsx(sheets: list[tuple[str, list[str], list[list]]]) -> bytes:
    """One sheet per table, rows streamed as sheet XML (no cell objects), reproducible."""
    from openpyxl import Workbook
    from openpyxl.styles import Font

    from infra.reports.atomic import save_workbook
    from infra.reports.xlsx_stream import stream_table

    wb = Workbook()
    wb.remove(wb.active)
    for name, header, rows in sheets:
        ws = wb.create_sheet(name[:31])
        ws.append(header)
        for c in ws[1]:
            c.font = Font(bold=True)
        keys = [f"c{j}" for j in range(len(header))]  # no unit or input styling by name
        stream_table(ws, keys, header, [dict(zip(keys, r)) for r in rows], hatch=False)
        ws.freeze_panes = "A2"
    buf = io.BytesIO()
    save_workbook(wb, buf)  # defused (names are text, never formulas), fixed times
    return buf.getvalue()
