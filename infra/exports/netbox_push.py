"""Push a NetBox bundle (:func:`infra.exports.netbox.bundle`) through pynetbox, all or nothing.

Order of work:

1. **Check the bundle** (no request): every device's type, role, rack and site, every
   device type's manufacturer and every cable end's device is in the bundle; device and
   rack names are unique; every device type passes :func:`check_device_type`.
2. **Read** (GET only): manufacturers, device types and roles that already exist (by
   slug) are reused, the rest will be created; a site that exists is reused only when
   none of the bundle's racks or devices is in it already.
3. **Write** in dependency order: manufacturers, device types with their interface and
   power-port templates, roles, site, racks, devices, the interfaces the templates lack,
   cables. NetBox bulk writes are all-or-none per call; if a later call fails, what this
   push created is deleted again (newest first) and :class:`ExportError` names the batch.

``pynetbox`` is an optional extra (``pip install 'infra[netbox]'``); ``api`` is
``pynetbox.api(url, token=...)`` or any object with the same ``dcim`` endpoints.
"""

from __future__ import annotations

from infra.exports.common import ExportError
from infra.exports.netbox_check import check_device_type

BATCH = 500


def check_bundle(b: dict) -> None:
    """Raise ExportError at the first object of ``b`` that refers to one ``b`` lacks."""
    def need(ok: bool, msg: str) -> None:
        if not ok:
            raise ExportError(f"NetBox bundle: {msg}", hint="export the bundle again with "
                              "infra export --to netbox; do not edit it by hand")

    for key in ("manufacturers", "device_types", "device_roles", "sites", "racks", "devices",
                "interfaces", "cables"):
        need(isinstance(b.get(key), list), f"'{key}' is missing (a bundle from an older infra?)")
    makers = {m["name"] for m in b["manufacturers"]}
    types = {t["slug"]: t for t in b["device_types"]}
    for t in b["device_types"]:
        check_device_type(t)
        need(t["manufacturer"] in makers, f"device type {t['slug']!r}: manufacturer "
             f"{t['manufacturer']!r} is not in 'manufacturers'")
    roles = {r["slug"] for r in b["device_roles"]}
    sites = {s["slug"] for s in b["sites"]}
    racks = [r["name"] for r in b["racks"]]
    need(len(set(racks)) == len(racks), "rack names repeat")
    for r in b["racks"]:
        need(r["site"]["slug"] in sites, f"rack {r['name']!r}: site {r['site']['slug']!r} is not in 'sites'")
    devices: dict[str, dict] = {}
    for d in b["devices"]:
        need(d["name"] not in devices, f"device name {d['name']!r} repeats")
        devices[d["name"]] = d
        for field, known, what in (("device_type", types, "device_types"),
                                   ("role", roles, "device_roles"), ("site", sites, "sites")):
            need(d[field]["slug"] in known, f"device {d['name']!r}: {field} "
                 f"{d[field]['slug']!r} is not in '{what}'")
        need(d["rack"]["name"] in set(racks), f"device {d['name']!r}: rack "
             f"{d['rack']['name']!r} is not in 'racks'")
    for i in b["interfaces"]:
        need(i["device"]["name"] in devices, f"interface {i['name']!r}: device "
             f"{i['device']['name']!r} is not in 'devices'")
    for k, c in enumerate(b["cables"]):
        for side in ("a_terminations", "b_terminations"):
            for t in c[side]:
                need(t["device"] in devices, f"cable {c.get('label', k + 1)!r}: device "
                     f"{t['device']!r} is not in 'devices'")


def push_bundle(b: dict, api) -> dict[str, int]:
    """Create ``b`` in NetBox (see the module text); returns the count created per kind."""
    check_bundle(b)
    dcim = api.dcim
    # --- read -------------------------------------------------------------------------
    maker_id = {m["name"]: _id(dcim.manufacturers.get(slug=m["slug"])) for m in b["manufacturers"]}
    type_id = {t["slug"]: _id(dcim.device_types.get(slug=t["slug"])) for t in b["device_types"]}
    role_id = {r["slug"]: _id(dcim.device_roles.get(slug=r["slug"])) for r in b["device_roles"]}
    site_id = {s["slug"]: _id(dcim.sites.get(slug=s["slug"])) for s in b["sites"]}
    for slug, sid in site_id.items():
        if sid is None:
            continue
        ours = {r["name"] for r in b["racks"]}
        clash = sorted(ours & {r.name if hasattr(r, "name") else r["name"]
                               for r in dcim.racks.filter(site_id=sid)})
        ours = {d["name"] for d in b["devices"]}
        clash += sorted(ours & {d.name if hasattr(d, "name") else d["name"]
                                for d in dcim.devices.filter(site_id=sid)})
        if clash:
            raise ExportError(f"NetBox push: site {slug!r} already holds {len(clash)} of the "
                              f"bundle's racks or devices (first {clash[0]!r}); nothing was written",
                              hint="delete them, or push into a new site (edit 'sites' and "
                                   "every 'site' reference)")
    # --- write, undone on failure -----------------------------------------------------
    made: list[tuple[object, list]] = []
    created: dict[str, int] = {}

    def create(endpoint, rows: list[dict], what: str) -> list[int]:
        ids: list[int] = []
        for i in range(0, len(rows), BATCH):
            try:
                res = list(endpoint.create(rows[i:i + BATCH]))
            except Exception as exc:  # noqa: BLE001 - the client's errors vary by version
                undone = _undo(made)
                raise ExportError(
                    f"NetBox push: {what} batch {i // BATCH + 1} (rows {i + 1}-"
                    f"{min(i + BATCH, len(rows))}) failed: {exc}; {undone}",
                    hint="fix the cause and push again") from None
            ids += _ids(res)
            made.append((endpoint, _ids(res)))
        created[what] = created.get(what, 0) + len(rows)
        return ids

    new = [m for m in b["manufacturers"] if maker_id[m["name"]] is None]
    maker_id.update(zip((m["name"] for m in new),
                        create(dcim.manufacturers, [dict(m) for m in new], "manufacturers")))
    new_t = [t for t in b["device_types"] if type_id[t["slug"]] is None]
    rows = [{k: v for k, v in t.items() if k not in ("interfaces", "power-ports")}
            | {"manufacturer": maker_id[t["manufacturer"]]} for t in new_t]
    type_id.update(zip((t["slug"] for t in new_t), create(dcim.device_types, rows, "device_types")))
    create(dcim.interface_templates, [dict(i, device_type=type_id[t["slug"]])
                                      for t in new_t for i in t.get("interfaces", ())],
           "interface_templates")
    create(dcim.power_port_templates, [dict(p, device_type=type_id[t["slug"]])
                                       for t in new_t for p in t.get("power-ports", ())],
           "power_port_templates")
    new_r = [r for r in b["device_roles"] if role_id[r["slug"]] is None]
    role_id.update(zip((r["slug"] for r in new_r), create(dcim.device_roles, new_r, "device_roles")))
    new_s = [s for s in b["sites"] if site_id[s["slug"]] is None]
    site_id.update(zip((s["slug"] for s in new_s), create(dcim.sites, new_s, "sites")))
    racks = [dict(r, site=site_id[r["site"]["slug"]]) for r in b["racks"]]
    rack_id = dict(zip((r["name"] for r in b["racks"]), create(dcim.racks, racks, "racks")))
    devs = [dict(d, device_type=type_id[d["device_type"]["slug"]], role=role_id[d["role"]["slug"]],
                 site=site_id[d["site"]["slug"]], rack=rack_id[d["rack"]["name"]])
            for d in b["devices"]]
    dev_id = dict(zip((d["name"] for d in b["devices"]), create(dcim.devices, devs, "devices")))
    # NetBox instantiates a type's interface templates with each device: read them once
    # per site, create only the interfaces the templates lack
    itf_id: dict[tuple[str, str], int] = {}
    for sid in sorted(set(site_id.values())):
        for itf in dcim.interfaces.filter(site_id=sid):
            dev = itf.device.name if hasattr(itf, "device") else itf["device"]["name"]
            itf_id[(dev, itf.name if hasattr(itf, "name") else itf["name"])] = _id(itf)
    missing = [i for i in b["interfaces"] if (i["device"]["name"], i["name"]) not in itf_id]
    got = create(dcim.interfaces, [{"device": dev_id[i["device"]["name"]], "name": i["name"],
                                    "type": "other"} for i in missing], "interfaces")
    itf_id.update(zip(((i["device"]["name"], i["name"]) for i in missing), got))
    cables = []
    for c in b["cables"]:
        ends = {}
        for side in ("a_terminations", "b_terminations"):
            ends[side] = [{"object_type": "dcim.interface",
                           "object_id": itf_id[(t["device"], t["name"])]} for t in c[side]]
        cables.append(dict(c, **ends))
    create(dcim.cables, cables, "cables")
    return {k: created.get(k, 0) for k in ("manufacturers", "device_types", "device_roles",
                                           "sites", "racks", "devices", "interfaces", "cables")}


def _undo(made: list[tuple[object, list]]) -> str:
    """Delete what this push created, newest first; say what happened."""
    left = 0
    for endpoint, ids in reversed(made):
        try:
            endpoint.delete(ids)
        except Exception:  # noqa: BLE001 - report, keep undoing the rest
            left += len(ids)
    n = sum(len(ids) for _, ids in made)
    if not n:
        return "nothing had been written"
    if left:
        return f"{n - left} of the {n} objects it had created were deleted again; {left} remain"
    return f"the {n} objects it had created were deleted again"


def _id(obj) -> int | None:
    if obj is None:
        return None
    return obj["id"] if isinstance(obj, dict) else obj.id


def _ids(objs) -> list[int]:
    return [_id(o) for o in objs]  # type: ignore[misc]
