"""Golden figures of the AMD / Broadcom parts (issue 12): MI325X, MI350X, MI355X, their
8-GPU platforms, Pollara 400 and Thor 2, and the two shipped AMD designs. Every expected
value is computed by hand from AMD's CDNA 3 / CDNA 4 white papers, arithmetic in the
comment; none is read back from the tool.

One 8-GPU AMD platform (switchless Infinity Fabric mesh, one 400G NIC per GPU)::

    [GPU0]--IF--[GPU1]  ... every GPU has one x16 IF link to each of its 7 peers
      |  \\______/  |
    [PCIe sw]--[NIC 400G]==rail k==[leaf k]
      |
    [EPYC]
"""

from __future__ import annotations

import pytest

from conftest import DESIGNS


@pytest.fixture(scope="module")
def mi325x(catalog):
    from infra.analysis.summary import analyze_file

    return analyze_file(DESIGNS / "mi325x_cluster.yaml", catalog)


@pytest.fixture(scope="module")
def mi355x(catalog):
    from infra.analysis.summary import analyze_file

    return analyze_file(DESIGNS / "mi355x_cluster.yaml", catalog)


@pytest.mark.parametrize(("slug", "flops_per_clk_cu", "field", "ghz", "rounded"), [
    # CDNA 4 white paper Table 1 (FLOPS/clock/CU) x 256 CUs x clock; AMD rounds in Table 2
    ("amd-mi355x", 4096, "bf16", 2.4, 2.5e3),   # 4,096 x 256 x 2.4 GHz = 2,516.6 TF ~ "2.5 PF"
    ("amd-mi355x", 8192, "fp8", 2.4, 5.0e3),    # 8,192 x 256 x 2.4 = 5,033.2 ~ "5.0 PF"
    ("amd-mi355x", 16384, "fp4", 2.4, 10e3),    # 16,384 x 256 x 2.4 = 10,066.3 ~ "10 PF"
    ("amd-mi355x", 128, "fp64", 2.4, 78.6),     # 128 x 256 x 2.4 = 78.6 TF
    ("amd-mi350x", 4096, "bf16", 2.2, 2.3e3),   # 4,096 x 256 x 2.2 = 2,306.9 ~ "2.3 PF"
    ("amd-mi350x", 16384, "fp6", 2.2, 9.2e3),   # 16,384 x 256 x 2.2 = 9,227.5 ~ "9.2 PF"
    ("amd-mi350x", 256, "fp32", 2.2, 144.2),    # 256 x 256 x 2.2 = 144.2 TF
])
def test_cdna4_peaks_follow_amds_per_clock_method(catalog, slug, flops_per_clk_cu, field, ghz,
                                                   rounded):
    gpu = catalog.get(slug)
    value = getattr(gpu.peak_dense_tflops, field)
    assert value == pytest.approx(flops_per_clk_cu * 256 * ghz * 1e9 / 1e12, abs=0.05)
    # AMD's published (rounded) table figure is within 2 %
    assert value == pytest.approx(rounded, rel=0.02)


def test_mi325x_datasheet_figures(catalog):
    g = catalog.get("amd-mi325x")
    # CDNA 3 white paper Table 2: 256 GB HBM3E, 6.0 TB/s, 1000W, BF16 1,307.4 | 2,614.9
    assert (g.hbm_gib, g.hbm_tbyte_s, g.tdp_w) == (256, 6.0, 1000)  # 256 GB = 8 x 32 GiB stacks
    assert (g.peak_dense_tflops.bf16, g.peak_sparse_tflops.bf16) == (1307.4, 2614.9)
    assert (g.peak_dense_tflops.fp8, g.peak_sparse_tflops.fp8) == (2614.9, 5229.8)
    assert g.peak_dense_tflops.fp4 == 0  # CDNA 3 has no FP4
    # 7 peer links x (16 lanes x 32 Gb/s / 8 = 64 GB/s) = 448 GB/s per direction = 896 / 2
    assert g.scale_up.gbyte_s == 448


def test_mi355x_infinity_fabric_per_gpu(catalog):
    g = catalog.get("amd-mi355x")
    # 16 bits x 38.4 Gb/s / 8 = 76.8 GB/s per link per direction; x 7 peers = 537.6
    # = AMD's 1,075.2 GB/s peak aggregate P2P (both directions) / 2
    assert g.scale_up.link_gbyte_s * 2 == pytest.approx(153.6)
    assert g.scale_up.gbyte_s == pytest.approx(1075.2 / 2)
    assert g.peak_dense_tflops.tf32 == 0  # TF32 is software-emulated on CDNA 4
    assert g.peak_sparse_tflops.fp4 is None  # AMD publishes no sparse MXFP4 figure


def test_mi300x_int8_is_amds_figure(catalog):
    g = catalog.get("amd-mi300x")
    # CDNA 3 white paper Table 2: INT8 2,614.9 | 5,229.8 TOPs (was the rounded 2,600)
    assert (g.peak_dense_tflops.int8, g.peak_sparse_tflops.int8) == (2614.9, 5229.8)


@pytest.mark.parametrize("slug", ["amd-pensando-pollara-400", "broadcom-bcm57608-thor2-400g"])
def test_400g_nics_fit_their_gen5_x16_link(catalog, slug):
    from infra.units import pcie_raw_gbyte_s

    nic = catalog.get(slug)
    assert nic.port_gbit_s == 400
    link = nic.host_links[0]
    assert (link.gen, link.lanes) == (5, 16)
    # Gen5 x16 = 16 x 32 GT/s x 128/130 / 8 = 63.015 GB/s = 504 Gb/s raw > 400 Gb/s
    assert pcie_raw_gbyte_s(link.gen, link.lanes) == pytest.approx(63.015, abs=0.001)
    assert nic.source_of("max_power_w").tag == "estimate"  # no vendor figure: stated estimate


def test_mi325x_cluster_golden(mi325x):
    m = mi325x.metrics()
    # 64 racks x 2 servers x 8 GPUs = 1,024 GPUs in 128 meshes of 8
    assert (m["gpus"], m["scale_up_domains"], m["scale_up_domain_gpus"]) == (1024, 128, 8)
    # HBM 1,024 x 256 GB (AMD's GB are GiB: 8 x 32 GiB stacks) = 262,144 GiB x 2^30 B
    # = 281.475 x 10^12 B; 1,024 x 6.0 TB/s = 6,144 TB/s
    assert m["hbm_gib"] == 262144
    assert m["hbm_tbyte"] == pytest.approx(281.475, abs=1e-3)
    assert m["hbm_tbyte_s"] == pytest.approx(6144)
    # BF16 1,024 x 1,307.4 = 1,338.7776 PF dense, x 2,614.9 = 2,677.6576 PF sparse
    assert m["peak_dense_pflops_bf16"] == pytest.approx(1338.7776)
    assert m["peak_sparse_pflops_bf16"] == pytest.approx(2677.6576)
    # FP8 1,024 x 2,614.9 = 2,677.6576 dense; x 5,229.8 = 5,355.3152 sparse; no FP4
    assert m["peak_dense_pflops_fp8"] == pytest.approx(2677.6576)
    assert m["peak_sparse_pflops_fp8"] == pytest.approx(5355.3152)
    assert m["peak_dense_pflops_fp4"] == 0
    # one Thor 2 400G per GPU; a PCIe Gen5 switch per 2 GPUs + 2 NICs keeps 400 effective
    assert m["scale_out_gbit_s_per_gpu_nominal"] == 400
    assert m["scale_out_gbit_s_per_gpu_effective"] == 400
    assert m["scale_up_gbyte_s_per_gpu"] == 448  # 7 x 64 GB/s per direction


def test_mi325x_server_power_from_parts(mi325x):
    (rack,) = mi325x.power.racks
    # per server: 8 x 1,000 W MI325X + 2 x 360 W EPYC 9654 + 8 x 25 W Thor 2 (estimate)
    # + 4 x 50 W PEX89144 (estimate) + 3,650 W overhead (estimate) = 12,770 W;
    # 2 per rack = 25.54 kW, all air, under the ~30 kW practical air-cooled limit
    assert rack.it_kw == pytest.approx(25.54)
    assert rack.liquid_kw == 0
    assert not mi325x.cooling.warnings


def test_mi355x_cluster_golden(mi355x):
    m = mi355x.metrics()
    # 8 racks x 16 servers x 8 GPUs = 1,024 GPUs (AMD's 128 GPUs per rack)
    assert (m["gpus"], m["compute_racks"], m["scale_up_domain_gpus"]) == (1024, 8, 8)
    # every rack on the floor: the 8 compute racks and the fabric's network racks
    assert m["racks"] == 8 + m["network_racks"] and m["network_racks"] > 0
    # HBM 1,024 x 288 GB (8 x 36 GiB stacks) = 294,912 GiB = 316.659 x 10^12 B;
    # 1,024 x 8.0 TB/s = 8,192 TB/s
    assert m["hbm_tbyte"] == pytest.approx(316.659, abs=1e-3)
    assert m["hbm_tbyte_s"] == pytest.approx(8192)
    # BF16 1,024 x 2,516.6 = 2,576.9984 PF dense; x 5,033.2 = 5,153.9968 sparse
    assert m["peak_dense_pflops_bf16"] == pytest.approx(2576.9984)
    assert m["peak_sparse_pflops_bf16"] == pytest.approx(5153.9968)
    # FP8 1,024 x 5,033.2 = 5,153.9968 dense, x 10,066.3 = 10,307.8912 sparse
    assert m["peak_dense_pflops_fp8"] == pytest.approx(5153.9968)
    assert m["peak_sparse_pflops_fp8"] == pytest.approx(10307.8912)
    # MXFP4 1,024 x 10,066.3 = 10,307.8912 PF dense; no sparse FP4 published
    assert m["peak_dense_pflops_fp4"] == pytest.approx(10307.8912)
    assert m["peak_sparse_pflops_fp4"] is None
    # 7 x 76.8 = 537.6 GB/s Infinity Fabric per GPU per direction; Pollara 400 per GPU
    assert m["scale_up_gbyte_s_per_gpu"] == pytest.approx(537.6)
    assert m["scale_out_gbit_s_per_gpu_effective"] == 400
    # DDR5 per server 24 x 128 GB = 3,072 GB (AMD's MLPerf v6.0 nodes): 128 x 3.072 =
    # 393.216 TB; combined with HBM 316.659 + 393.216 = 709.875 TB; per 8-GPU domain
    # 8 x 288 GiB (2,473.9 x 10^9 B) + 3,072 GB = 5.546 TB (DDR5 as the catalog states it)
    assert m["cpu_memory_tbyte"] == pytest.approx(393.216)
    assert m["combined_memory_tbyte"] == pytest.approx(709.875, abs=1e-3)
    assert m["scale_up_domain_combined_memory_tbyte"] == pytest.approx(5.546, abs=1e-3)


def test_mi355x_rack_against_amds_200kw(mi355x):
    (rack,) = mi355x.power.racks
    # per server: 8 x 1,400 W + 2 x 360 W = 11,920 W to liquid; 8 x 25 W Pollara + 8 x 50 W
    # PEX89144 + 1,250 W overhead = 1,850 W to air; 13,770 W. x 16 = 220.32 kW per rack:
    # 190.72 liquid + 29.6 air
    assert rack.it_kw == pytest.approx(220.32)
    assert rack.liquid_kw == pytest.approx(190.72)
    assert rack.air_kw == pytest.approx(29.6)
    (env,) = [e for e in mi355x.envelopes if e.scope == "rack:mi355x16"]
    # AMD: 16 servers in a 200 kW rack -> computed planning maximum is (220.32 - 200) / 200
    # = +10.16 % above it
    assert env.published_kw == 200
    assert env.diff_pct == pytest.approx(10.16)


def _blast(a, kind: str):
    return next(r for r in a.blast if r.component_kind == kind)


def test_mi355x_blast_radius(mi355x, mi325x):
    link = _blast(mi355x, "scale_up_link")
    # 8-GPU mesh: 8 x 7 / 2 = 28 links per server x 128 servers = 3,584; one failing leaves
    # both ends 6 of 7 links (6 x 76.8 of 537.6 GB/s), no GPU lost, the domain stays whole
    assert link.count == 3584
    assert (link.gpus_lost, link.gpus_degraded, link.domains_broken) == (0, 2, 0)
    assert link.degraded_bandwidth_fraction == pytest.approx(6 / 7, abs=1e-4)
    # one PCIe switch per GPU + NIC (MI355X platform, 8 per server): a switch takes 1 GPU;
    # on the MI325X platform a switch carries 2 GPUs + 2 NICs: it takes 2
    assert _blast(mi355x, "pcie_switch").count == 1024  # 128 x 8
    assert _blast(mi355x, "pcie_switch").gpus_lost == 1
    assert _blast(mi325x, "pcie_switch").count == 512  # 128 x 4
    assert _blast(mi325x, "pcie_switch").gpus_lost == 2
    # with N+1 CDUs and CRACs per group no cooling unit takes GPUs; the worst single
    # failure is a rack of 16 servers = 128 GPUs
    assert all(r.gpus_lost == 0 for r in mi355x.blast if r.component_kind == "cooling_unit")
    assert mi355x.metrics()["worst_single_failure_gpus"] == 128
