"""NetBox: device types per catalog part, and the design's racks, devices and cables.

- ``netbox/device-types/<manufacturer>/<model>.yaml``: devicetype-library format, named,
  powered and with port names as the library's CI wants them
  (:mod:`infra.exports.netbox_types`), checked by :mod:`infra.exports.netbox_check`;
  one per catalog part the design mounts (compute trays, rack units, fabric switches).
- ``netbox/bundle.json``: manufacturers, device types, device roles, sites, racks,
  devices, interfaces and cables in NetBox 4.6's REST shapes, with related objects by
  natural key (``{"name": ...}``, ``{"slug": ...}``) for :func:`push_bundle` (which
  creates or reuses the manufacturers, types and roles and checks everything before its
  first write: :mod:`infra.exports.netbox_push`) or any client; cables use
  ``a_terminations`` / ``b_terminations`` of ``dcim.interface``, ``type``, ``profile``
  ``single-1c1p``, ``length`` + ``length_unit`` from the cabling plan, status planned.
- ``netbox/csv/1-sites.csv`` ... ``6-cables.csv``: NetBox's bulk-import columns, numbered
  in import order (the device types' YAML goes in after ``2-manufacturers.csv``);
  ``5-devices.csv`` names the manufacturer and the device type's model, as NetBox's
  device import form requires.

Names: racks by design path (``su0.r3``), compute trays by host name, other units
``<rack>-<catalog slug>-<k>``, fabric switches by their cabling-plan names; interfaces of
a tray ``<nic>/<port>``, of a switch the library's name for that port (``P0.0`` on a
QM9700) or else its number. Device roles are named by their slugs. The bundle lists every
instance, so it is built for designs up to
:data:`~infra.analysis.network.cluster_graph.MAX_CLUSTER_GPUS` GPUs; device types are
written for any design.

Examples
--------
>>> from infra.models.resolve import load_design
>>> ex = netbox_export(load_design("designs/dgx_h100_su.yaml"))
>>> [f.path for f in ex.files][:3]
['netbox/bundle.json', 'netbox/csv/1-sites.csv', 'netbox/csv/2-manufacturers.csv']
"""

from __future__ import annotations

import csv
import io
import json

from infra.analysis.layout.cabling import cabling_plan
from infra.analysis.network.cluster_graph import MAX_CLUSTER_GPUS
from infra.analysis.layout.elevation import unit_positions
from infra.analysis.network.fabric import design_fabrics
from infra.analysis.layout.identity import DEFAULT_HOST_PATTERN, node_identities, rack_instances
from infra.analysis.layout.placement import network_placement
from infra.analysis.network.schedtopo import unit_name
from infra.exports.common import Export, ExportError, ExportFile, site_named
from infra.exports import netbox_types as nbt
from infra.exports.netbox_check import check_device_type
from infra.exports.netbox_push import push_bundle  # noqa: F401 - the documented place
from infra.models.expand import expand_tray
from infra.models.parts import Nic
from infra.models.resolve import ResolvedDesign

IB = {200: "infiniband-hdr", 400: "infiniband-ndr", 800: "infiniband-xdr"}
ETH = {100: "100gbase-x-qsfp28", 200: "200gbase-x-qsfp56", 400: "400gbase-x-osfp",
       800: "800gbase-x-osfp"}
CABLE_TYPE = {"copper_passive": "dac-passive", "copper_active": "dac-active", "aoc": "aoc",
              "fiber": "smf-os2"}
SITE = "infra-design"
ROLE_COLOUR = "9e9e9e"  # NetBox's grey (ColorChoices.COLOR_GREY)


def _itype(gbit: float, infiniband: bool) -> str:
    return (IB if infiniband else ETH).get(int(gbit), "other")


def device_types(rd: ResolvedDesign) -> dict[str, dict]:
    """catalog slug -> devicetype-library document for every part the design mounts
    (names, power ports and port names: :mod:`infra.exports.netbox_types`)."""
    parts = {}
    for lay in rd.layouts.values():
        for item in lay.items:
            parts.setdefault(item.part.slug, item.part)
    for f in design_fabrics(rd):
        for t in f.spec.tiers:
            parts.setdefault(t.switch, rd.catalog.get(t.switch))
    out: dict[str, dict] = {}
    seen: dict[str, str] = {}
    for slug in sorted(parts):
        part = parts[slug]
        maker, model, nb_slug = nbt.identity(part)
        src = part.sources[0].url or part.sources[0].title
        dt = {"manufacturer": maker, "model": model, "slug": nb_slug,
              "u_height": float(getattr(part, "u_height", 0) or 0), "is_full_depth": True,
              "comments": f"infra catalog type {slug}: {part.name}; power inlet type not in "
                          f"the catalog (type other); source: {src}",
              "power-ports": nbt.power_ports(part)}
        itfs = _interfaces(rd, part)
        if itfs:
            dt["interfaces"] = itfs
        check_device_type(dt)
        path = nbt.file_path(dt)
        if path.casefold() in seen or nb_slug in seen:
            raise ExportError(f"catalog types {seen.get(path.casefold(), seen.get(nb_slug))!r} and "
                              f"{slug!r} give the same NetBox device type {nb_slug!r} ({path})",
                              hint="give one of them a different catalog name")
        seen[path.casefold()] = seen[nb_slug] = slug
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
        splits = sorted({s for slug, s in nbt.switch_splits(rd).values() if slug == part.slug}) or [1]
        return [{"name": n, "type": _itype(part.port_gbit_s / s, ib)}
                for s in splits for n in nbt.switch_port_names(part.slug, part.ports, s)]
    return []


def netbox_export(rd: ResolvedDesign, pattern: str = DEFAULT_HOST_PATTERN,
                  names: dict[str, str] | None = None) -> Export:
    """Device types, and (up to the size limit) the bundle and CSV files."""
    types = device_types(rd)
    files = [ExportFile(nbt.file_path(d), nbt.dump(d)) for d in types.values()]
    gpus = sum(n * expand_tray(rd.catalog.get(s), rd.catalog).count("gpu")  # type: ignore[arg-type]
               for s, n in rd.tray_counts().items())
    warnings = []
    if gpus > MAX_CLUSTER_GPUS:
        warnings.append(f"{gpus:,} GPUs is above the {MAX_CLUSTER_GPUS:,}-GPU limit of the "
                        "per-instance bundle: device types only")
    else:
        b = bundle(rd, pattern, names)
        files.append(ExportFile("netbox/bundle.json", json.dumps(b, indent=1) + "\n"))
        files += _csv_files(b)
    return Export("netbox", tuple(sorted(files, key=lambda f: f.path)), tuple(warnings))


def bundle(rd: ResolvedDesign, pattern: str = DEFAULT_HOST_PATTERN,
           names: dict[str, str] | None = None) -> dict:
    """Manufacturers, device types, roles, sites, racks, devices, interfaces and cables in
    NetBox REST shapes (related objects by natural key)."""
    types = device_types(rd)
    named = site_named(node_identities(rd, pattern), names)
    ids = {(n.rack, n.slot): n.name for n in named}
    by_path = {n.path: n.name for n in named}  # the plan's node path -> the device's name
    site = {"name": SITE, "slug": SITE, "status": "planned"}
    racks, devices = [], []
    names: set[str] = set()
    roles: dict[str, None] = {}

    def device(name, slug, rack, pos, role):
        if name in names:
            raise ExportError(f"NetBox device name {name!r} repeats (names are unique per site)")
        names.add(name)
        roles[role] = None
        d = {"name": name, "device_type": {"slug": types[slug]["slug"]}, "role": {"slug": role},
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
    splits = nbt.switch_splits(rd)
    port_names: dict[tuple[str, int], list[str]] = {}

    def port(switch: str, k) -> str:  # a switch's logical port k (1-based) by its type's name
        s = p.switches[switch]
        slug, split = splits[(s.fabric, s.role)]
        got = port_names.get((slug, split))
        if got is None:
            got = port_names[(slug, split)] = nbt.switch_port_names(
                slug, rd.catalog.get(slug).ports, split)  # type: ignore[attr-defined]
        return got[int(k) - 1] if 0 < int(k) <= len(got) else str(k)

    cables, interfaces = [], {}
    for f in design_fabrics(rd):
        for row in cabling_plan(rd, f, max_gpus=MAX_CLUSTER_GPUS):
            if row["tier"] == f.tiers[0].role:
                a = (by_path.get(row["from_device"], row["a_device"]), str(row["a_port"]))
            else:
                a = (unit_name(row["a_device"]), port(row["a_device"], row["a_port"]))
            b = (unit_name(row["b_device"]), port(row["b_device"], row["b_port"]))
            for dev, itf in (a, b):
                interfaces[(dev, itf)] = {"device": {"name": dev}, "name": itf}
            cable = f.spec.tiers[[t.role for t in f.tiers].index(row["tier"])].down.cable
            ctype = CABLE_TYPE[rd.catalog.get(cable).medium] if cable else _fibre(rd, row["a_part"])  # type: ignore[attr-defined]
            cables.append({
                "a_terminations": [{"object_type": "dcim.interface", "device": a[0], "name": a[1]}],
                "b_terminations": [{"object_type": "dcim.interface", "device": b[0], "name": b[1]}],
                "type": ctype, "status": "planned", "label": row["cable_id"],
                "profile": "single-1c1p", "length": row["length_m"], "length_unit": "m"})
    used = {d["device_type"]["slug"] for d in devices}
    dts = [dt for dt in types.values() if dt["slug"] in used]
    makers = sorted({dt["manufacturer"] for dt in dts})
    return {"manufacturers": [{"name": m, "slug": nbt.slugify(m)} for m in makers],
            "device_types": dts,
            "device_roles": [{"name": r, "slug": r, "color": ROLE_COLOUR} for r in sorted(roles)],
            "sites": [site], "racks": racks, "devices": devices,
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

    model = {dt["slug"]: (dt["manufacturer"], dt["model"]) for dt in b["device_types"]}
    sites = write(["name", "slug", "status"], [[x["name"], x["slug"], x["status"]] for x in b["sites"]])
    makers = write(["name", "slug"], [[m["name"], m["slug"]] for m in b["manufacturers"]])
    roles = write(["name", "slug", "color"],
                  [[r["name"], r["slug"], r["color"]] for r in b["device_roles"]])
    racks = write(["site", "name", "status", "u_height", "width", "form_factor"],
                  [[SITE, r["name"], r["status"], r["u_height"], r["width"], r["form_factor"]]
                   for r in b["racks"]])
    # NetBox's DeviceImportForm: manufacturer required, device_type matched by model
    devices = write(["name", "role", "manufacturer", "device_type", "status", "site", "rack",
                     "position", "face"],
                    [[d["name"], d["role"]["slug"], *model[d["device_type"]["slug"]], d["status"],
                      SITE, d["rack"]["name"], d.get("position", ""), d.get("face", "")]
                     for d in b["devices"]])
    cables = write(["side_a_device", "side_a_type", "side_a_name", "side_b_device", "side_b_type",
                    "side_b_name", "type", "status", "profile", "label", "length", "length_unit"],
                   [[c["a_terminations"][0]["device"], "dcim.interface",
                     c["a_terminations"][0]["name"], c["b_terminations"][0]["device"],
                     "dcim.interface", c["b_terminations"][0]["name"], c["type"], c["status"],
                     c["profile"], c["label"], c["length"], c["length_unit"]]
                    for c in b["cables"]])
    return [ExportFile(f"netbox/csv/{name}.csv", text) for name, text in (
        ("1-sites", sites), ("2-manufacturers", makers), ("3-device-roles", roles),
        ("4-racks", racks), ("5-devices", devices), ("6-cables", cables))]
