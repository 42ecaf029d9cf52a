"""Checks of NetBox device types (devicetype-library ``schema/devicetype.json`` rules).

Required ``manufacturer, model, slug, u_height, is_full_depth``; no other top-level key
than the schema's (``additionalProperties: false``); ``slug`` matches
``^[-a-z0-9_]+$``; ``u_height`` a multiple of 0.5; ``part_number`` at most 50
characters; ``weight`` and ``weight_unit`` together; interfaces and power ports with unique
names and a ``type`` NetBox knows (the subset this exporter writes), ``maximum_draw`` an
integer >= 1. And the library's CI rules (``tests/device_types.py``): a power source
(``power-ports``, or ``is_powered: false``), the slug starting with the slugified
manufacturer and ending with the slugified model.

Examples
--------
>>> check_device_type({"manufacturer": "NVIDIA", "model": "X", "slug": "Bad Slug",
...                    "u_height": 1, "is_full_depth": True})
Traceback (most recent call last):
...
infra.exports.common.ExportError: NetBox device type 'Bad Slug': slug must match ^[-a-z0-9_]+$
"""

from __future__ import annotations

import re

from infra.exports.common import ExportError

REQUIRED = ("manufacturer", "model", "slug", "u_height", "is_full_depth")
ALLOWED = set(REQUIRED) | {
    "part_number", "airflow", "weight", "weight_unit", "is_powered", "subdevice_role",
    "comments", "description", "interfaces", "power-ports", "console-ports", "console-server-ports",
    "power-outlets", "front-ports", "rear-ports", "module-bays", "device-bays", "inventory-items"}
INTERFACE_TYPES = {
    "1000base-t", "10gbase-x-sfpp", "25gbase-x-sfp28", "100gbase-x-qsfp28", "200gbase-x-qsfp56",
    "400gbase-x-qsfp112", "400gbase-x-osfp", "800gbase-x-osfp", "1.6tbase-x-osfp1600",
    "infiniband-hdr", "infiniband-ndr", "infiniband-xdr", "other"}
POWER_PORT_TYPES = {"iec-60320-c14", "iec-60320-c20", "dc-terminal", "hardwired", "other"}
_SLUG = re.compile(r"^[-a-z0-9_]+$")


def check_device_type(dt: dict) -> None:
    """Raise ExportError at the first devicetype-library rule ``dt`` breaks."""
    name = dt.get("slug", dt.get("model", "?"))

    def fail(msg: str) -> ExportError:
        return ExportError(f"NetBox device type {name!r}: {msg}")

    missing = [k for k in REQUIRED if k not in dt]
    if missing:
        raise fail(f"missing required field(s) {missing}")
    extra = sorted(set(dt) - ALLOWED)
    if extra:
        raise fail(f"field(s) {extra} are not in the devicetype-library schema")
    if not isinstance(dt["slug"], str) or not _SLUG.match(dt["slug"]):
        raise fail("slug must match ^[-a-z0-9_]+$")
    u = dt["u_height"]
    if not isinstance(u, (int, float)) or u < 0 or (u * 2) != int(u * 2):
        raise fail(f"u_height {u!r} must be a non-negative multiple of 0.5")
    if not isinstance(dt["is_full_depth"], bool):
        raise fail("is_full_depth must be true or false")
    if len(str(dt.get("part_number", ""))) > 50:
        raise fail("part_number is limited to 50 characters")
    if ("weight" in dt) != ("weight_unit" in dt):
        raise fail("weight and weight_unit go together")
    for i, pp in enumerate(dt.get("power-ports", [])):
        if set(pp) - {"name", "label", "type", "maximum_draw", "allocated_draw", "description"}:
            raise fail(f"power-ports[{i}] has unknown keys")
        if pp.get("type") not in POWER_PORT_TYPES:
            raise fail(f"power-ports[{i}]: type {pp.get('type')!r} is not a NetBox power-port type")
        draw = pp.get("maximum_draw", 1)
        if isinstance(draw, bool) or not isinstance(draw, int) or draw < 1:
            raise fail(f"power-ports[{i}]: maximum_draw must be an integer >= 1")
    if not dt.get("power-ports") and dt.get("is_powered", True) is not False:
        raise fail("no power source: the library wants power-ports (or is_powered: false)")
    from infra.exports.netbox_types import slugify

    maker, model = slugify(str(dt["manufacturer"])), slugify(str(dt["model"]))
    if not (dt["slug"].startswith(maker) and dt["slug"].endswith(model)):
        raise fail(f"slug must start with the manufacturer {maker!r} and end with the model "
                   f"{model!r} (devicetype-library rule)")
    seen = set()
    for i, itf in enumerate(dt.get("interfaces", [])):
        if set(itf) - {"name", "type", "mgmt_only", "label", "description"}:
            raise fail(f"interfaces[{i}] has unknown keys {sorted(set(itf) - {'name', 'type'})}")
        if itf.get("type") not in INTERFACE_TYPES:
            raise fail(f"interfaces[{i}] {itf.get('name')!r}: type {itf.get('type')!r} is not a "
                       "NetBox interface type this exporter knows")
        if itf.get("name") in seen:
            raise fail(f"interface name {itf.get('name')!r} repeats")
        seen.add(itf.get("name"))
