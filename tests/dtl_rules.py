"""The netbox-community/devicetype-library CI rules, reimplemented offline for the tests.

What the library runs on every device-type file (read at github.com/netbox-community/
devicetype-library, 2026: ``.github/workflows/validation.yml`` runs yamllint with
``tests/yamllint.yaml`` and pytest ``tests/definitions_test.py``):

- JSON Schema ``schema/devicetype.json`` + ``components.json`` (Draft 2020-12): the
  required keys, ``additionalProperties: false`` at the top and in each component, string
  lengths, the slug pattern, ``u_height`` a multiple of 0.5, weight with its unit,
  component ``name`` + ``type`` required, types from NetBox's choices
  (``generated_schema.json``; the subset an infra export can write is listed here),
  ``maximum_draw`` an integer >= 1.
- ``definitions_test.py`` / ``device_types.py``: a ``.yaml``/``.yml`` file under
  ``device-types/<manufacturer>/``, ending in a newline; the slug starts with the slugified
  manufacturer and ends with the slugified model or part number; the file name, case-folded,
  is the slugified model or part number; no component name twice; no empty string; a
  power source (``power-ports``, a PoE-powered interface, ``subdevice_role: child``,
  ``module-bays`` or ``is_powered: false``).
- ``yamllint.yaml``: ``document-start``, ``indentation: {spaces: 2, indent-sequences:
  true}``, ``trailing-spaces``, ``new-line-at-end-of-file``, ``new-lines`` (unix),
  ``empty-lines``, ``key-duplicates``, ``truthy``.

:func:`violations` returns every broken rule of one file (empty list = the file passes).
"""

from __future__ import annotations

import re

import yaml

INTERFACE_TYPES = {
    "1000base-t", "10gbase-t", "10gbase-x-sfpp", "25gbase-x-sfp28", "100gbase-x-qsfp28",
    "200gbase-x-qsfp56", "400gbase-x-qsfp112", "400gbase-x-qsfpdd", "400gbase-x-osfp",
    "800gbase-x-qsfpdd", "800gbase-x-osfp", "infiniband-hdr", "infiniband-ndr",
    "infiniband-xdr", "other"}
POWER_PORT_TYPES = {"iec-60320-c14", "iec-60320-c20", "dc-terminal", "hardwired", "other"}
TOP = {"manufacturer": 100, "model": 100, "slug": 100, "part_number": 50, "description": 200}
ALLOWED = set(TOP) | {"u_height", "is_full_depth", "airflow", "weight", "weight_unit",
                      "front_image", "rear_image", "subdevice_role", "is_powered", "comments",
                      "console-ports", "console-server-ports", "power-ports", "power-outlets",
                      "interfaces", "front-ports", "rear-ports", "module-bays", "device-bays",
                      "inventory-items"}
COMPONENT_KEYS = {
    "interfaces": {"name", "label", "type", "enabled", "mgmt_only", "description", "bridge",
                   "poe_mode", "poe_type", "rf_role"},
    "power-ports": {"name", "label", "type", "maximum_draw", "allocated_draw", "description"},
}


def _mf(text: str) -> str:  # device_types.py DeviceType._slugify_manufacturer
    out = text.casefold().replace(" ", "-")
    for a, b in (("sfp+", "sfpp"), ("poe+", "poep"), ("-+", "-plus-"), ("+", "-plus"),
                 ("_", "-"), ("!", ""), ("/", "-"), (",", ""), ("'", ""), ("*", "-"),
                 ("&", "and")):
        out = out.replace(a, b)
    return out


def _slug_model(text: str, part_number: bool = False) -> str:  # _slugify_model / _part_number
    out = text.casefold().replace(" ", "-")
    pairs = [("sfp+", "sfpp"), ("poe+", "poep")] if not part_number else []
    for a, b in pairs + [("-+", "-plus"), ("+", "-plus-"), ("_", "-"), ("&", "-and-"),
                         ("!", ""), ("/", "-"), (",", ""), ("'", ""), ("*", "-")]:
        out = out.replace(a, b)
    return out[:-1] if out.endswith("-") else out


def violations(path: str, text: str) -> list[str]:
    """Every library rule ``text`` (the file at ``path``) breaks."""
    bad: list[str] = []
    bad += _yamllint(text)
    try:
        dt = yaml.safe_load(text)
    except yaml.YAMLError as e:
        return bad + [f"not YAML: {e}"]
    if not isinstance(dt, dict):
        return bad + ["not a mapping"]
    bad += _schema(dt)
    if bad and any(b.startswith("schema: missing") for b in bad):
        return bad
    parts = path.split("/")
    if len(parts) < 3 or parts[-3] != "device-types":
        bad.append(f"file {path!r} is not device-types/<manufacturer>/<file>")
    if parts[-1].rsplit(".", 1)[-1] not in ("yaml", "yml"):
        bad.append("file extension is not .yaml or .yml")
    if not text.endswith("\n"):
        bad.append("missing trailing newline")
    maker, model, slug = _mf(dt["manufacturer"]), _slug_model(dt["model"]), dt["slug"]
    pn = dt.get("part_number", "")
    if not slug.startswith(maker):
        bad.append(f"slug {slug!r} does not start with manufacturer {maker!r}")
    if not (slug.endswith(model) or slug.endswith(_slug_model(pn, True))):
        bad.append(f"slug {slug!r} does not end with the model {model!r} or part number")
    stem = parts[-1].rsplit(".", 1)[0].casefold()
    if stem not in (model, _slug_model(pn, True), pn.casefold()):
        bad.append(f"file name {parts[-1]!r} is neither the model {model!r} nor the part number")
    for kind in COMPONENT_KEYS:
        names = [c.get("name") for c in dt.get(kind, [])]
        if len(set(names)) != len(names):
            bad.append(f"{kind}: a name repeats")
    if _empty_string(dt):
        bad.append("has empty quotes")
    powered = (dt.get("power-ports") or any(i.get("poe_mode") == "pd" for i in dt.get("interfaces", []))
               or dt.get("subdevice_role") == "child" or dt.get("module-bays")
               or dt.get("is_powered", True) is False)
    if not powered:
        bad.append("does not appear to have a valid power source")
    if dt.get("power-ports") and dt.get("is_powered", True) is False:
        bad.append("is_powered false but power-ports defined")
    return bad


def _schema(dt: dict) -> list[str]:
    bad = [f"schema: missing {k}" for k in ("manufacturer", "model", "slug", "u_height",
                                            "is_full_depth") if k not in dt]
    if bad:
        return bad
    bad += [f"schema: unknown key {k!r}" for k in sorted(set(dt) - ALLOWED)]
    for k, n in TOP.items():
        if k in dt and not (isinstance(dt[k], str) and len(dt[k]) <= n):
            bad.append(f"schema: {k} must be a string of at most {n} characters")
    if not re.fullmatch(r"[-a-z0-9_]+", str(dt["slug"])):
        bad.append("schema: slug does not match ^[-a-z0-9_]+$")
    u = dt["u_height"]
    if isinstance(u, bool) or not isinstance(u, (int, float)) or u < 0 or (u * 2) % 1:
        bad.append("schema: u_height must be a number >= 0, a multiple of 0.5")
    if not isinstance(dt["is_full_depth"], bool):
        bad.append("schema: is_full_depth must be boolean")
    if ("weight" in dt) != ("weight_unit" in dt):
        bad.append("schema: weight and weight_unit go together")
    if "is_powered" in dt and not isinstance(dt["is_powered"], bool):
        bad.append("schema: is_powered must be boolean")
    for kind, keys in COMPONENT_KEYS.items():
        items = dt.get(kind, [])
        if not isinstance(items, list):
            bad.append(f"schema: {kind} must be an array")
            continue
        for i, c in enumerate(items):
            where = f"schema: {kind}[{i}]"
            if not isinstance(c, dict) or "name" not in c or "type" not in c:
                bad.append(f"{where} needs name and type")
                continue
            bad += [f"{where}: unknown key {k!r}" for k in sorted(set(c) - keys)]
            if not isinstance(c["name"], str) or len(c["name"]) > 64:
                bad.append(f"{where}: name must be a string of at most 64 characters")
            known = INTERFACE_TYPES if kind == "interfaces" else POWER_PORT_TYPES
            if c["type"] not in known:
                bad.append(f"{where}: type {c['type']!r} is not a NetBox choice")
            draw = c.get("maximum_draw", 1)
            if isinstance(draw, bool) or not isinstance(draw, int) or draw < 1:
                bad.append(f"{where}: maximum_draw must be an integer >= 1")
    return bad


def _empty_string(v) -> bool:
    if isinstance(v, dict):
        return any(_empty_string(x) for x in v.values())
    if isinstance(v, list):
        return any(_empty_string(x) for x in v)
    return v == ""


def _yamllint(text: str) -> list[str]:
    bad = []
    lines = text.split("\n")
    if not text.startswith("---"):
        bad.append("yamllint document-start: missing document start '---'")
    if "\r" in text:
        bad.append("yamllint new-lines: wrong new line character")
    if not text.endswith("\n"):
        bad.append("yamllint new-line-at-end-of-file")
    for n, line in enumerate(lines, 1):
        if line != line.rstrip(" \t"):
            bad.append(f"yamllint trailing-spaces: line {n}")
    if text.endswith("\n\n") or lines[:1] == [""]:
        bad.append("yamllint empty-lines: blank line at the start or end")
    if re.search(r"\n\n\n\n", text):
        bad.append("yamllint empty-lines: more than 2 blank lines")
    try:
        root = yaml.compose(text)
    except yaml.YAMLError as e:
        return bad + [f"yamllint syntax: {e}"]
    bad += _indent(root)
    return bad


def _indent(node) -> list[str]:
    """yamllint indentation (spaces: 2, indent-sequences: true) and key-duplicates and
    truthy, over the composed node tree."""
    bad = []
    if isinstance(node, yaml.MappingNode):
        keys = [k.value for k, _ in node.value]
        if len(set(keys)) != len(keys):
            bad.append("yamllint key-duplicates")
        for k, v in node.value:
            if k.start_mark.column != node.start_mark.column:
                bad.append(f"yamllint indentation: line {k.start_mark.line + 1}")
            if isinstance(v, (yaml.MappingNode, yaml.SequenceNode)) and not v.flow_style:
                if v.start_mark.line > k.start_mark.line and \
                        v.start_mark.column != k.start_mark.column + 2:
                    bad.append(f"yamllint indentation: line {v.start_mark.line + 1}: expected "
                               f"{k.start_mark.column + 2} but found {v.start_mark.column}")
            bad += _indent(v)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            if isinstance(item, yaml.MappingNode) and item.start_mark.column != node.start_mark.column + 2:
                bad.append(f"yamllint indentation: line {item.start_mark.line + 1}")
            bad += _indent(item)
    elif isinstance(node, yaml.ScalarNode) and node.tag.endswith(":bool") and not node.style:
        if node.value not in ("true", "false"):
            bad.append(f"yamllint truthy: {node.value!r} (use true or false)")
    return bad
