"""Descriptions of the catalog fields (units, meaning, what to write), one table.

:class:`infra.models.base.Strict` gives every model field without its own
``description`` the entry ``"<Model>.<field>"`` of :data:`FIELD_DOCS`, else the entry
``"<field>"``, so the generated JSON Schemas (``schemas/catalog-*.schema.json``) carry a
description on every property and an editor shows it on hover. ``kind`` fields get
theirs from their fixed value. ``tests/test_schema_descriptions.py`` fails when a
catalog field has none.

Examples
--------
>>> from infra.models.parts import Gpu
>>> Gpu.model_fields["hbm_gib"].description
"HBM capacity per GPU as the vendor states it, in GiB (2^30 bytes): vendors' HBM 'GB' are binary-sized (an '80 GB' H100 is 80 GiB = 85.9 x 10^9 bytes)."
"""

from __future__ import annotations

_FIG = "0 = not supported; unset (null) = no public figure."

FIELD_DOCS: dict[str, str] = {
    # power, shared by every powered part (Powered)
    "typical_w": "Typical draw in W when the vendor publishes one; unset: the maximum stands in.",
    "power_covered_by": ("Slug of the part whose published power already includes this one (it "
                         "then adds 0 W), e.g. a PCIe switch inside a NIC, ports on a GPU's die."),
    "power_bound_w": ("Upper bound in W, stated where no figure or estimate exists, so an "
                      "unknown is never a silent 0 W (the totals say how much it could add)."),
    "max_power_w": ("Maximum draw in W (the published figure, or an estimate tagged in "
                    "sources); unset: unknown (then give power_bound_w)."),
    "tdp_w": "Thermal design power in W, the vendor's figure.",
    "u_height": "Rack units (U) the unit occupies; 0 for zero-U parts (vertical PDUs).",
    "technology": "Scale-up technology and generation, free text (NVLink 5, Infinity Fabric, RoCE).",
    "form_factor": "Physical form, free text (SXM5, OAM, OSFP, QSFP112...), shown in reports.",
    # GPU
    "Gpu.hbm_gib": ("HBM capacity per GPU as the vendor states it, in GiB (2^30 bytes): "
                    "vendors' HBM 'GB' are binary-sized (an '80 GB' H100 is 80 GiB = 85.9 x "
                    "10^9 bytes)."),
    "Gpu.hbm_tbyte_s": "HBM bandwidth per GPU in TB/s.",
    "Gpu.peak_dense_tflops": "Peak dense (no sparsity) TFLOPS per precision; int8 in TOPS.",
    "Gpu.peak_sparse_tflops": ("Peak TFLOPS with 2:4 structured sparsity per precision, as vendors "
                               "headline them; kept apart, never added to dense figures."),
    "Gpu.mamf_bf16_tflops": ("Measured maximum achievable BF16 matmul TFLOPS (a benchmark, with "
                             "its source); gives the achievable-FLOPS figures."),
    "Gpu.scale_up": "The GPU's scale-up ports (NVLink, Infinity Fabric, RoCE mesh); unset: none.",
    "Gpu.host_pcie": "The GPU's PCIe host link; unset when the host link is NVLink-C2C (superchips).",
    "Gpu.compute_capability": "CUDA compute capability 'major.minor' (NVIDIA only), e.g. '9.0'.",
    "Gpu.collective_model": ("Slug of the collective library's cost model for this GPU (catalog kind "
                             "collective_model, e.g. nccl-sm90); unset: collectives are not predicted."),
    "NetworkSwitch.in_network_reduction": ("True when the switch reduces in the network (NVIDIA "
                                           "SHARP on Quantum InfiniBand), which NCCL's CollNet uses."),
    "Gpu.pci_device_ids": ("PCI device ids the driver reports for this GPU ('0x2330'), to match "
                           "inventory dumps (nvidia-smi pci_device_id) to this type."),
    "PeakDenseTflops.fp64": f"FP64 (vector) TFLOPS, dense. {_FIG}",
    "PeakDenseTflops.fp64_tensor": f"FP64 tensor-core TFLOPS, dense. {_FIG}",
    "PeakDenseTflops.fp32": f"FP32 TFLOPS, dense. {_FIG}",
    "PeakDenseTflops.tf32": f"TF32 tensor TFLOPS, dense. {_FIG}",
    "PeakDenseTflops.bf16": f"BF16 tensor TFLOPS, dense. {_FIG}",
    "PeakDenseTflops.fp8": f"FP8 tensor TFLOPS, dense. {_FIG}",
    "PeakDenseTflops.fp6": f"FP6 tensor TFLOPS, dense. {_FIG}",
    "PeakDenseTflops.fp4": f"FP4 tensor TFLOPS, dense. {_FIG}",
    "PeakDenseTflops.int8": f"INT8 tensor TOPS, dense. {_FIG}",
    "PeakSparseTflops.tf32": f"TF32 TFLOPS with 2:4 sparsity. {_FIG}",
    "PeakSparseTflops.bf16": f"BF16 TFLOPS with 2:4 sparsity. {_FIG}",
    "PeakSparseTflops.fp8": f"FP8 TFLOPS with 2:4 sparsity. {_FIG}",
    "PeakSparseTflops.fp6": f"FP6 TFLOPS with 2:4 sparsity. {_FIG}",
    "PeakSparseTflops.fp4": f"FP4 TFLOPS with 2:4 sparsity. {_FIG}",
    "PeakSparseTflops.int8": f"INT8 TOPS with 2:4 sparsity. {_FIG}",
    "ScaleUpPorts.links": ("Scale-up links per GPU: one link joins one switch port or, in a mesh, "
                           "one peer (a bundle of ports to one peer counts once: Gaudi 3's 3 x "
                           "200 GbE per peer is one link)."),
    "ScaleUpPorts.ports_per_link": ("Physical ports bundled into one link (default 1; Gaudi 3: 3 x "
                                    "200 GbE per peer); counted against the GPU's network_ports."),
    "Gpu.network_ports": ("Ethernet ports on the GPU's own die (Gaudi 3: 24 x 200 GbE), shared by "
                          "its scale-up links (links x ports_per_link) and an integrated NIC's "
                          "ports; a tray that uses more is an error. Unset: none on the die."),
    "ScaleUpPorts.link_gbyte_s": "Bandwidth of one link in GB/s, per direction.",
    "ScaleUpPorts.topology": ("switched: links go to scale-up switch chips; mesh: one link "
                              "straight to each peer GPU of the server, no switch; ring / "
                              "torus: links straight to the neighbours of a ring or an "
                              "n-dimensional torus (wrap-around) whose shape the pod's "
                              "scale_up.torus gives."),
    "ScaleUpPorts.torus_links": ("Ring / torus chips: links per dimension, both neighbours "
                                 "together (even; must add up to links). TPU v5p [2, 2, 2]; "
                                 "a ring chip defaults to [links]."),
    "PcieHost.gen": "PCIe generation of the host link (1-6).",
    "PcieHost.lanes": "PCIe lanes of the host link (x16...).",
    # CPU
    "Cpu.architecture": "Microarchitecture, free text (Neoverse V2, Zen 4, Sapphire Rapids).",
    "Cpu.cpuid": "What the OS reports for the CPU (ISA, CPUID vendor/family/model), for ingest matching.",
    "Cpu.cores": "Physical cores per CPU.",
    "Cpu.base_ghz": "Base clock in GHz.",
    "Cpu.memory_gb": ("CPU memory in GB when fixed by the CPU itself (Grace's LPDDR5X); x86 DIMMs "
                      "are a server choice: give them as the tray's cpu_memory_gb."),
    "Cpu.memory_gbyte_s": "CPU memory bandwidth in GB/s.",
    "Cpu.pcie_gen": "PCIe generation of the CPU's root ports (1-6).",
    "Cpu.pcie_lanes": "PCIe lanes the CPU offers.",
    "CpuId.isa": "Instruction set: x86_64, arm64 or ppc64.",
    "CpuId.vendor": "CPUID vendor string, x86 only (GenuineIntel, AuthenticAMD).",
    "CpuId.family": "CPUID display family.",
    "CpuId.model": "CPUID display model.",
    # superchip and references
    "Superchip.cpu": "The module's CPU type and count per module.",
    "Superchip.gpus": "The module's GPU type and count per module (split evenly over its CPUs).",
    "Superchip.c2c_gbyte_s": "NVLink-C2C bandwidth per CPU in GB/s per direction, shared by that CPU's GPUs.",
    "Superchip.tdp_w": "Module TDP in W (CPU + GPUs + memory); unset: the sum of its chips.",
    "Ref.type": "Slug of the referenced catalog part.",
    "Ref.count": "How many of it (default 1).",
    # NICs
    "Nic.role": ("nic, dpu, supernic, or integrated: Ethernet ports on an accelerator's own die "
                 "used for scale-out (Gaudi 3), with no PCIe host link."),
    "Nic.integrated_in": ("role integrated only: slug of the GPU type whose die carries the ports; "
                          "a tray assigns each such NIC instance to one GPU of that type."),
    "Nic.ports": "Physical network ports (name, Gb/s); a fabric's node ports are these.",
    "Nic.host_links": ("PCIe host links (name, gen, lanes); a NIC with several is wired per link "
                       "as nic0@<name>; empty only for role integrated."),
    "Nic.interfaces": ("Logical interfaces the host sees (name, port, host link, Gb/s); several "
                       "may share one port; nic_assignments name them as nic0:<name>."),
    "NicPort.name": "Port name (p0, p1...), unique in the NIC.",
    "NicPort.gbit_s": "Port line rate in Gb/s.",
    "NicHostLink.name": "Host-link name (gpu_side, cpu_side...), unique in the NIC.",
    "NicHostLink.gen": "PCIe generation of this host link (1-6).",
    "NicHostLink.lanes": "PCIe lanes of this host link.",
    "NicInterface.name": "Interface name, unique in the NIC (nic0:<name> in nic_assignments).",
    "NicInterface.port": "The physical port it uses (a ports name).",
    "NicInterface.host_link": "The host link it uses (a host_links name); unset only on an integrated NIC.",
    "NicInterface.gbit_s": "Its rate in Gb/s, at most its port's.",
    "NicInterface.protocols": "Protocols it carries, free text (roce_v2, efa, infiniband...).",
    # switches
    "PcieSwitch.gen": "PCIe generation (1-6).",
    "PcieSwitch.lanes": "Total PCIe lanes of the switch.",
    "NvlinkSwitchChip.ports": "Scale-up ports (links) per chip.",
    "NvlinkSwitchChip.port_gbyte_s": "Bandwidth of one port in GB/s, per direction.",
    "NvlinkSwitchTray.chips": "The switch chips in the tray: type (an nvlink_switch_chip) and count.",
    "NetworkSwitch.asic": "Switch ASIC, free text (Spectrum-4, Tomahawk 5, Quantum-2).",
    "NetworkSwitch.protocol": "infiniband, ethernet, pcie or other.",
    "NetworkSwitch.ports": "Radix: ports at port_gbit_s (a twin-port OSFP cage counts 2).",
    "NetworkSwitch.port_gbit_s": "Native rate of one port in Gb/s (fabrics may break it out slower).",
    "NetworkSwitch.cages": "Physical cages (e.g. 32 twin-port OSFP), when they differ from ports.",
    # media
    "Optic.gbit_s": "Line rate in Gb/s (a twin-port 800G OSFP: 800); carries gbit_s / link rate links.",
    "Optic.reach_m": "Maximum reach in metres.",
    "Optic.fiber": "single_mode or multi_mode.",
    "Cable.medium": "copper_passive (DAC), copper_active (ACC/AEC), aoc or fiber.",
    "Cable.gbit_s": "Rate in Gb/s (a 2 x 400G twin-port DAC: 800).",
    "Cable.reach_m": "Maximum length in metres.",
    # systems
    "ComputeTray.max_power_w": ("Published whole-system maximum in W; unset: the sum of the "
                                "components plus overhead_w."),
    "ComputeTray.cpu_memory_gb": ("CPU (DDR) memory the server is configured with in GB, for x86 "
                                  "DIMMs; unset: the CPUs' own memory_gb sum."),
    "ComputeTray.overhead_w": "Fans, boards, drives, DIMMs beyond the listed parts, in W (maximum).",
    "ComputeTray.overhead_typical_w": "Typical of the same overhead in W (default: overhead_w).",
    "ComputeTray.psus": "The server's own power supplies, when it has them.",
    "ComputeTray.psu_w": "Output of one of those PSUs in W.",
    "ComputeTray.psu_redundancy": "How the PSUs back each other up: N, N+1, N+2 or N+N.",
    "Envelope.label": "What the envelope is (e.g. 'NVIDIA: ~120 kW per rack'), shown in reports.",
    "Envelope.max_kw": "Published maximum in kW.",
    "Envelope.typical_kw": "Published typical in kW.",
    "Envelope.liquid_kw": "Published heat to liquid in kW.",
    "Envelope.air_kw": "Published heat to air in kW.",
    "Envelope.source": "Id of one of the entry's sources that publishes it.",
    "Rack.u_height": "Usable rack units (U) of the rack.",
    "Rack.cooling": "How the rack is cooled: air, liquid or hybrid.",
    "Rack.max_power_kw": "Feed / busbar limit in kW, when published.",
    "Rack.reference_it_kw": "Published (often analyst) whole-rack IT estimate in kW, shown beside ours.",
    "Rack.envelopes": "Published power envelopes of the populated rack, shown beside computed figures.",
    "PowerShelf.capacity_kw": "Output capacity in kW, all PSUs installed.",
    "PowerShelf.psus": "PSUs in the shelf.",
    "PowerShelf.psu_kw": "Output of one PSU in kW.",
    "PowerShelf.psu_redundancy": "N, N+1, N+2 or N+N; unset: not published (installed sum used).",
    "PowerShelf.efficiency": "AC to DC efficiency (0-1), when published.",
    "Pdu.capacity_kw": "Capacity in kW.",
    "CoolingUnit.cooling_kind": "in_rack_cdu, in_row_cdu, in_row_heat_exchanger, crah or crac.",
    "CoolingUnit.removes": "The heat it removes: liquid, air or both.",
    "CoolingUnit.placement": "Where it sits: in_rack, in_row or room.",
    "CoolingUnit.capacity_kw": "Heat it removes in kW; unset for modular units (see module_capacity_kw).",
    "CoolingUnit.module_name": "Name of the module a modular unit grows by (e.g. a fan cabinet).",
    "CoolingUnit.module_capacity_kw": "Heat one module removes in kW.",
    "GenericUnit.cooling": "Where its heat goes: air or liquid.",
}


def field_description(model: str, field: str, default: object = None) -> str | None:
    """The description of ``model.field`` from :data:`FIELD_DOCS` (None: none listed).

    Examples
    --------
    >>> field_description("Nic", "kind", "nic")
    "Entry kind: always 'nic' for this type."
    """
    if field == "kind" and isinstance(default, str):
        return f"Entry kind: always '{default}' for this type."
    return FIELD_DOCS.get(f"{model}.{field}") or FIELD_DOCS.get(field) or None
