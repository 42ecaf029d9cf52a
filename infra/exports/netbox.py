"""NetBox: device types per catalog part, and the design's racks, devices and cables.

- ``netbox/device-types/<slug>.yaml``: devicetype-library format (manufacturer, model,
  slug, u_height, is_full_depth, interfaces), one per catalog part the design mounts
  (compute trays, rack units, fabric switches), checked by
  :mod:`infra.exports.netbox_check`.
- ``netbox/bundle.json``: sites, racks, devices, interfaces and cables in NetBox 4.6's
  REST shapes, with related objects by natural key (``{"name": ...}``, ``{"slug": ...}``)
  for :func:`push_bundle` (or any client) to resolve into ids; cables use
  ``a_terminations`` / ``b_terminations`` of ``dcim.interface``, ``type``, ``profile``
  ``single-1c1p``, ``length`` + ``length_unit`` from the cabling plan, status planned.
- ``netbox/csv/{racks,devices,cables}.csv``: the bulk-import columns.

Names: racks by design path (``su0.r3``), compute trays by host name, other units
``<rack>-<slug>-<k>``, fabric switches by their cabling-plan names; interfaces of a tray
``<nic>/<port>``, of a switch its port number. The bundle lists every instance, so it is
built for designs up to :data:`~infra.analysis.network.cluster_graph.MAX_CLUSTER_GPUS` GPUs;
device types are written for any design.

Examples
--------
>>> from infra.models.resolve import load_design
>>> ex = netbox_export(load_design("designs/dgx_h100_su.yaml"))
>>> sorted(f.path for f in ex.files)[:2]
['netbox/bundle.json', 'netbox/csv/cables.csv']
"""

from __future__ import annotations

import csv
import io
import json

import yaml

from infra.analysis.layout.cabling import cabling_plan
from infra.analysis.network.cluster_graph import MAX_CLUSTER_GPUS
from infra.analysis.layout.elevation import unit_positions
from infra.analysis.network.fabric import design_fabrics
from infra.analysis.layout.identity import DEFAULT_HOST_PATTERN, node_identities, rack_instances
from infra.analysis.layout.placement import network_placement
from infra.analysis.network.schedtopo import unit_name
from infra.exports.common import Export, ExportError, ExportFile
from infra.exports.netbox_check import check_device_type
from infra.models.expand import expand_tray
from infra.models.parts import Nic
from infra.models.resolve import ResolvedDesign

IB = {200: "infiniband-hdr", 400: "infiniband-ndr", 800: "infiniband-xdr"}
ETH = {100: "100gbase-x-qsfp28", 200: "200gbase-x-qsfp56", 400: "400gbase-x-osfp",
       800: "800gbase-x-osfp"}
CABLE_TYPE = {"copper_passive": "dac-passive", "copper_active": "dac-active", "aoc": "aoc",
              "fiber": "smf-os2"}
SITE = "infra-design"


def _itype(gbit: float, infiniband: bool) -> str:
    return (IB if infiniband else ETH).get(int(gbit), "other")


def device_types(rd: ResolvedDesign) -> dict[str, dict]:
    """slug -> devicetype-library document for every part the design mounts."""
    parts = {}
    for lay in rd.layouts.values():
        for item in lay.items:
            parts.setdefault(item.part.slug, item.part)
    for f in design_fabrics(rd):
        for t in f.spec.tiers:
            parts.setdefault(t.switch, rd.catalog.get(t.switch))
    out = {}
    for slug in sorted(parts):
        part = parts[slug]
        dt = {"manufacturer": part.vendor, "model": part.name, "slug": slug,
              "u_height": float(getattr(part, "u_height", 0) or 0), "is_full_depth": True,
              "comments": f"infra catalog type {slug}; source: {part.sources[0].url or part.sources[0].title}"}
        itfs = _interfaces(rd, part)
        if itfs:
            dt["interfaces"] = itfs
        check_device_type(dt)
        out[slug] = dt
    return out


def _interfaces(rd: ResolvedDesign, part) -> list[dict]:
    if part.kind == "compute_tray":
        lay = expand_tray(part, rd.catalog)
        out = []
        for inst in lay.of_kind("nic"):
            nic: Nic = inst.part  # type: ignore[assignment]
            protos = [p for i in nic.interfaces for p in i.protocols if p in ("infiniband", "ethernet")]
            ib = bool(protos) and protos[0] == "infiniband"
            out += [{"name": f"{inst.name}/{p.name}", "type": _itype(p.gbit_s, ib)} for p in nic.ports]
        return out
    if part.kind == "network_switch":
        ib = part.protocol == "infiniband"
        return [{"name": str(i + 1), "type": _itype(part.port_gbit_s, ib)} for i in range(part.ports)]
    return []


def netbox_export(rd: ResolvedDesign, pattern: str = DEFAULT_HOST_PATTERN) -> Export:
    """Device types, and (up to the size limit) the bundle and CSV files."""
    types = device_types(rd)
    files = [ExportFile(f"netbox/device-types/{s}.yaml",
                        yaml.safe_dump(d, sort_keys=False, explicit_start=True, width=1000))
             for s, d in types.items()]
    gpus = sum(n * expand_tray(rd.catalog.get(s), rd.catalog).count("gpu")  # type: ignore[arg-type]
               for s, n in rd.tray_counts().items())
    warnings = []
    if gpus > MAX_CLUSTER_GPUS:
        warnings.append(f"{gpus:,} GPUs is above the {MAX_CLUSTER_GPUS:,}-GPU limit of the "
                        "per-instance bundle: device types only")
    else:
        b = bundle(rd, pattern)
        files.append(ExportFile("netbox/bundle.json", json.dumps(b, indent=1) + "\n"))
        files += _csv_files(b)
    return Export("netbox", tuple(sorted(files, key=lambda f: f.path)), tuple(warnings))


def bundle(rd: ResolvedDesign, pattern: str = DEFAULT_HOST_PATTERN) -> dict:
    """Sites, racks, devices, interfaces and cables in NetBox REST shapes (by natural key)."""
    ids = {(n.rack, n.slot): n.name for n in node_identities(rd, pattern)}
    site = {"name": SITE, "slug": SITE}
    racks, devices = [], []
    names: set[str] = set()

    def device(name, slug, rack, pos, role):
        if name in names:
            raise ExportError(f"NetBox device name {name!r} repeats (names are unique per site)")
        names.add(name)
        d = {"name": name, "device_type": {"slug": slug}, "role": {"slug": role},
             "site": {"slug": SITE}, "rack": {"name": rack}, "status": "planned"}
        if pos:
            d.update(position=pos, face="front")
        devices.append(d)

    for ri in rack_instances(rd):
        lay = rd.layouts[ri.layout]
        rname = unit_name(ri.path)
        racks.append(_rack(rname, lay.rack.u_height))
        slot, counts = 0, {}
        for item, pos in unit_positions(lay):
            if item.part.kind == "compute_tray":
                device(ids[(ri.path, slot)], item.part.slug, rname, pos, "compute")
                slot += 1
            else:
                k = counts[item.part.slug] = counts.get(item.part.slug, 0) + 1
                device(f"{rname}-{item.part.slug}-{k}", item.part.slug, rname, pos, item.part.kind)
    p = network_placement(rd)
    for r in p.racks:
        racks.append(_rack(unit_name(r.path), r.u_height))
    for s in p.switches.values():
        device(unit_name(s.name), s.slug, unit_name(s.rack), s.u, f"{s.role}-switch")
    cables, interfaces = [], {}
    for f in design_fabrics(rd):
        for row in cabling_plan(rd, f, max_gpus=MAX_CLUSTER_GPUS):
            a = (row["a_device"] if row["tier"] == f.tiers[0].role else unit_name(row["a_device"]),
                 str(row["a_port"]))
            b = (unit_name(row["b_device"]), str(row["b_port"]))
            for dev, itf in (a, b):
                interfaces[(dev, itf)] = {"device": {"name": dev}, "name": itf}
            cable = f.spec.tiers[[t.role for t in f.tiers].index(row["tier"])].down.cable
            ctype = CABLE_TYPE[rd.catalog.get(cable).medium] if cable else _fibre(rd, row["a_part"])  # type: ignore[attr-defined]
            cables.append({
                "a_terminations": [{"object_type": "dcim.interface", "device": a[0], "name": a[1]}],
                "b_terminations": [{"object_type": "dcim.interface", "device": b[0], "name": b[1]}],
                "type": ctype, "status": "planned", "label": row["cable_id"],
                "profile": "single-1c1p", "length": row["length_m"], "length_unit": "m"})
    return {"sites": [site], "racks": racks, "devices": devices,
            "interfaces": list(interfaces.values()), "cables": cables}


def _fibre(rd: ResolvedDesign, optic: str) -> str:
    part = rd.catalog.get(optic) if optic and optic != "-" else None
    mode = getattr(part, "fiber", None)
    return {"single_mode": "smf-os2", "multi_mode": "mmf-om4"}.get(mode or "", "smf-os2")


def _rack(name: str, u: int) -> dict:
    return {"name": name, "site": {"slug": SITE}, "status": "planned", "u_height": u,
            "width": 19, "form_factor": "4-post-cabinet"}


def _csv_files(b: dict) -> list[ExportFile]:
    from infra.reports.cellsafe import csv_row

    def write(header, rows):
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(csv_row(header))
        w.writerows(csv_row(r) for r in rows)
        return buf.getvalue()

    racks = write(["site", "name", "status", "u_height", "width", "form_factor"],
                  [[SITE, r["name"], r["status"], r["u_height"], r["width"], r["form_factor"]]
                   for r in b["racks"]])
    devices = write(["name", "role", "device_type", "status", "site", "rack", "position", "face"],
                    [[d["name"], d["role"]["slug"], d["device_type"]["slug"], d["status"], SITE,
                      d["rack"]["name"], d.get("position", ""), d.get("face", "")]
                     for d in b["devices"]])
    cables = write(["side_a_device", "side_a_type", "side_a_name", "side_b_device", "side_b_type",
                    "side_b_name", "type", "status", "profile", "label", "length", "length_unit"],
                   [[c["a_terminations"][0]["device"], "dcim.interface",
                     c["a_terminations"][0]["name"], c["b_terminations"][0]["device"],
                     "dcim.interface", c["b_terminations"][0]["name"], c["type"], c["status"],
                     c["profile"], c["label"], c["length"], c["length_unit"]]
                    for c in b["cables"]])
    return [ExportFile("netbox/csv/racks.csv", racks), ExportFile("netbox/csv/devices.csv", devices),
            ExportFile("netbox/csv/cables.csv", cables)]


def push_bundle(b: dict, api) -> dict[str, int]:
    """Create the bundle through a ``pynetbox.api(url, token=...)`` object, in batches.

    Objects are created in dependency order (site, racks, devices, interfaces, cables);
    NetBox bulk writes are all-or-none per call, so a failure names its batch. Returns
    the count created per kind. ``pynetbox`` is an optional extra (``infra[netbox]``).
    """
    created = {}
    site = api.dcim.sites.create(b["sites"])
    site_id = {s["slug"]: s_id for s, s_id in zip(b["sites"], _ids(site))}
    created["sites"] = len(b["sites"])
    racks = [dict(r, site=site_id[r["site"]["slug"]]) for r in b["racks"]]
    rack_id = dict(zip((r["name"] for r in b["racks"]), _ids(_batch(api.dcim.racks, racks, "racks"))))
    created["racks"] = len(racks)
    types = {d["device_type"]["slug"] for d in b["devices"]}
    type_id = {t: api.dcim.device_types.get(slug=t).id for t in sorted(types)}
    roles = {d["role"]["slug"] for d in b["devices"]}
    role_id = {r: api.dcim.device_roles.get(slug=r).id for r in sorted(roles)}
    devs = [dict(d, device_type=type_id[d["device_type"]["slug"]], role=role_id[d["role"]["slug"]],
                 site=site_id[d["site"]["slug"]], rack=rack_id[d["rack"]["name"]])
            for d in b["devices"]]
    dev_id = dict(zip((d["name"] for d in b["devices"]), _ids(_batch(api.dcim.devices, devs, "devices"))))
    created["devices"] = len(devs)
    # NetBox instantiates a device type's interface templates with the device: look them
    # up per device and create only those the templates lack
    itf_id: dict[tuple[str, str], int] = {}
    for name in sorted({i["device"]["name"] for i in b["interfaces"]}):
        for itf in api.dcim.interfaces.filter(device_id=dev_id[name]):
            itf_id[(name, itf.name)] = itf.id
    missing = [i for i in b["interfaces"] if (i["device"]["name"], i["name"]) not in itf_id]
    made = _batch(api.dcim.interfaces, [{"device": dev_id[i["device"]["name"]], "name": i["name"],
                                         "type": "other"} for i in missing], "interfaces")
    itf_id.update(zip(((i["device"]["name"], i["name"]) for i in missing), _ids(made)))
    created["interfaces"] = len(missing)
    cables = []
    for c in b["cables"]:
        ends = {}
        for side in ("a_terminations", "b_terminations"):
            t = c[side][0]
            ends[side] = [{"object_type": "dcim.interface", "object_id": itf_id[(t["device"], t["name"])]}]
        cables.append(dict(c, **ends))
    _batch(api.dcim.cables, cables, "cables")
    created["cables"] = len(cables)
    return created


def _batch(endpoint, rows: list[dict], what: str, size: int = 500) -> list:
    out = []
    for i in range(0, len(rows), size):
        try:
            res = endpoint.create(rows[i:i + size])
        except Exception as exc:  # noqa: BLE001 - the client's errors vary by version
            raise ExportError(f"NetBox push: {what} batch {i // size + 1} (rows {i + 1}-"
                              f"{min(i + size, len(rows))}) failed: {exc}",
                              hint="bulk writes are all-or-none; fix and re-run from this batch") from None
        out += list(res)
    return out


def _ids(objs) -> list[int]:
    return [o["id"] if isinstance(o, dict) else o.id for o in objs]
