"""Expand tray templates into named instances (NetBox ``instantiate()`` style).

A tray type says ``{id: sc, type: nvidia-gb200, count: 2}``; expansion yields
``sc0``, ``sc0.cpu0``, ``sc0.gpu0``, ``sc0.gpu1``, ``sc1`` ... once per tray *type*.
Designs never list instances; analyses multiply per-type figures by counts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from infra.errors import CatalogError, did_you_mean
from infra.models.catalog_types import Catalog  # the type only: the loader imports this module
from infra.models.parts import Cpu, Gpu, Nic, NvlinkSwitchChip, Part, PcieSwitch, Superchip
from infra.models.systems import ComputeTray, TrayComponent

COMPONENT_KINDS = (
    "gpu",
    "cpu",
    "superchip",
    "nic",
    "pcie_switch",
    "nvlink_switch_chip",
    "rack_unit",
)


@dataclass(frozen=True)
class Instance:
    """One expanded component inside a tray type."""

    name: str
    kind: str
    part: Part
    component: TrayComponent
    parent: str | None = None


@dataclass(frozen=True)
class Endpoint:
    instance: Instance
    host_link: str | None = None  # NIC host link name

    @property
    def label(self) -> str:
        return self.instance.name + (f"@{self.host_link}" if self.host_link else "")


@dataclass(frozen=True)
class PcieLink:
    a: Endpoint
    b: Endpoint
    lanes: int
    gen: int  # negotiated: lower of the two ends


@dataclass(frozen=True)
class C2cGroup:
    """One CPU and the GPUs that reach it over one shared NVLink-C2C."""

    cpu: str
    gpus: tuple[str, ...]
    gbyte_s: float  # per direction


@dataclass(frozen=True)
class Assignment:
    nic: str
    interface: str
    to: str  # GPU or CPU instance name (or the NIC itself when unassigned)


@dataclass
class TrayLayout:
    tray: ComputeTray
    instances: dict[str, Instance] = field(default_factory=dict)
    links: list[PcieLink] = field(default_factory=list)
    c2c: list[C2cGroup] = field(default_factory=list)
    assignments: list[Assignment] = field(default_factory=list)

    def of_kind(self, kind: str) -> list[Instance]:
        return [i for i in self.instances.values() if i.kind == kind]

    def count(self, kind: str) -> int:
        return len(self.of_kind(kind))


class CatalogParts:
    """The catalog as a part source: ``get(slug)`` and ``tray_layout(tray)``, the two
    look-ups part-level figures need (power, bill of a tray). A resolved design offers
    the same two for the parts it uses (:class:`~infra.models.resolve.ResolvedDesign`);
    this one serves a part compared on its own, outside any design."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog

    def get(self, slug: str, kind=None) -> Part:
        return self.catalog.get(slug, kind)

    def tray_layout(self, tray: ComputeTray) -> TrayLayout:
        return expand_tray(tray, self.catalog)


def expand_tray(tray: ComputeTray, catalog: Catalog) -> TrayLayout:
    """Expand ``tray`` once per catalog (cached on the catalog object)."""
    cache: dict = catalog.__dict__.setdefault("_layouts", {})
    if tray.slug not in cache:
        cache[tray.slug] = _expand(tray, catalog)
    return cache[tray.slug]


def _err(catalog: Catalog, tray: Part, msg: str, path: tuple, hint: str | None = None):
    from infra.models.yamlio import line_of

    f = catalog.files.get(tray.slug)
    return CatalogError(msg, file=str(f) if f else tray.slug, path=path,
                        line=line_of(f, path) if f else None, hint=hint)


def _defined(catalog: Catalog, part: Part) -> str:
    """``slug (FILE)``: where a referenced part is defined, for errors that may lie there."""
    f = catalog.files.get(part.slug)
    return f"{part.slug} ({f})" if f else part.slug


MAX_TRAY_INSTANCES = 10_000  # parts one tray expands to (the largest shipped: under 50)


def _expand(tray: ComputeTray, catalog: Catalog) -> TrayLayout:
    lay = TrayLayout(tray)
    file = str(catalog.files.get(tray.slug, tray.slug))
    parts = [catalog.get(comp.type, COMPONENT_KINDS, file=file, path=("components", ci, "type"))
             for ci, comp in enumerate(tray.components)]
    total = sum(c.count * (1 + (p.cpu.count + p.gpus.count if isinstance(p, Superchip) else 0))
                for c, p in zip(tray.components, parts))
    if total > MAX_TRAY_INSTANCES:  # counted before any is built (issue 31, E7)
        raise _err(catalog, tray, f"the tray expands to {total:,} parts, over the "
                   f"{MAX_TRAY_INSTANCES:,} one tray may hold", ("components",),
                   hint="check the components' counts (and their superchips' cpu and gpus counts)")
    for ci, (comp, part) in enumerate(zip(tray.components, parts)):
        for i in range(comp.count):
            name = f"{comp.id}{i}"
            lay.instances[name] = Instance(name, part.kind, part, comp)
            if isinstance(part, Superchip):
                _expand_superchip(lay, name, part, comp, catalog, file, ci)
    seen: set[tuple[str, str]] = set()
    for li, link in enumerate(tray.links):
        a = _endpoint(lay, link.a, catalog, tray, ("links", li, "a"))
        b = _endpoint(lay, link.b, catalog, tray, ("links", li, "b"))
        gen = min(_gen(a), _gen(b))
        for end, side in ((a, "a"), (b, "b")):
            cap = _lanes(end)
            if cap is not None and link.lanes > cap:
                raise _err(catalog, tray, f"x{link.lanes} exceeds {end.label}'s x{cap}",
                           ("links", li, "lanes"), hint=f"use at most x{cap}, or fix the lanes "
                           f"of {_defined(catalog, end.instance.part)}")
        pair = tuple(sorted((a.label, b.label)))
        if pair in seen:
            raise _err(catalog, tray, f"two links join {pair[0]} and {pair[1]}",
                       ("links", li), hint="merge them into one link with the total lanes")
        seen.add(pair)
        lay.links.append(PcieLink(a, b, link.lanes, gen))
    _check_nic_links(lay, catalog)
    _assign(lay, catalog)
    _check_wired(lay, catalog)
    return lay


def _check_nic_links(lay: TrayLayout, catalog) -> None:
    """A NIC is an end of the PCIe tree: each of its host links has one link, and no link
    joins two NICs (a NIC named where a switch belongs, e.g. a component whose type is a
    DPU instead of a PCIe switch, would otherwise route GPUs through it)."""
    tray = lay.tray
    used: dict[tuple[str, str], int] = {}
    for li, link in enumerate(lay.links):
        nics = [e for e in (link.a, link.b) if isinstance(e.instance.part, Nic)]
        if len(nics) == 2:
            raise _err(catalog, tray, f"link joins two NICs, {link.a.label} and {link.b.label}",
                       ("links", li), hint=_kind_hint(tray, nics[1].instance))
        for e in nics:
            key = (e.instance.name, _host_link(e).name)
            used[key] = used.get(key, 0) + 1
            if used[key] > 1:
                raise _err(catalog, tray, f"NIC {e.instance.name} ({e.instance.part.slug}) has "
                           f"more than one PCIe link on its host link {key[1]!r}; a NIC is an "
                           "end of the PCIe tree", ("links", li),
                           hint=_kind_hint(tray, e.instance))


def _kind_hint(tray: ComputeTray, inst: Instance) -> str:
    ci = next((i for i, c in enumerate(tray.components) if c is inst.component), None)
    where = f"components[{ci}].type" if ci is not None else "the component's type"
    return (f"check {where} ({inst.part.slug}, a {inst.kind}): links through it need a PCIe "
            "switch or a CPU")


def _check_wired(lay: TrayLayout, catalog) -> None:
    """Every NIC interface a GPU/CPU drives must sit on a host link that is wired."""
    wired = {(e.instance.name, e.host_link or e.instance.part.host_links[0].name)  # type: ignore[attr-defined]
             for link in lay.links for e in (link.a, link.b) if isinstance(e.instance.part, Nic)}
    for i, a in enumerate(lay.assignments):
        nic: Nic = lay.instances[a.nic].part  # type: ignore[assignment]
        if nic.integrated:
            _check_integrated(lay, catalog, a, nic)
            continue
        if a.to == a.nic:
            continue
        iface = next(x for x in nic.interfaces if x.name == a.interface)
        if (a.nic, iface.host_link) not in wired:
            raise _err(catalog, lay.tray, f"{a.nic}:{a.interface} is driven by {a.to} but host "
                       f"link {a.nic}@{iface.host_link} has no PCIe link", ("links",),
                       hint=f"add a link from {a.nic}@{iface.host_link} toward {a.to}")


def _check_integrated(lay: TrayLayout, catalog, a: Assignment, nic: Nic) -> None:
    """An integrated NIC (ports on a GPU's die) serves exactly one GPU of its type."""
    gpu = lay.instances.get(a.to)
    if gpu is None or gpu.part.slug != nic.integrated_in:
        found = f"is assigned to {a.to}" if a.to != a.nic else "is not assigned"
        raise _err(catalog, lay.tray, f"{a.nic}:{a.interface} ({nic.slug}) {found}; its ports are "
                   f"on a {nic.integrated_in} die", ("nic_assignments",),
                   hint=f"assign {a.nic} to the {nic.integrated_in} GPU instance that carries it")
    budget, su = gpu.part.network_ports, gpu.part.scale_up  # type: ignore[attr-defined]
    used = (su.links * su.ports_per_link if su else 0) + len(nic.ports)
    if budget is not None and used > budget:
        raise _err(catalog, lay.tray, f"{a.to} ({gpu.part.slug}) has {budget} ports on its die; "
                   f"its scale-up uses {used - len(nic.ports)} and {a.nic} ({nic.slug}) "
                   f"{len(nic.ports)}", ("nic_assignments",),
                   hint=f"use an integrated NIC type with at most {budget - used + len(nic.ports)} ports")
    others = {b.nic for b in lay.assignments if b.to == a.to and b.nic != a.nic
              and lay.instances[b.nic].part.integrated}  # type: ignore[attr-defined]
    if others:
        raise _err(catalog, lay.tray, f"GPU {a.to} is given two integrated NICs ({a.nic}, "
                   f"{sorted(others)[0]})", ("nic_assignments",),
                   hint="one integrated NIC per GPU: list all of its scale-out ports in one NIC type")


def _expand_superchip(lay, name, part: Superchip, comp, catalog, file, ci) -> None:
    cpu = catalog.get(part.cpu.type, "cpu", file=file, path=("components", ci, "type"))
    gpu = catalog.get(part.gpus.type, "gpu", file=file, path=("components", ci, "type"))
    cpus = [f"{name}.cpu{j}" for j in range(part.cpu.count)]
    gpus = [f"{name}.gpu{j}" for j in range(part.gpus.count)]
    for n in cpus:
        lay.instances[n] = Instance(n, "cpu", cpu, comp, parent=name)
    for n in gpus:
        lay.instances[n] = Instance(n, "gpu", gpu, comp, parent=name)
    per_cpu = len(gpus) // len(cpus)
    for j, c in enumerate(cpus):
        lay.c2c.append(C2cGroup(c, tuple(gpus[j * per_cpu:(j + 1) * per_cpu]), part.c2c_gbyte_s))


def _endpoint(lay: TrayLayout, text: str, catalog, tray, path) -> Endpoint:
    name, _, host_link = text.partition("@")
    inst = lay.instances.get(name)
    if inst is None:
        raise _err(catalog, tray, f"unknown endpoint {name!r}", path,
                   hint=did_you_mean(name, lay.instances))
    if host_link:
        if not isinstance(inst.part, Nic):
            raise _err(catalog, tray, f"{name!r} is a {inst.kind}; only NICs have named host links", path)
        known = [h.name for h in inst.part.host_links]
        if host_link not in known:
            raise _err(catalog, tray, f"NIC {name!r} has no host link {host_link!r}", path,
                       hint=f"known: {known}")
    elif isinstance(inst.part, Nic) and inst.part.integrated:
        raise _err(catalog, tray, f"NIC {name!r} ({inst.part.slug}) is integrated in its GPU's die "
                   "and has no PCIe link", path,
                   hint=f"remove this link; assign {name} to its GPU in nic_assignments")
    elif isinstance(inst.part, Nic) and len(inst.part.host_links) > 1:
        raise _err(catalog, tray, f"NIC {name!r} has several host links; name one", path,
                   hint=f"write {name}@{inst.part.host_links[0].name}")
    elif not isinstance(inst.part, (Nic, Gpu, Cpu, PcieSwitch)):
        raise _err(catalog, tray, f"{name!r} ({inst.kind}) has no PCIe port", path)
    if isinstance(inst.part, Gpu) and inst.part.host_pcie is None:
        raise _err(catalog, tray, f"GPU {name!r} ({inst.part.slug}) has no PCIe host link in the catalog",
                   path, hint="set host_pcie on the GPU type, with its source")
    return Endpoint(inst, host_link or None)


def _host_link(end: Endpoint):
    nic: Nic = end.instance.part  # type: ignore[assignment]
    name = end.host_link or nic.host_links[0].name
    return next(h for h in nic.host_links if h.name == name)


def _gen(end: Endpoint) -> int:
    p = end.instance.part
    if isinstance(p, Nic):
        return _host_link(end).gen
    if isinstance(p, Gpu):
        return p.host_pcie.gen  # type: ignore[union-attr]
    if isinstance(p, Cpu):
        return p.pcie_gen
    return p.gen  # type: ignore[attr-defined]


def _lanes(end: Endpoint) -> int | None:
    p = end.instance.part
    if isinstance(p, Nic):
        return _host_link(end).lanes
    if isinstance(p, Gpu):
        return p.host_pcie.lanes  # type: ignore[union-attr]
    return None


def _assign(lay: TrayLayout, catalog) -> None:
    tray = lay.tray
    explicit: dict[tuple[str, str], str] = {}
    for ai, a in enumerate(tray.nic_assignments):
        nic_name, _, iface = a.interface.partition(":")
        inst = lay.instances.get(nic_name)
        path = ("nic_assignments", ai)
        if inst is None or not isinstance(inst.part, Nic):
            raise _err(catalog, tray, f"{nic_name!r} is not a NIC of this tray", path + ("interface",),
                       hint=did_you_mean(nic_name, [i.name for i in lay.of_kind("nic")]))
        names = [i.name for i in inst.part.interfaces]
        iface = iface or names[0]
        if iface not in names:
            raise _err(catalog, tray, f"NIC {nic_name!r} has no interface {iface!r}",
                       path + ("interface",), hint=f"known: {names}; the interfaces are "
                       f"defined in {_defined(catalog, inst.part)}")
        target = lay.instances.get(a.to)
        if target is None or target.kind not in ("gpu", "cpu"):
            raise _err(catalog, tray, f"{a.to!r} is not a GPU or CPU of this tray", path + ("to",),
                       hint=did_you_mean(a.to, [i.name for i in lay.instances.values()
                                                if i.kind in ("gpu", "cpu")]))
        if (nic_name, iface) in explicit:  # a repeat, or a second GPU for one interface
            raise _err(catalog, tray, f"{nic_name}:{iface} is assigned twice (to "
                       f"{explicit[(nic_name, iface)]} and {a.to})", path,
                       hint="one entry per NIC interface: remove the repeat")
        explicit[(nic_name, iface)] = a.to
    for inst in lay.of_kind("nic"):
        for iface in inst.part.interfaces:  # type: ignore[attr-defined]
            to = explicit.get((inst.name, iface.name), inst.name)
            lay.assignments.append(Assignment(inst.name, iface.name, to))


def check_catalog_references(catalog: Catalog) -> None:
    """Resolve every cross-reference once at load time (superchips, trays, switch trays)."""
    from infra.models.parts import NvlinkSwitchTray

    for entry in catalog:
        file = str(catalog.files.get(entry.slug))
        if isinstance(entry, Superchip):
            catalog.get(entry.cpu.type, "cpu", file=file, path=("cpu", "type"))
            catalog.get(entry.gpus.type, "gpu", file=file, path=("gpus", "type"))
            if entry.gpus.count % entry.cpu.count:
                raise CatalogError("GPU count must divide evenly among CPUs", file=file, path="gpus.count")
        elif isinstance(entry, NvlinkSwitchTray):
            catalog.get(entry.chips.type, "nvlink_switch_chip", file=file, path=("chips", "type"))
        elif isinstance(entry, ComputeTray):
            expand_tray(entry, catalog)
        elif getattr(entry, "collective_model", None):
            catalog.get(entry.collective_model, "collective_model", file=file,  # type: ignore[attr-defined]
                        path=("collective_model",))


__all__ = ["Instance", "NvlinkSwitchChip", "TrayLayout", "expand_tray"]
