"""Load a design file and resolve it against the catalog into counted building blocks.

Nothing is expanded per instance: the result holds each rack *layout* once with the
number of such racks in the cluster, and each scale-up domain *shape* once with its
count, so a 100k-GPU design costs what one pod costs.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from infra.errors import DesignError, InfeasibleDesignError, InfraError, did_you_mean
from infra.models.catalog import Catalog, load_catalog, validation_error
from infra.models.design import Design, ScaleUp
from infra.models.expand import TrayLayout, expand_tray
from infra.models.parts import Cable, Part
from infra.models.systems import ComputeTray, CoolingUnit, Rack
from infra.models.yamlio import line_of, read_yaml

CONTENT_KINDS = (
    "compute_tray",
    "nvlink_switch_tray",
    "network_switch",
    "power_shelf",
    "pdu",
    "cooling_unit",
    "rack_unit",
)


@dataclass(frozen=True)
class LayoutItem:
    part: Part
    count: int
    role: str | None = None
    cooling: str | None = None


@dataclass(frozen=True)
class ResolvedLayout:
    name: str
    rack: Rack
    items: tuple[LayoutItem, ...]

    def of_kind(self, kind: str) -> list[LayoutItem]:
        return list(self._kinds().get(kind, ((), 0))[0])

    def count(self, kind: str) -> int:
        return self._kinds().get(kind, ((), 0))[1]

    def _kinds(self) -> dict[str, tuple[tuple[LayoutItem, ...], int]]:
        """kind -> (its items in order, their count), worked out once per layout (the
        analyses ask thousands of times); kept beside the frozen fields."""
        kinds = self.__dict__.get("_by_kind")
        if kinds is None:
            items: dict[str, list[LayoutItem]] = {}
            for i in self.items:
                items.setdefault(i.part.kind, []).append(i)
            kinds = self.__dict__["_by_kind"] = {
                k: (tuple(v), sum(i.count for i in v)) for k, v in items.items()}
        return kinds

    @property
    def used_u(self) -> float:
        return sum(i.count * getattr(i.part, "u_height", 0) for i in self.items)


@dataclass(frozen=True)
class DomainShape:
    """A rack-level NVLink domain: which layouts (how many of each) form one domain."""

    layouts: tuple[tuple[str, int], ...]
    count: int  # how many such domains the cluster has
    pod: str | None
    cross_rack_cable: Cable | None = None
    torus: ScaleUp | None = None  # the pod's scale_up when it declares a switchless ring / torus domain


@dataclass(frozen=True)
class PodCoolingUse:
    unit: CoolingUnit
    explicit_count: int | None
    pod: str
    pod_count: int
    racks: tuple[tuple[str, int], ...]  # layouts served by one pod instance


@dataclass
class ResolvedDesign:
    design: Design
    file: Path
    catalog: Catalog
    layouts: dict[str, ResolvedLayout]
    rack_counts: Counter = field(default_factory=Counter)  # layout -> racks in cluster
    pod_counts: Counter = field(default_factory=Counter)
    domain_shapes: list[DomainShape] = field(default_factory=list)
    pod_cooling: list[PodCoolingUse] = field(default_factory=list)
    # Resolved once at load (issue 32): every catalog part the design names or its trays
    # hold, by slug, and each compute tray type expanded into its instances. Analyses read
    # these through part() and tray_layout(), never the catalog.
    parts: dict[str, Part] = field(default_factory=dict)
    tray_layouts: dict[str, TrayLayout] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.design.name

    def part(self, slug: str, kind: str | tuple[str, ...] | None = None, *,
             path: tuple | None = None) -> Part:
        """The catalog part ``slug`` as this design uses it.

        Parts the design's racks name, and every part inside its tray types, were resolved
        when the design was loaded; a part named elsewhere (a fabric tier's switch, optic
        or cable, a storage system, a GPU's collective model) is resolved on first use and
        kept. An unknown slug or a part of another ``kind`` raises :class:`DesignError`
        naming the design file and ``path``, the YAML path of the reference.

        Examples
        --------
        >>> from infra.models.starter import DESIGNS_DIR
        >>> rd = load_design(DESIGNS_DIR / "gb200_nvl72.yaml")
        >>> rd.part("nvidia-gb200-compute-tray").kind
        'compute_tray'
        """
        kinds = (kind,) if isinstance(kind, str) else kind
        hit = self.parts.get(slug)
        if hit is None or (kinds and hit.kind not in kinds):
            looked: dict = self.__dict__.setdefault("_looked_up", {})
            hit = looked.get(slug)
            if hit is None or (kinds and hit.kind not in kinds):
                hit = looked[slug] = find_part(self.catalog, self.file, slug, kind, path)
        return hit

    get = part  # a part source, as the catalog is (part-level figures take either)

    def tray_layout(self, tray: ComputeTray | str) -> TrayLayout:
        """Compute tray type ``tray`` (a part or its slug) expanded into its named
        instances (GPUs, CPUs, NICs, PCIe switches), expanded once at load."""
        slug = tray if isinstance(tray, str) else tray.slug
        lay = self.tray_layouts.get(slug)
        if lay is None:
            part = self.part(slug, "compute_tray")
            lay = self.tray_layouts[slug] = expand_tray(part, self.catalog)  # type: ignore[arg-type]
        return lay

    def tray_counts(self) -> Counter:
        """Compute tray slug -> count in the cluster."""
        out: Counter = Counter()
        for name, n in self.rack_counts.items():
            for item in self.layouts[name].of_kind("compute_tray"):
                out[item.part.slug] += n * item.count
        return out

    def tray_types(self) -> list[ComputeTray]:
        """Compute tray types used by the cluster's racks."""
        seen: dict[str, ComputeTray] = {}
        for name in self.rack_counts:
            for item in self.layouts[name].of_kind("compute_tray"):
                seen.setdefault(item.part.slug, item.part)  # type: ignore[arg-type]
        return list(seen.values())


def find_part(catalog: Catalog, file: Path, slug: str, kind, path: tuple | None) -> Part:
    """``slug`` from ``catalog`` for design ``file``; an unknown slug or another kind is a
    :class:`DesignError` at ``path``, with its line (parsed only then)."""
    try:
        return catalog.get(slug, kind, file=str(file), path=path, error_cls=DesignError)
    except InfraError as exc:
        if path is not None:
            exc.line = line_of(file, path)
            exc.args = (str(exc),)
        raise


def load_design(path: Path | str, catalog: Catalog | None = None) -> ResolvedDesign:
    """Parse, validate and resolve a design file.

    Raises
    ------
    DesignError
        Malformed YAML, unknown key, unknown slug, wrong kind, reference loop.
    InfeasibleDesignError
        Contents over a rack's U height; domains that do not divide the racks.
    """
    from infra.models.gcpause import gc_deferred

    path = Path(path)
    with gc_deferred():  # a large design allocates much and frees next to nothing
        return design_from_data(read_yaml(path, DesignError), path, catalog)


def design_from_data(data: object, path: Path | str, catalog: Catalog | None = None
                     ) -> ResolvedDesign:
    """Validate and resolve design data already parsed (a sweep's scenario, a notebook's
    dict); ``path`` is the file that errors name (the data's origin)."""
    path = Path(path)
    catalog = catalog or load_catalog()
    if not isinstance(data, dict):
        raise DesignError("a design file must be a YAML mapping", file=str(path), line=1,
                          hint="start with 'name:', 'racks:', 'build:'")
    try:
        design = Design.model_validate(data)
    except ValidationError as exc:
        raise validation_error(exc, path, DesignError) from None
    return _Resolver(design, path, catalog).run()


class _Resolver:
    """Resolve once per rack layout and once per pod definition.

    Notes
    -----
    Pods form a DAG (a pod may be held by several others). Each pod is visited once, in
    topological order, with its multiplicity summed over all parents, so the cost is
    linear in pod definitions and references whatever the depth; paths are never
    enumerated. Line numbers are looked up only when an error is raised.
    """

    def __init__(self, design: Design, file: Path, catalog: Catalog) -> None:
        self.d, self.file, self.cat = design, file, catalog
        self.out = ResolvedDesign(design, file, catalog, {})
        self._domains: dict[tuple, int] = {}  # (layouts, pod) -> index in domain_shapes
        self._parts: dict[tuple, Part] = {}  # (slug, kind) -> part, for lookups that succeeded
        self._items: dict[tuple, LayoutItem] = {}  # one item per distinct content (frozen)

    def err(self, msg: str, path: tuple, hint: str | None = None, cls=DesignError):
        return cls(msg, file=str(self.file), path=path, line=line_of(self.file, path), hint=hint)

    def get(self, slug: str, kind, path: tuple) -> Part:
        hit = self._parts.get((slug, kind))  # a slug found once is found again
        if hit is None:
            hit = self._parts[(slug, kind)] = find_part(self.cat, self.file, slug, kind, path)
        return hit

    def run(self) -> ResolvedDesign:
        for name, lay in self.d.racks.items():
            self.out.layouts[name] = self.layout(name, lay)
        mult: Counter = Counter()
        for name, count in self.d.build.items():
            mult[name] += count
        for name in self.order():
            if name in self.d.pods:
                self.visit_pod(name, mult[name])
                for sub, n in self.d.pods[name].pods.items():
                    mult[sub] += mult[name] * n
            else:
                self.out.rack_counts[name] += mult[name]
                lay = self.out.layouts[name]
                if lay.count("nvlink_switch_tray") and not lay.count("compute_tray"):
                    raise self.err(f"rack layout {name!r} holds only NVLink switch trays: on its "
                                   "own it joins no GPUs", ("racks", name),
                                   hint="list it in a pod beside the compute racks it serves "
                                   "(a second NVLink tier)", cls=InfeasibleDesignError)
                if lay.count("nvlink_switch_tray"):
                    self.add_domain(None, {name: 1}, mult[name], None)
        self.resolve_parts()
        return self.out

    def resolve_parts(self) -> None:
        """Keep every part looked up while resolving, expand each compute tray type the
        racks hold, and keep the parts inside it (resolved once, read by every analysis)."""
        parts = self.out.parts
        for (slug, _), part in self._parts.items():
            parts[slug] = part
        for name in self.out.rack_counts:
            for item in self.out.layouts[name].of_kind("nvlink_switch_tray"):
                chips = item.part.chips  # type: ignore[attr-defined]
                parts.setdefault(chips.type, self.cat.get(chips.type))
            for item in self.out.layouts[name].of_kind("compute_tray"):
                slug = item.part.slug
                if slug in self.out.tray_layouts:
                    continue
                lay = self.out.tray_layouts[slug] = expand_tray(item.part, self.cat)  # type: ignore[arg-type]
                for inst in lay.instances.values():
                    parts.setdefault(inst.part.slug, inst.part)

    def children(self, name: str) -> list[tuple[str, tuple]]:
        pod = self.d.pods.get(name)
        return [] if pod is None else [(s, ("pods", name, "pods", s)) for s in pod.pods]

    def order(self) -> list[str]:
        """Pods and racks reachable from ``build``, parents before children.

        Reverse post-order of an iterative depth-first search (children taken in reverse
        so a tree comes out in the file's order); raises on loops and unknown names.
        """
        done: set[str] = set()
        post: list[str] = []
        for root in reversed(list(self.d.build)):
            self.check_name(root, ("build", root))
            if root in done:
                continue
            stack = [(root, iter(reversed(self.children(root))))]
            on_stack = {root}
            while stack:
                name, todo = stack[-1]
                for sub, path in todo:
                    if sub in on_stack:
                        loop = " -> ".join([n for n, _ in stack] + [sub])
                        raise self.err(f"reference loop: {loop}", path,
                                       hint="a pod cannot contain itself")
                    self.check_name(sub, path)
                    if sub not in done:
                        stack.append((sub, iter(reversed(self.children(sub)))))
                        on_stack.add(sub)
                        break
                else:
                    stack.pop()
                    on_stack.discard(name)
                    done.add(name)
                    post.append(name)
        return post[::-1]

    def check_name(self, name: str, path: tuple) -> None:
        if name not in self.d.pods and name not in self.d.racks:
            raise self.err(f"{name!r} is neither a pod nor a rack layout of this design", path,
                           hint=did_you_mean(name, list(self.d.pods) + list(self.d.racks)))

    def layout(self, name: str, lay) -> ResolvedLayout:
        rack = self.get(lay.type, "rack", ("racks", name, "type"))
        items = []
        for i, c in enumerate(lay.contents):
            part = self.get(c.type, CONTENT_KINDS, ("racks", name, "contents", i, "type"))
            if isinstance(part, CoolingUnit) and part.placement != "in_rack":
                raise self.err(f"{part.slug!r} is an {part.placement} unit, not rack-mounted",
                               ("racks", name, "contents", i, "type"),
                               hint="list it under the pod's 'cooling:' instead")
            key = (part.slug, c.count, c.role, c.cooling)
            item = self._items.get(key)
            if item is None:
                item = self._items[key] = LayoutItem(part, c.count, c.role, c.cooling)
            items.append(item)
        res = ResolvedLayout(name, rack, tuple(items))  # type: ignore[arg-type]
        if res.used_u > rack.u_height:
            parts = ", ".join(f"{i.count} x {getattr(i.part, 'u_height', 0):g}U {i.part.slug}"
                              for i in items if getattr(i.part, "u_height", 0))
            raise self.err(f"contents need {res.used_u:g}U, rack {rack.slug!r} has {rack.u_height}U "
                           f"({parts})", ("racks", name, "contents"),
                           hint="remove units or use a taller rack", cls=InfeasibleDesignError)
        return res

    def visit_pod(self, name: str, mult: int) -> None:
        pod = self.d.pods[name]
        self.out.pod_counts[name] += mult
        for rack, n in pod.racks.items():
            if rack not in self.d.racks:
                raise self.err(f"unknown rack layout {rack!r}", ("pods", name, "racks", rack),
                               hint=did_you_mean(rack, self.d.racks))
            self.out.rack_counts[rack] += mult * n
        self.pod_domains(name, pod, mult)
        for ci, c in enumerate(pod.cooling):
            unit = self.get(c.type, "cooling_unit", ("pods", name, "cooling", ci, "type"))
            if unit.placement == "in_rack":  # type: ignore[attr-defined]
                raise self.err(f"{unit.slug!r} is an in-rack unit", ("pods", name, "cooling", ci),
                               hint="mount it in a rack layout's contents")
            self.out.pod_cooling.append(  # a pod's unit serves its nested pods' racks too
                PodCoolingUse(unit, c.count, name, mult, tuple(self.pod_racks(name).items()))  # type: ignore[arg-type]
            )

    def pod_racks(self, name: str) -> Counter:
        """Rack layouts in one instance of pod ``name``, nested pods included."""
        out: Counter = Counter(self.d.pods[name].racks)
        for sub, n in self.d.pods[name].pods.items():
            inner = self.pod_racks(sub) if sub in self.d.pods else Counter({sub: 1})
            for rack, k in inner.items():
                out[rack] += n * k
        return out

    def pod_domains(self, name: str, pod, mult: int) -> None:
        if pod.scale_up and pod.scale_up.torus:
            self.torus_domain(name, pod, mult)
            return
        if pod.scale_up and pod.scale_up.block:
            raise self.err("scale_up.block is for torus domains; this pod has no scale_up.torus",
                           ("pods", name, "scale_up", "block"), cls=InfeasibleDesignError)
        switched = {r: n for r, n in pod.racks.items()
                    if self.out.layouts[r].count("nvlink_switch_tray")}
        # racks holding only NVLink switch trays form a second tier over the compute racks
        spine = {r: n for r, n in switched.items() if not self.out.layouts[r].count("compute_tray")}
        switched = {r: n for r, n in switched.items() if r not in spine}
        rpd = pod.scale_up.racks_per_domain if pod.scale_up else 1
        cable = None
        if pod.scale_up and pod.scale_up.cross_rack_cable:
            cable = self.get(pod.scale_up.cross_rack_cable, "cable",
                             ("pods", name, "scale_up", "cross_rack_cable"))
        if not switched:
            if rpd > 1:
                raise self.err("scale_up.racks_per_domain > 1 but no rack of this pod has "
                               "NVLink switch trays", ("pods", name, "scale_up"),
                               cls=InfeasibleDesignError)
            return
        for rack, n in switched.items():
            if n % rpd:
                raise self.err(f"{n} racks of {rack!r} do not split into NVLink domains of {rpd} "
                               "racks", ("pods", name, "scale_up", "racks_per_domain"),
                               hint="make each switched rack layout's count a multiple of "
                               "racks_per_domain", cls=InfeasibleDesignError)
        if spine:
            self.tiered_domains(name, switched, spine, rpd, mult, cable)
            return
        if rpd > 1 and cable is None:
            raise self.err("a domain over several racks needs scale_up.cross_rack_cable",
                           ("pods", name, "scale_up"), hint="name the copper cable set's slug")
        for rack, n in switched.items():
            self.add_domain(name, {rack: rpd}, mult * (n // rpd), cable)

    def torus_domain(self, name: str, pod, mult: int) -> None:
        """One switchless ring / torus domain per instance of the pod (its racks listed
        directly); the chip count and the chips' ports are checked when the graph is built
        (:mod:`infra.topology.scaleup`)."""
        su = pod.scale_up
        where = ("pods", name, "scale_up")
        if pod.pods:
            raise self.err("a torus domain's pod lists its racks directly (racks:), not nested "
                           "pods", ("pods", name, "pods"), hint="nest the torus pod in another "
                           "pod instead", cls=InfeasibleDesignError)
        if su.racks_per_domain != 1 or su.cross_rack_cable:
            raise self.err("scale_up.torus makes one domain of the whole pod; racks_per_domain "
                           "and cross_rack_cable are for NVLink switch domains", where,
                           cls=InfeasibleDesignError)
        for rack in pod.racks:
            if self.out.layouts[rack].count("nvlink_switch_tray"):
                raise self.err(f"rack layout {rack!r} holds NVLink switch trays, but the pod's "
                               "scale_up.torus joins chips without switches",
                               ("pods", name, "racks", rack), cls=InfeasibleDesignError)
        if su.block is not None:
            if len(su.block) != len(su.torus) or any(t % b for t, b in zip(su.torus, su.block)):
                raise self.err(f"scale_up.block {list(su.block)} must have one entry per torus "
                               f"dimension, each dividing torus {list(su.torus)}",
                               where + ("block",), cls=InfeasibleDesignError)
        self.add_domain(name, dict(pod.racks), mult, None, torus=su)

    def tiered_domains(self, name: str, switched: dict, spine: dict, rpd: int, mult: int,
                       cable) -> None:
        """Domains of ``rpd`` compute racks each, sharing the pod's switch-only racks evenly."""
        path = ("pods", name, "racks")
        if len(switched) != 1:
            raise self.err(f"pod {name!r} has switch-only racks ({', '.join(spine)}) and "
                           f"{len(switched)} compute rack layouts with NVLink switch trays; a "
                           "two-tier NVLink domain takes exactly one", path,
                           hint="put each compute rack layout in its own pod", cls=InfeasibleDesignError)
        (rack, n), = switched.items()
        domains = n // rpd
        for s, k in spine.items():
            if k % domains:
                raise self.err(f"{k} switch-only racks of {s!r} do not split evenly over {domains} "
                               f"NVLink domains", path + (s,), hint=f"use a multiple of {domains}",
                               cls=InfeasibleDesignError)
        shape = {rack: rpd, **{s: k // domains for s, k in spine.items()}}
        self.add_domain(name, shape, mult * domains, cable)

    def add_domain(self, pod, shape: dict[str, int], count: int, cable, torus=None) -> None:
        key = tuple(sorted(shape.items())) if torus is None else tuple(shape.items())
        i = self._domains.get((key, pod))
        if i is not None:
            s = self.out.domain_shapes[i]
            self.out.domain_shapes[i] = DomainShape(key, s.count + count, pod, cable, torus)
            return
        self._domains[(key, pod)] = len(self.out.domain_shapes)
        self.out.domain_shapes.append(DomainShape(key, count, pod, cable, torus))
