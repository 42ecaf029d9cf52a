"""Catalog types for chips and network parts: GPUs, CPUs, superchips, NICs, switches,
optics and cables. Units are in the field names; bandwidth is per direction."""

# No ``from __future__ import annotations`` here: pydantic would evaluate each field's
# annotation from its string (a compile per field) when the class is created; with
# real annotations it reads them as they are (same types; schemas/ unchanged).

from typing import Annotated, Literal

from pydantic import Field, model_validator

from infra.models.base import (
    PerPartCount,
    Count,
    Lanes,
    NonNegFloat,
    PcieGen,
    PosFloat,
    PositiveCount,
    Slug,
    Sourced,
    Strict,
    WEIGHT_DOC,
)

PRECISIONS = ("fp64", "fp64_tensor", "fp32", "tf32", "bf16", "fp8", "fp6", "fp4", "int8")
# precisions that vendors also quote "with sparsity" (2:4 structured sparsity, tensor cores)
SPARSE_PRECISIONS = ("tf32", "bf16", "fp8", "fp6", "fp4", "int8")


class Part(Sourced):
    """Fields every catalog entry has."""

    slug: Slug = Field(description="vendor-model id that designs refer to; equals the file name.")
    vendor: str = Field(description="The part's vendor.")
    name: str = Field(description="The product's name, as shown in reports.")

    @property
    def power_w(self) -> float | None:
        """Power used in power/cooling sums: TDP for chips, max draw for systems."""
        return getattr(self, "tdp_w", None) or getattr(self, "max_power_w", None)

    @property
    def power_field(self) -> str:
        """Name of the field that holds :attr:`power_w` (for its source and tag)."""
        return "tdp_w" if getattr(self, "tdp_w", None) else "max_power_w"

    @property
    def typical_power_w(self) -> float | None:
        """Typical draw when published, else the maximum (a conservative stand-in)."""
        return getattr(self, "typical_w", None) or self.power_w


class Powered(Strict):
    """Power figures beside a part's maximum (``tdp_w`` / ``max_power_w``).

    ``typical_w`` is the vendor's typical draw; ``power_covered_by`` names the part
    whose published figure already includes this one (so it adds 0 W on purpose);
    ``power_bound_w`` is an upper bound stated where no figure or estimate exists, so
    an unknown is never an unbounded silent 0 W.
    """

    typical_w: PosFloat | None = None
    power_covered_by: Slug | None = None
    power_bound_w: PosFloat | None = None


class Ref(Strict):
    """A template reference to another catalog type: ``{type: slug, count: n}``."""

    type: Slug
    count: PerPartCount = 1


class PeakDenseTflops(Strict):
    """Peak dense (no 2:4 sparsity) TFLOPS per precision; ``int8`` is in TOPS.

    0 means the precision is not supported; unset (null) means no public figure.
    """

    fp64: NonNegFloat | None = None
    fp64_tensor: NonNegFloat | None = None
    fp32: NonNegFloat | None = None
    tf32: NonNegFloat | None = None
    bf16: NonNegFloat | None = None
    fp8: NonNegFloat | None = None
    fp6: NonNegFloat | None = None
    fp4: NonNegFloat | None = None
    int8: NonNegFloat | None = None


class PeakSparseTflops(Strict):
    """Peak TFLOPS *with 2:4 structured sparsity*, as vendors headline them (``int8``: TOPS).

    Kept apart from :class:`PeakDenseTflops` and never added to dense figures. NVIDIA's
    sparse figure is 2 x dense except Blackwell Ultra FP4 (dense = 0.75 x sparse).
    Unset (null): no published sparse figure; 0: not supported.
    """

    tf32: NonNegFloat | None = None
    bf16: NonNegFloat | None = None
    fp8: NonNegFloat | None = None
    fp6: NonNegFloat | None = None
    fp4: NonNegFloat | None = None
    int8: NonNegFloat | None = None


class ScaleUpPorts(Strict):
    """A GPU's scale-up (NVLink / Infinity Fabric / ICI / NeuronLink) ports.

    ``ring`` and ``torus`` chips join their neighbours directly, no switch: a pod's
    ``scale_up.torus`` gives the domain's shape (chips per dimension, wrap-around in each)
    and ``torus_links`` how many of the chip's links go to each dimension (both
    neighbours together: TPU v5p ``[2, 2, 2]``, one link to each of its 6 neighbours).
    """

    technology: str
    links: PositiveCount
    link_gbyte_s: PosFloat  # per link, per direction
    topology: Literal["switched", "mesh", "ring", "torus"] = "switched"
    ports_per_link: PositiveCount = 1  # Gaudi 3: 3 x 200 GbE bundled per peer
    torus_links: list[PositiveCount] | None = None  # ring / torus: links per dimension

    @property
    def gbyte_s(self) -> float:
        """Per-GPU scale-up bandwidth, per direction."""
        return self.links * self.link_gbyte_s

    @property
    def dimensions(self) -> tuple[int, ...]:
        """Links per dimension of a ring (one dimension) or torus chip; () otherwise."""
        if self.topology == "ring":
            return tuple(self.torus_links or (self.links,))
        return tuple(self.torus_links or ())

    @model_validator(mode="after")
    def _check_torus(self):  # noqa: ANN202
        dims = self.torus_links
        if self.topology in ("switched", "mesh"):
            if dims is not None:
                raise ValueError(f"torus_links is for ring and torus chips; topology is {self.topology}")
            return self
        if self.topology == "torus" and not dims:
            raise ValueError("a torus chip needs torus_links: its links per dimension "
                             "(TPU v5p: [2, 2, 2], one to each of 6 neighbours)")
        if self.topology == "ring" and dims is not None and len(dims) != 1:
            raise ValueError(f"a ring has one dimension; torus_links has {len(dims)} "
                             "(use topology: torus)")
        dims = self.dimensions
        if sum(dims) != self.links:
            raise ValueError(f"torus_links {list(dims)} add up to {sum(dims)} links, the chip "
                             f"declares {self.links}")
        odd = [i for i, n in enumerate(dims) if n % 2]
        if odd:
            raise ValueError(f"torus_links[{odd[0]}] = {dims[odd[0]]}: a dimension's links go "
                             "half to each of its two neighbours, so the count must be even")
        return self


class PcieHost(Strict):
    gen: PcieGen
    lanes: Lanes


class Gpu(Part, Powered):
    kind: Literal["gpu"] = "gpu"
    form_factor: str
    # HBM per GPU as the vendor states it. Vendors' HBM "GB" are binary-sized (an "80 GB"
    # H100 shows 81,559 MiB under nvidia-smi; AMD's 192/256/288 GB are 24/32/36 GiB
    # stacks), so the figure is GiB (2^30 bytes); hbm_gbyte is it in 10^9 bytes.
    hbm_gib: PosFloat | None = None
    hbm_tbyte_s: PosFloat | None = None
    tdp_w: PosFloat | None = None
    peak_dense_tflops: PeakDenseTflops
    # vendor "with sparsity" figures; the default is built without running the validator
    # (all fields at their defaults: equal to PeakSparseTflops(), tests/test_startup.py), so
    # importing the module builds no validator (defer_build, infra/models/base.py)
    peak_sparse_tflops: PeakSparseTflops = PeakSparseTflops.model_construct()
    mamf_bf16_tflops: PosFloat | None = None  # measured max achievable BF16 matmul
    scale_up: ScaleUpPorts | None = None
    # Ethernet ports on the die shared by the scale-up mesh and integrated scale-out NICs
    network_ports: PositiveCount | None = None
    host_pcie: PcieHost | None = None  # None when the host link is NVLink-C2C
    # CUDA compute capability "major.minor" (NVIDIA only; NCCL's <gpu sm=...> is it x 10)
    compute_capability: Annotated[str, Field(pattern=r"^\d+\.\d$")] | None = None
    # PCI device ids the driver reports for this GPU (``0x2330``), for matching
    # inventory dumps (nvidia-smi ``pci_device_id``) to catalog types
    pci_device_ids: list[Annotated[str, Field(pattern=r"^0x[0-9a-f]{4}$")]] = []
    # the collective library's cost model for this GPU (catalog kind collective_model)
    collective_model: Slug | None = None

    @model_validator(mode="before")
    @classmethod
    def _hbm_gb_renamed(cls, data):  # noqa: ANN001, ANN206
        if isinstance(data, dict) and "hbm_gb" in data:
            raise ValueError(
                "hbm_gb is now hbm_gib: vendors' HBM 'GB' are binary-sized (an '80 GB' H100 "
                "is 80 GiB = 85.9 x 10^9 bytes); rename the key to hbm_gib and keep the number")
        return data

    @property
    def hbm_gbyte(self) -> float | None:
        """HBM per GPU in GB of 10^9 bytes (``hbm_gib`` x 2^30 / 10^9), for byte counts."""
        from infra.units import gib_to_gbyte

        return None if self.hbm_gib is None else gib_to_gbyte(self.hbm_gib)

    @property
    def mamf_bf16_efficiency(self) -> float | None:
        peak = self.peak_dense_tflops.bf16
        if self.mamf_bf16_tflops is None or not peak:
            return None
        return self.mamf_bf16_tflops / peak


class CpuId(Strict):
    """What the OS (and NCCL's topology XML) reports for a CPU: ISA, CPUID vendor/family/model."""

    isa: Literal["x86_64", "arm64", "ppc64"]
    vendor: str | None = None  # CPUID vendor string, x86 only (GenuineIntel, AuthenticAMD)
    # CPUID display family: base (4 bits) + extended (8 bits, when base is 15): 0..270;
    # display model: extended (4 bits) and base (4 bits): 0..255
    family: int | None = Field(None, ge=0, le=270)
    model: int | None = Field(None, ge=0, le=255)


class Cpu(Part, Powered):
    kind: Literal["cpu"] = "cpu"
    architecture: str
    cpuid: CpuId | None = None
    cores: PositiveCount
    base_ghz: PosFloat | None = None
    memory_gb: PosFloat | None = None
    memory_gbyte_s: PosFloat | None = None
    pcie_gen: PcieGen
    pcie_lanes: PositiveCount | None = None
    tdp_w: PosFloat | None = None


class Superchip(Part, Powered):
    """CPU(s) and GPU(s) joined by NVLink-C2C in one module (explicit composition)."""

    kind: Literal["superchip"] = "superchip"
    cpu: Ref
    gpus: Ref
    c2c_gbyte_s: PosFloat  # per CPU, per direction, shared by that CPU's GPUs
    tdp_w: PosFloat | None = None  # whole module (CPU + GPUs + memory)


class NicPort(Strict):
    name: str
    gbit_s: PosFloat


class NicHostLink(Strict):
    name: str
    gen: PcieGen
    lanes: Lanes


class NicInterface(Strict):
    """A logical interface the host sees; several may share one physical port."""

    name: str
    port: str
    host_link: str | None = None  # None only on an integrated NIC (no PCIe host link)
    gbit_s: PosFloat
    protocols: list[str] = []


class Nic(Part, Powered):
    """A network adapter. ``role: integrated`` describes Ethernet ports on an accelerator's
    own die used for scale-out (Intel Gaudi 3: 3 of its 24 x 200 GbE RoCE ports per
    accelerator on the HLS-Gaudi3 baseboard): no PCIe host link, ``integrated_in`` names
    the GPU type, and the tray assigns each such NIC instance to one GPU of that type."""

    kind: Literal["nic"] = "nic"
    role: Literal["nic", "dpu", "supernic", "integrated"] = "nic"
    integrated_in: Slug | None = None
    ports: list[NicPort]
    host_links: list[NicHostLink] = []
    interfaces: list[NicInterface]
    max_power_w: PosFloat | None = None

    @property
    def integrated(self) -> bool:
        """True for ports on a GPU's own die (:attr:`integrated_in`)."""
        return self.role == "integrated"

    @model_validator(mode="after")
    def _check_integrated(self):  # noqa: ANN202
        if self.integrated:
            if self.integrated_in is None:
                raise ValueError("role integrated needs integrated_in: the GPU type whose die "
                                 "carries the ports")
            if self.host_links:
                raise ValueError("an integrated NIC has no PCIe host_links (its ports are on the "
                                 "GPU's die); remove them")
            for i in self.interfaces:
                if i.host_link is not None:
                    raise ValueError(f"interface {i.name!r}: an integrated NIC has no host_link")
        else:
            if self.integrated_in is not None:
                raise ValueError("integrated_in is only for role: integrated")
            if not self.host_links:
                raise ValueError("host_links: a NIC needs at least one PCIe host link "
                                 "(or role: integrated for ports on a GPU's die)")
            for i in self.interfaces:
                if i.host_link is None:
                    raise ValueError(f"interface {i.name!r} needs a host_link")
        return self

    @model_validator(mode="after")
    def _check_refs(self):  # noqa: ANN202
        for what, items in (("port", self.ports), ("host_link", self.host_links),
                            ("interface", self.interfaces)):
            names = [x.name for x in items]
            dup = sorted({n for n in names if names.count(n) > 1})
            if dup:
                raise ValueError(f"{what} name {dup[0]!r} is defined twice; names must be unique")
        ports = {p.name: p for p in self.ports}
        links = {h.name for h in self.host_links}
        for i in self.interfaces:
            if i.port not in ports:
                raise ValueError(f"interface {i.name!r}: port {i.port!r} not in {sorted(ports)}")
            if i.host_link is not None and i.host_link not in links:
                raise ValueError(
                    f"interface {i.name!r}: host_link {i.host_link!r} not in {sorted(links)}"
                )
            if i.gbit_s > ports[i.port].gbit_s:
                raise ValueError(
                    f"interface {i.name!r}: {i.gbit_s} Gb/s exceeds port {i.port!r} "
                    f"({ports[i.port].gbit_s} Gb/s)"
                )
        return self

    @property
    def port_gbit_s(self) -> float:
        return sum(p.gbit_s for p in self.ports)


class PcieSwitch(Part, Powered):
    kind: Literal["pcie_switch"] = "pcie_switch"
    gen: PcieGen
    lanes: PositiveCount | None = None
    max_power_w: PosFloat | None = None


class NvlinkSwitchChip(Part, Powered):
    kind: Literal["nvlink_switch_chip"] = "nvlink_switch_chip"
    technology: str
    ports: PositiveCount
    port_gbyte_s: PosFloat  # per port, per direction
    max_power_w: PosFloat | None = None


class NvlinkSwitchTray(Part, Powered):
    kind: Literal["nvlink_switch_tray"] = "nvlink_switch_tray"
    u_height: PosFloat
    chips: Ref
    max_power_w: PosFloat | None = None
    weight_kg: PosFloat | None = Field(None, description=WEIGHT_DOC)


class NetworkSwitch(Part, Powered):
    kind: Literal["network_switch"] = "network_switch"
    asic: str
    protocol: Literal["infiniband", "ethernet", "pcie", "other"]
    ports: PositiveCount  # radix at port_gbit_s
    port_gbit_s: PosFloat
    cages: Count | None = None  # physical cages (e.g. 32 twin-port OSFP)
    in_network_reduction: bool = False  # SHARP (InfiniBand Quantum): NCCL CollNet can use it
    u_height: PosFloat | None = None
    max_power_w: PosFloat | None = None
    weight_kg: PosFloat | None = Field(None, description=WEIGHT_DOC)

    @property
    def capacity_tbit_s(self) -> float:
        """Switching capacity, one direction (ports x speed)."""
        return self.ports * self.port_gbit_s / 1000


class Optic(Part, Powered):
    kind: Literal["optic"] = "optic"
    form_factor: str
    gbit_s: PosFloat
    reach_m: PosFloat | None = None
    fiber: Literal["single_mode", "multi_mode"] | None = None
    max_power_w: PosFloat | None = None


class Cable(Part, Powered):
    kind: Literal["cable"] = "cable"
    medium: Literal["copper_passive", "copper_active", "aoc", "fiber"]
    gbit_s: PosFloat
    reach_m: PosFloat | None = None
    max_power_w: NonNegFloat | None = None
