"""Aggregate compute: GPUs, CPUs, HBM and CPU memory, peak dense, sparse and achievable FLOPS.

Assumptions
-----------
- Peak figures are the catalog's dense (no-sparsity) datasheet ceilings. Vendors'
  "with sparsity" (2:4) figures are summed separately (``peak_sparse_pflops``), never
  into the dense ones.
- CPU memory is the CPU type's catalog capacity and bandwidth (Grace: up to 480 GB
  LPDDR5X, 512 GB/s; x86 servers: the configured DDR5 when the catalog has it).
  Combined memory = HBM + CPU memory, the figure NVIDIA quotes for Grace systems
  ("fast memory", DGX GH200's 144 TB).
- Achievable BF16 = peak BF16 x measured MAMF efficiency (max achievable matmul FLOPS,
  stas00/ml-engineering); GPUs without a published MAMF are listed, not guessed.
- A precision is ``None`` for the design when any GPU's figure for it is unknown; 0
  when no GPU supports it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from infra.models.expand import TrayLayout
from infra.models.parts import PRECISIONS, SPARSE_PRECISIONS, Cpu, Gpu
from infra.models.resolve import ResolvedDesign, ResolvedLayout
from infra.units import gb_to_tb, gib_to_gbyte, tflops_to_pflops


@dataclass(frozen=True)
class ComputeSummary:
    """Compute figures of a set of GPUs/CPUs (a rack or the whole design)."""

    gpus: int
    cpus: int
    cpu_cores: int
    gpu_types: dict[str, int]
    hbm_tbyte: float | None  # 10^12 bytes (vendors' HBM 'GB' are GiB: converted)
    hbm_tbyte_s: float | None
    peak_dense_pflops: dict[str, float | None]  # precision -> PFLOPS (int8: POPS)
    achievable_bf16_pflops: float | None  # None unless every GPU has a published MAMF
    gpus_without_mamf: dict[str, int] = field(default_factory=dict)
    peak_sparse_pflops: dict[str, float | None] = field(default_factory=dict)  # with 2:4 sparsity
    cpu_memory_tbyte: float | None = None  # None when a CPU type has no memory figure
    cpu_memory_tbyte_s: float | None = None
    hbm_gib: float | None = None  # the vendors' own figures summed ("13.4 TB" = 13,392 GiB)

    @property
    def combined_memory_tbyte(self) -> float | None:
        """HBM + CPU memory (None when either is unknown)."""
        if self.hbm_tbyte is None or self.cpu_memory_tbyte is None:
            return None
        return self.hbm_tbyte + self.cpu_memory_tbyte


def gpu_cpu_counts(rd: ResolvedDesign, layouts: dict[str, int] | None = None) -> tuple[Counter, Counter]:
    """GPU and CPU slug -> count over ``layouts`` (layout -> racks; default the cluster)."""
    gpus: Counter = Counter()
    cpus: Counter = Counter()
    for lname, racks in (layouts or rd.rack_counts).items():
        for item in rd.layouts[lname].of_kind("compute_tray"):
            tray_gpus, tray_cpus = _tray_chips(rd, item.part)
            n = racks * item.count
            for slug, k in tray_gpus:
                gpus[slug] += n * k
            for slug, k in tray_cpus:
                cpus[slug] += n * k
    return gpus, cpus


def _tray_chips(rd: ResolvedDesign, tray) -> tuple[tuple, tuple]:
    """((GPU slug, count), ...), ((CPU slug, count), ...) of one tray type, in instance
    order; once per tray type."""
    memo = rd.__dict__.setdefault("_tray_chips", {})
    hit = memo.get(tray.slug)
    if hit is None:
        lay = rd.tray_layout(tray)
        hit = memo[tray.slug] = tuple(
            tuple(Counter(i.part.slug for i in lay.of_kind(k)).items()) for k in ("gpu", "cpu"))
    return hit


def tray_cpu_memory_gb(lay: TrayLayout) -> float | None:
    """CPU memory of one tray type (``lay``: the type expanded): the tray's configured
    ``cpu_memory_gb`` (x86 servers: DIMMs) or else the sum of its CPUs' catalog memory
    (Grace: LPDDR5X); None when unknown.

    Examples
    --------
    >>> from infra.models.catalog import load_catalog
    >>> from infra.models.expand import expand_tray
    >>> cat = load_catalog()
    >>> tray_cpu_memory_gb(expand_tray(cat.get("nvidia-gb300-compute-tray"), cat))  # 2 Grace x 480 GB
    960.0
    >>> tray_cpu_memory_gb(expand_tray(cat.get("nvidia-dgx-h100"), cat))  # configured DDR5 DIMMs
    2048.0
    """
    if lay.tray.cpu_memory_gb is not None:
        return lay.tray.cpu_memory_gb
    return _sum([(i.part.memory_gb, 1) for i in lay.of_kind("cpu")])


def summarize_compute(rd: ResolvedDesign, layouts: dict[str, int] | None = None) -> ComputeSummary:
    """Compute figures of the design (or of ``layouts``: layout name -> rack count)."""
    gpus, cpus = gpu_cpu_counts(rd, layouts)
    types = {s: rd.part(s) for s in gpus}
    cpu_types = {s: rd.part(s) for s in cpus}
    mem = _sum([(_tray_memory(rd, item.part), racks * item.count)
                for lname, racks in (layouts or rd.rack_counts).items()
                for item in rd.layouts[lname].of_kind("compute_tray")])
    return aggregate(gpus, types, cpus, cpu_types, mem)  # type: ignore[arg-type]


def _tray_memory(rd: ResolvedDesign, tray) -> float | None:
    """:func:`tray_cpu_memory_gb`, once per tray type."""
    memo = rd.__dict__.setdefault("_tray_memory", {})
    if tray.slug not in memo:
        memo[tray.slug] = tray_cpu_memory_gb(rd.tray_layout(tray))
    return memo[tray.slug]


def _sum(vals: list[tuple[float | None, int]]) -> float | None:
    """Sum of value x count, None when any value is unknown."""
    return None if any(v is None for v, _ in vals) else sum(v * n for v, n in vals)  # type: ignore[operator]


_FROM_CPUS = object()


def aggregate(gpus: Counter, types: dict[str, Gpu], cpus: Counter | None = None,
              cpu_types: dict[str, Cpu] | None = None,
              cpu_memory_gb: float | None | object = _FROM_CPUS) -> ComputeSummary:
    """Sum figures over ``gpus`` (slug -> count) and ``cpus`` (slug -> count).

    ``cpu_memory_gb`` overrides the CPU types' memory (trays that configure their own).

    Examples
    --------
    >>> from infra.models.catalog import load_catalog
    >>> cat = load_catalog()
    >>> s = aggregate(Counter({"nvidia-b300-gb300": 72}), {"nvidia-b300-gb300": cat.get("nvidia-b300-gb300")})
    >>> s.peak_dense_pflops["fp4"], s.peak_sparse_pflops["fp4"]  # 72 x 15 / 72 x 20 PF
    (1080.0, 1440.0)
    """
    cpus = cpus or Counter()
    cpu_types = cpu_types or {}
    peak: dict[str, float | None] = {}
    for prec in PRECISIONS:
        vals = [(getattr(types[s].peak_dense_tflops, prec), n) for s, n in gpus.items()]
        peak[prec] = (None if any(v is None for v, _ in vals)
                      else tflops_to_pflops(sum(v * n for v, n in vals)))
    sparse = {prec: _sum([(getattr(types[s].peak_sparse_tflops, prec), n) for s, n in gpus.items()])
              for prec in SPARSE_PRECISIONS}
    cpu_gb = (_sum([(cpu_types[s].memory_gb, n) for s, n in cpus.items()])
              if cpu_memory_gb is _FROM_CPUS else cpu_memory_gb)
    cpu_bw = _sum([(cpu_types[s].memory_gbyte_s, n) for s, n in cpus.items()])
    hbm = [(types[s].hbm_gib, n) for s, n in gpus.items()]
    bw = [(types[s].hbm_tbyte_s, n) for s, n in gpus.items()]
    achievable = 0.0
    missing: dict[str, int] = {}
    for s, n in gpus.items():
        g = types[s]
        if g.mamf_bf16_tflops is None:
            missing[s] = n
        else:
            achievable += g.mamf_bf16_tflops * n
    return ComputeSummary(
        gpus=sum(gpus.values()),
        cpus=sum(cpus.values()),
        cpu_cores=sum(cpu_types[s].cores * n for s, n in cpus.items()),
        gpu_types=dict(gpus),
        hbm_tbyte=(None if any(v is None for v, _ in hbm)
                   else gb_to_tb(gib_to_gbyte(sum(v * n for v, n in hbm)))),
        hbm_gib=None if any(v is None for v, _ in hbm) else float(sum(v * n for v, n in hbm)),
        hbm_tbyte_s=None if any(v is None for v, _ in bw) else sum(v * n for v, n in bw),
        peak_dense_pflops=peak,
        # only when every GPU has a measured MAMF: a partial sum would read as the whole
        achievable_bf16_pflops=None if missing else tflops_to_pflops(achievable),
        gpus_without_mamf=missing,
        peak_sparse_pflops={p: None if v is None else tflops_to_pflops(v) for p, v in sparse.items()},
        cpu_memory_tbyte=None if cpu_gb is None else gb_to_tb(cpu_gb),
        cpu_memory_tbyte_s=None if cpu_bw is None else gb_to_tb(cpu_bw),
    )


def layout_compute(rd: ResolvedDesign, layout: ResolvedLayout) -> ComputeSummary:
    """Compute figures of one rack of ``layout`` (once per distinct list of compute trays:
    the figures depend on nothing else)."""
    key = tuple((i.part.slug, i.count) for i in layout.of_kind("compute_tray"))
    memo = rd.__dict__.setdefault("_layout_compute", {})
    hit = memo.get(key)
    if hit is None:
        hit = memo[key] = summarize_compute(rd, {layout.name: 1})
    return hit


def domain_memory(rd: ResolvedDesign, dom) -> ComputeSummary | None:
    """Compute and memory figures of ONE scale-up domain of shape ``dom`` (None for
    GPUs without a scale-up domain). Combined memory = what every GPU of the domain
    reaches over NVLink: its HBM plus the CPU memory behind the domain's Grace CPUs.

    Examples
    --------
    >>> from infra.models.resolve import load_design
    >>> from infra.topology.scaleup import scale_up_domains
    >>> rd = load_design("designs/dgx_gh200_256.yaml")
    >>> # 256 x (96 GiB HBM = 103.079 GB, + 480 GB LPDDR5X) = 256 x 583.079 GB
    >>> round(domain_memory(rd, scale_up_domains(rd)[0]).combined_memory_tbyte, 3)
    149.268
    """
    if dom.scope == "gpu":
        return None
    memo = rd.__dict__.setdefault("_domain_memory", {})  # domains share graphs: once each
    hit = memo.get(id(dom.graph))
    if hit is None:
        hit = memo[id(dom.graph)] = (dom.graph, _domain_memory(rd, dom))  # keeps id() valid
    return hit[1]


def _domain_memory(rd: ResolvedDesign, dom) -> ComputeSummary:
    gpus: Counter = Counter()
    cpus: Counter = Counter()
    mem: list[tuple[float | None, int]] = []
    for _, d in dom.graph.nodes(data=True):
        if d["kind"] == "gpu":
            gpus[d["slug"]] += 1
        elif d["kind"] == "compute_tray":
            lay = rd.tray_layout(d["slug"])
            mem.append((tray_cpu_memory_gb(lay), 1))
            for inst in lay.of_kind("cpu"):
                cpus[inst.part.slug] += 1
    return aggregate(gpus, {s: rd.part(s) for s in gpus},  # type: ignore[misc]
                     cpus, {s: rd.part(s) for s in cpus}, _sum(mem))  # type: ignore[misc]
