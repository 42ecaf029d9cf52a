"""``infra ingest DIR --to-design``: a starting design for a brownfield cluster.

Each node's GPUs are matched to a catalog GPU type by PCI device id (nvidia-smi
``pci_device_id`` against the catalog's ``pci_device_ids``), then to the catalog tray
types with that many GPUs of that type (the node's highest module id, so a node with a
lost GPU still matches its tray). Trays that report a chassis serial (NVL racks) are
grouped into one rack per chassis; servers are packed into the catalog's generic rack,
as many as its U height holds. What cannot be inferred (fabric, power, cooling, the
exact rack type) is listed in the file's header for the user to complete.

Examples
--------
>>> from pathlib import Path
>>> from infra.ingest.inventory import load_inventory
>>> from infra.models.catalog import load_catalog
>>> root = Path(__file__).resolve().parents[2] / "tests/fixtures/inventory/gb200-nvl72-clean"
>>> d = starting_design(load_inventory(root), load_catalog())
>>> d.data["racks"]["rack1"]["contents"][0]
{'type': 'nvidia-gb200-compute-tray', 'count': 18}
"""

from __future__ import annotations

import weakref
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from infra.errors import InfraError
from infra.exports.common import one_line
from infra.ingest.hostmap import HostMap
from infra.ingest.inventory import host_dirs, iter_nodes, read_fabric
from infra.ingest.model import BuiltNode, Inventory
from infra.models.catalog import Catalog
from infra.models.expand import expand_tray
from infra.models.parts import Gpu
from infra.models.systems import ComputeTray

GENERIC_RACK = "generic-42u-air-rack"


@dataclass
class DraftDesign:
    data: dict
    notes: list[str] = field(default_factory=list)

    def to_yaml(self) -> str:
        """The draft as YAML: the notes as header comments, each escaped onto its one line
        (dump text such as a GPU's product name or a host directory name never starts a
        line of YAML), the data written by the YAML dumper."""
        head = "".join(f"# {one_line(n)}\n" for n in [
            "Starting design written by `infra ingest --to-design`;",
            "complete it before analysing:"] + self.notes)
        return head + yaml.safe_dump(self.data, sort_keys=False, width=100)


@dataclass(frozen=True, slots=True)
class NodeBrief:
    """What the draft needs of one node (its dumps are not kept): the GPUs' PCI ids with
    their counts, a product name, the GPU count its tray must hold (the highest module
    id, so a node with a lost GPU still matches), its chassis serial and NIC names."""

    host: str
    ids: tuple[tuple[str | None, int], ...]
    product: str | None
    want: int
    chassis: str | None
    nics: tuple[str, ...]
    site_rack: int | None = None  # the rack the site's naming puts it in (a host map)

    @classmethod
    def of(cls, node: BuiltNode, host_map: HostMap | None = None) -> "NodeBrief":
        serials = {g.chassis_serial for g in node.gpus if g.chassis_serial}
        nums = host_map.numbers(node.host) if host_map is not None else None
        rack = dict(nums).get("rack") if isinstance(nums, tuple) else None
        return cls(node.host, tuple(Counter(g.pci_device_id for g in node.gpus).items()),
                   node.gpus[0].product if node.gpus else None,
                   max([g.module_id or 0 for g in node.gpus] + [len(node.gpus)]),
                   serials.pop() if len(serials) == 1 else None,
                   tuple(n.name or "" for n in node.nics), rack)


def starting_design(inv: Inventory, catalog: Catalog, name: str | None = None) -> DraftDesign:
    """Draft design dict for ``inv`` (see the module docstring for the rules)."""
    return _draft([NodeBrief.of(n) for n in inv.nodes], inv, catalog, name)


def starting_design_dir(inventory: Path | str, catalog: Catalog, name: str | None = None,
                        host_map: HostMap | None = None) -> DraftDesign:
    """:func:`starting_design` of the inventory directory ``inventory``, read one host at
    a time (only a :class:`NodeBrief` of each is kept): the ``infra ingest`` API.

    ``host_map`` (:mod:`infra.ingest.hostmap`) that gives hosts a ``rack`` number puts
    servers in those racks, as the site has them, instead of packing them."""
    dirs = host_dirs(inventory)
    fabric, ports, unmapped = read_fabric(inventory, bool(dirs))
    briefs = [NodeBrief.of(n, host_map) for n in iter_nodes(inventory)]
    return _draft(briefs, Inventory(str(inventory), (), fabric, ports, unmapped), catalog, name)


def _draft(briefs: list[NodeBrief], inv: Inventory, catalog: Catalog,
           name: str | None) -> DraftDesign:
    notes: list[str] = []
    trays: dict[str, ComputeTray] = {}
    placed: list[tuple[NodeBrief, ComputeTray]] = []
    vendor = nic_vendor(inv, briefs)
    for node in briefs:
        tray = match_tray(node, catalog, notes, vendor)
        if tray is not None:
            trays[tray.slug] = tray
            placed.append((node, tray))
    if not briefs:
        raise InfraError("no host directory with GPU dumps: nothing to draft a design from "
                         "(a fabric dump alone gives no tray type)", file=inv.root,
                         hint="add one directory per host with its nvidia-smi -q -x (or "
                              "amd-smi static) output")
    if not placed:
        why = list(dict.fromkeys(n.split(": ", 1)[-1] for n in notes))
        unknown = any(w.startswith("no catalog GPU has PCI id") for w in why)
        shown = "; ".join(why[:3]) + (f"; and {len(why) - 3} more" if len(why) > 3 else "")
        raise InfraError(f"no node matched a catalog tray type ({shown})", file=inv.root,
                         hint="add the GPU's pci_device_ids to its catalog entry" if unknown
                         else "the GPU is known: add a compute_tray entry holding that many "
                              "of it (catalogs/trays/, as the shipped ones)")
    racks: dict[str, dict] = {}
    build: Counter = Counter()
    chassis: dict[tuple, int] = {}
    for node, tray in placed:
        key = (tray.slug, node.chassis)
        chassis[key] = chassis.get(key, 0) + 1
    servers: Counter = Counter()
    site_racks: dict[int, Counter] = {}
    for node, tray in placed:
        if node.chassis is None and node.site_rack is not None:
            site_racks.setdefault(node.site_rack, Counter())[tray.slug] += 1
            chassis[(tray.slug, None)] -= 1  # placed in its site rack, not packed
    rack_u = catalog.get(GENERIC_RACK).u_height  # type: ignore[attr-defined]
    for rack_no, contents in sorted(site_racks.items()):
        used = sum(c * trays[t].u_height for t, c in contents.items())
        if used > rack_u:  # a draft that would not validate: say so now
            raise InfraError(
                f"the host names put {sum(contents.values())} servers ({used:g}U) in rack "
                f"{rack_no}, more than the {rack_u:g}U of the draft's {GENERIC_RACK}",
                file=inv.root, hint="check the host map (several hosts given one rack?) or "
                                    "draft without it and set the racks by hand")
        layout = {"type": GENERIC_RACK, "contents": [{"type": t, "count": c}
                                                     for t, c in sorted(contents.items())]}
        build[_layout_name(racks, layout)] += 1
    if site_racks:
        notes.append(f"{sum(sum(c.values()) for c in site_racks.values())} servers in "
                     f"{len(site_racks)} racks as the host names place them; set the real "
                     "rack type, PDUs and cooling")
    for (slug, serial), count in chassis.items():
        if count <= 0:
            continue
        if serial is None:
            servers[slug] += count
            continue
        layout = _rack_layout(trays[slug], count, catalog, notes)
        lname = _layout_name(racks, layout)
        build[lname] += 1
    for slug, n in servers.items():
        per = _per_rack(trays[slug], catalog)
        full, rest = divmod(n, per)
        for count, racks_n in ((per, full), (rest, 1 if rest else 0)):
            if racks_n:
                lname = _layout_name(racks, {"type": GENERIC_RACK,
                                             "contents": [{"type": slug, "count": count}]})
                build[lname] += racks_n
        notes.append(f"{n} x {slug} packed {per} per {GENERIC_RACK} (its U height); set the "
                     "real rack type, PDUs and cooling")
    if inv.fabric is not None:
        notes.append(f"ibnetdiscover found {len(inv.fabric.switches)} switches and "
                     f"{len(inv.ports)} adapter cables: add a `fabrics:` entry "
                     "(see designs/dgx_h100_su.yaml)")
    data = {"name": name or Path(inv.root).name, "description": "drafted from inventory "
            f"{inv.root}: {len(placed)} nodes", "racks": racks, "build": dict(build)}
    return DraftDesign(data, [one_line(n) for n in notes])  # printed on a terminal too


def nic_vendor(inv: Inventory, briefs: list[NodeBrief] | None = None) -> str | None:
    """Vendor of the scale-out NICs, from the inventory: ConnectX (``mlx5_*`` devices or an
    InfiniBand fabric) -> NVIDIA; EFA (``rdmap*``) -> AWS; None when nothing says."""
    if briefs is None:
        briefs = [NodeBrief.of(n) for n in inv.nodes]
    names = [n for b in briefs for n in b.nics]
    if inv.ports or any(n.startswith("mlx5") for n in names):
        return "NVIDIA"
    if any(n.startswith(("rdmap", "efa")) for n in names):
        return "AWS"
    return None


def match_tray(node: NodeBrief | BuiltNode, catalog: Catalog, notes: list[str],
               vendor: str | None = None) -> ComputeTray | None:
    """The catalog tray type of ``node`` (None, with a note, when nothing matches).

    ``vendor`` (see :func:`nic_vendor`) prefers trays whose scale-out NICs it makes.
    """
    if isinstance(node, BuiltNode):
        node = NodeBrief.of(node)
    ids = dict(node.ids)
    if len(ids) != 1:
        notes.append(f"{node.host}: mixed or unknown GPU PCI ids {ids}; not placed")
        return None
    dev = next(iter(ids))
    found, note = _tray_for(catalog, dev, node.want, vendor)
    if found is None:
        notes.append(f"{node.host}: " + note.replace(_PRODUCT, str(node.product)))
        return None
    if note and note not in notes:
        notes.append(note)
    return found


_PRODUCT = "\x00product\x00"  # the node's product name goes here (XML text holds no NUL)
_TRAYS: "weakref.WeakKeyDictionary[Catalog, dict]" = weakref.WeakKeyDictionary()


def _tray_for(catalog: Catalog, dev: str | None, want: int, vendor: str | None
              ) -> tuple[ComputeTray | None, str]:
    """(tray, note) for a node of ``want`` GPUs of PCI id ``dev``, once per catalog."""
    memo = _TRAYS.setdefault(catalog, {})
    key = (dev, want, vendor)
    if key not in memo:
        memo[key] = _find_tray(catalog, dev, want, vendor)
    return memo[key]


def _find_tray(catalog: Catalog, dev: str | None, want: int, vendor: str | None
               ) -> tuple[ComputeTray | None, str]:
    gpus = [g for g in catalog.of_kind("gpu") if dev in getattr(g, "pci_device_ids", [])]
    if not gpus:
        return None, f"no catalog GPU has PCI id {dev} ({_PRODUCT}); not placed"
    slugs = {g.slug for g in gpus}
    cands = []
    for t in catalog.of_kind("compute_tray"):
        lay = expand_tray(t, catalog)  # type: ignore[arg-type]
        kinds = {i.part.slug for i in lay.of_kind("gpu")}
        if kinds and kinds <= slugs and lay.count("gpu") == want:
            cands.append(t)
    if not cands:
        return None, f"no catalog tray with {want} x {sorted(slugs)}; not placed"
    cands.sort(key=lambda t: (not _nic_vendor_matches(t, catalog, vendor), t.slug))
    note = ""
    if len(cands) > 1:
        why = f"its scale-out NICs are {vendor}'s" if vendor else "first by name"
        note = (f"{len(cands)} catalog trays hold {want} x {sorted(slugs)}: chose {cands[0].slug} "
                f"({why}; others: {', '.join(t.slug for t in cands[1:])})")
    return cands[0], note  # type: ignore[return-value]


def _nic_vendor_matches(tray: ComputeTray, catalog: Catalog, vendor: str | None) -> bool:
    if vendor is None:
        return False
    lay = expand_tray(tray, catalog)
    return any(i.part.vendor == vendor for i in lay.of_kind("nic")
               if (i.component.network or "scale_out") in ("scale_out", "converged"))


def _per_rack(tray: ComputeTray, catalog: Catalog) -> int:
    rack = catalog.get(GENERIC_RACK, "rack")
    return max(1, int(rack.u_height // tray.u_height))  # type: ignore[attr-defined]


def _rack_layout(tray: ComputeTray, n: int, catalog: Catalog, notes: list[str]) -> dict:
    """One NVL rack: its trays and the NVLink switch trays their GPUs' links need."""
    gpu: Gpu = expand_tray(tray, catalog).of_kind("gpu")[0].part  # type: ignore[assignment]
    contents = [{"type": tray.slug, "count": n}]
    switch = next((s for s in catalog.of_kind("nvlink_switch_tray")
                   if gpu.scale_up and catalog.get(s.chips.type).technology  # type: ignore[attr-defined]
                   == gpu.scale_up.technology), None)
    if switch is not None and gpu.scale_up is not None:
        count = gpu.scale_up.links // switch.chips.count  # type: ignore[attr-defined]
        contents.append({"type": switch.slug, "count": count, "cooling": "liquid"})
    racks = sorted(r.slug for r in catalog.of_kind("rack") if r.cooling != "air")  # type: ignore[attr-defined]
    rack = next((r for r in racks if tray.slug.split("-")[1] in r), racks[0] if racks else GENERIC_RACK)
    note = (f"NVL racks drafted as {rack} with {tray.slug} and NVLink switch trays; add power "
            "shelves, management switches and the CDU")
    if note not in notes:
        notes.append(note)
    return {"type": rack, "contents": contents}


def _layout_name(racks: dict[str, dict], layout: dict) -> str:
    for name, existing in racks.items():
        if existing == layout:
            return name
    name = f"rack{len(racks) + 1}"
    racks[name] = layout
    return name
