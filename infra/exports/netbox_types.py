"""NetBox device types that pass the devicetype-library's own CI rules, named as it names them.

The library (github.com/netbox-community/devicetype-library) checks every file with its
JSON schema (``schema/devicetype.json``, ``components.json``) and with rules in
``tests/definitions_test.py`` / ``tests/device_types.py`` and ``tests/yamllint.yaml``:

- **Names.** ``slug`` starts with the slugified manufacturer and ends with the slugified
  model; the file is ``device-types/<manufacturer>/<model>.yaml`` (its name, case-folded,
  is the slugified model). Here the manufacturer is the catalog ``vendor`` without a
  parenthesis ("APC (Schneider Electric)" -> "APC"), the model the catalog ``name`` up
  to its first " (" or ", " without a leading vendor word ("DGX H100 (8 x H100 SXM5, ...)"
  -> "DGX H100"; characters a slug cannot hold become "-"), and the slug
  ``<manufacturer>-<model>`` slugified as the library does. The full catalog name and
  slug are kept in ``comments``.
- **Power.** A device type needs ``power-ports`` (or PoE, or ``is_powered: false``): one
  port per PSU where the catalog gives ``psus`` (``PSU1``...), else one ``PWR`` port;
  ``maximum_draw`` is the PSU rating or the part's maximum where the catalog has it. The
  inlet type is not in the catalog: ``type: other``.
- **Ports.** Switch interfaces use the library's names for that switch where it has a
  file (:data:`LIBRARY_PORTS`), so cables made against either file match; other switches
  use the port number (1-based). A fabric that runs a switch below its port speed (400G
  on an 800G port) gets the breakouts ``<port>s0``, ``<port>s1``. Compute trays use
  ``<nic>/<port>``.
- **YAML.** ``---`` first, sequences indented under their key (yamllint
  ``indentation: {spaces: 2, indent-sequences: true}``), a final newline, no empty
  string.

Examples
--------
>>> model_name("NVIDIA", "DGX H100 (8 x H100 SXM5, 8 x CX-7 400G, 2 x CX-7 2x200G)")
'DGX H100'
>>> manufacturer_name("APC (Schneider Electric)"), slugify("Quantum-2 QM9700")
('APC', 'quantum-2-qm9700')
>>> switch_port_names("nvidia-quantum-2-qm9700", 64)[:3]
['P0.0', 'P0.1', 'P1.0']
"""

from __future__ import annotations

import re

import yaml

# Interface names of the devicetype-library's file for these parts: (format, ports per
# cage); cage c and lane l are 0-based in {c0}/{l0} and 1-based in {c}/{l}.
LIBRARY_PORTS = {
    # device-types/Nvidia/QM9700.yaml: P0.0 ... P31.1 (32 twin-port OSFP cages)
    "nvidia-quantum-2-qm9700": ("P{c0}.{l0}", 2),
    # device-types/Nvidia/Q3400-RA.yaml: sw1p1 ... sw72p2 (72 twin-port OSFP cages)
    "nvidia-quantum-x800-q3400": ("sw{c}p{l}", 2),
    # device-types/Nvidia/SN5600.yaml: swp1 ... swp64 (64 OSFP cages)
    "nvidia-spectrum-4-sn5600": ("swp{c}", 1),
}
_BAD = re.compile(r"[^A-Za-z0-9 _-]+")


def slugify(text: str) -> str:
    """The library's slugify for the characters a model or manufacturer keeps here
    (``casefold``, space and ``_`` -> ``-``; tests/device_types.py ``_slugify_model``)."""
    return text.casefold().replace(" ", "-").replace("_", "-").rstrip("-")


def manufacturer_name(vendor: str) -> str:
    """The catalog vendor without a parenthesis, in characters a slug can start with."""
    return _clean(vendor.split(" (")[0])


def model_name(manufacturer: str, name: str) -> str:
    """The catalog name up to its first " (" or ", ", without a leading manufacturer word."""
    model = re.split(r" \(|, ", name, maxsplit=1)[0]
    if model.casefold().startswith(manufacturer.casefold() + " "):
        model = model[len(manufacturer) + 1:]
    return _clean(model)


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", _BAD.sub("-", text)).strip(" -") or "unnamed"


def switch_port_names(slug: str, ports: int, split: int = 1) -> list[str]:
    """Interface names of a switch's ``ports`` ports (see :data:`LIBRARY_PORTS`), in port
    order; with ``split`` > 1 (a fabric runs the ports at 1/split of their speed) each
    port's breakouts ``<name>s0`` ... ``<name>s<split-1>``, as NVIDIA's switch OS names
    them (``swp1s0``)."""
    fmt, per = LIBRARY_PORTS.get(slug, ("{p}", 1))
    names = [fmt.format(p=p + 1, c0=p // per, l0=p % per, c=p // per + 1, l=p % per + 1)
             for p in range(ports)]
    return names if split <= 1 else [f"{n}s{j}" for n in names for j in range(split)]


def switch_splits(rd) -> dict[tuple[str, str], tuple[str, int]]:
    """(fabric, tier role) -> (switch slug, split): how many logical ports each physical
    port of the tier's switch carries (catalog port speed / the tier's port speed)."""
    from infra.analysis.network.fabric import design_fabrics

    out = {}
    for f in design_fabrics(rd):
        for t in f.tiers:
            native = rd.catalog.get(t.switch).port_gbit_s
            out[(f.name, t.role)] = (t.switch, max(1, round(native / t.port_gbit_s)))
    return out


def identity(part) -> tuple[str, str, str]:
    """(manufacturer, model, NetBox slug) of a catalog part."""
    maker = manufacturer_name(part.vendor)
    model = model_name(maker, part.name)
    return maker, model, f"{slugify(maker)}-{slugify(model)}"


def file_path(dt: dict) -> str:
    """``netbox/device-types/<manufacturer>/<model>.yaml``, as the library files it."""
    return f"netbox/device-types/{dt['manufacturer']}/{dt['model'].replace(' ', '-')}.yaml"


def power_ports(part) -> list[dict]:
    """One port per PSU the catalog lists (``PSU1``...), else one ``PWR`` port."""
    psus = getattr(part, "psus", None)
    if psus:
        w = getattr(part, "psu_w", None) or (getattr(part, "psu_kw", None) or 0) * 1000
        return [{"name": f"PSU{k + 1}", "type": "other", **({"maximum_draw": round(w)} if w else {})}
                for k in range(psus)]
    w = part.power_w if hasattr(part, "power_w") else None
    return [{"name": "PWR", "type": "other", **({"maximum_draw": round(w)} if w and w >= 1 else {})}]


class _Dumper(yaml.SafeDumper):
    """Sequences indented under their key (yamllint ``indent-sequences: true``)."""

    def increase_indent(self, flow: bool = False, indentless: bool = False):  # noqa: ANN201
        return super().increase_indent(flow, False)


def dump(dt: dict) -> str:
    """The device type as the library's yamllint and yamlfmt settings want it."""
    return yaml.dump(dt, Dumper=_Dumper, sort_keys=False, explicit_start=True, width=1000,
                     allow_unicode=False)
