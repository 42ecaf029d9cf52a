"""Scale-up shapes beyond one rack: golden figures of DGX GH200 (two NVLink tiers over
34 racks) and GB300 NVL72 (shipped catalog only), computed by hand from datasheet values.

DGX GH200, one of 32 chassis and the L2 tier::

    [gh200 x 8]==6 links each==[L1 tray 0..2 (2 x NVSwitch gen3)]
                                  |  48 down / 48 up per tray
                                  +==(xrack)==[36 L2 trays in 2 switch-only racks]
"""

from __future__ import annotations

import pytest

from conftest import DESIGNS


@pytest.fixture(scope="module")
def gh200(catalog):
    from infra.analysis.summary import analyze_file

    return analyze_file(DESIGNS / "dgx_gh200_256.yaml", catalog)


@pytest.fixture(scope="module")
def gb300(catalog):
    from infra.analysis.summary import analyze_file

    return analyze_file(DESIGNS / "gb300_nvl72.yaml", catalog)


def _row(a, kind: str, starts: str):
    return next(r for r in a.blast if r.component_kind == kind and r.component.startswith(starts))


def test_gh200_one_domain_of_256(gh200):
    m = gh200.metrics()
    assert (m["gpus"], m["cpus"], m["scale_up_domains"], m["scale_up_domain_gpus"]) == (256, 256, 1, 256)
    # NVLink 4: 18 links x 25 GB/s = 450 GB/s per direction = 900 GB/s bidirectional
    assert m["scale_up_gbyte_s_per_gpu"] == 450
    # bisection: 128 GPUs x 450 = 57,600 GB/s = 57.6 TB/s (NVIDIA: "57.6 TB/s all-to-all");
    # the L2 cut is the same: 4,608 uplinks / 2 x 25 GB/s = 57,600
    assert m["scale_up_bisection_gbyte_s"] == pytest.approx(57_600)


def test_gh200_switch_tiers_96_36(gh200):
    tiers = {t["tier"]: t for t in gh200.tables()["scale_up_tiers"]}
    assert tiers["L1"]["switch_trays_per_domain"] == 96  # 32 chassis x 3
    assert tiers["L2"]["switch_trays_per_domain"] == 36  # 2 racks x 18
    # L1: 256 GPUs x 18 links = 4,608 down; 4,608 up (= 36 L2 x 128 ports): non-blocking
    assert (tiers["L1"]["down_links"], tiers["L1"]["up_links"]) == (4608, 4608)
    assert tiers["L1"]["oversubscription_ratio"] == 1.0
    assert tiers["L2"]["ports"] == 36 * 2 * 64


def test_gh200_combined_memory(gh200):
    m = gh200.metrics()
    # HBM 256 x 96 GiB = 24,576 GiB = 26.388 x 10^12 B; LPDDR5X 256 x 480 GB = 122,880 GB
    assert m["hbm_tbyte"] == pytest.approx(26.388, abs=1e-3)
    assert m["cpu_memory_tbyte"] == pytest.approx(122.88)
    # 26.388 + 122.88 = 149.268 TB. NVIDIA's "144 TB" is 256 x 576 = 147,456 vendor GB
    # / 1,024: both memories binary-sized (144 TiB); the catalog's CPU memory figures are
    # still counted as 10^9 B (only HBM is converted from GiB)
    assert m["combined_memory_tbyte"] == pytest.approx(149.268, abs=1e-3)
    assert m["scale_up_domain_combined_memory_tbyte"] == pytest.approx(149.268, abs=1e-3)
    assert m["hbm_gib"] + 256 * 480 == 147456
    # Grace LPDDR5X bandwidth 256 x 512 GB/s = 131,072 GB/s
    assert m["cpu_memory_tbyte_s"] == pytest.approx(131.072)


def test_gh200_l2_switch_degrades_l1_switch_removes(gh200):
    l2 = _row(gh200, "nvlink_switch_tray", "one L2")
    # an L2 tray carries 128 of the 4,608 uplinks: every GPU keeps 35/36 of its cross-
    # chassis bandwidth; nobody leaves the 256-GPU partition
    assert (l2.gpus_lost, l2.gpus_degraded, l2.domains_broken) == (0, 256, 0)
    assert l2.degraded_bandwidth_fraction == pytest.approx(35 / 36, abs=1e-4)
    assert l2.largest_placeable_job_gpus == 256
    l1 = _row(gh200, "nvlink_switch_tray", "one L1")
    # an L1 tray holds 6 of each of its chassis' 8 GPUs' 18 links: full_bandwidth mode
    # takes those 8 GPUs out; 248 stay in one partition through L2
    assert (l1.gpus_lost, l1.domains_broken, l1.largest_placeable_job_gpus) == (8, 1, 248)
    rack = _row(gh200, "rack", "nvlink_l2")
    # half the L2 tier gone: GPUs keep half their cross-chassis bandwidth, none lost
    assert (rack.gpus_lost, rack.degraded_bandwidth_fraction) == (0, 0.5)


def test_gh200_adaptive_mode_degrades_l1(catalog, tmp_path):
    from infra.analysis.summary import analyze_file

    text = (DESIGNS / "dgx_gh200_256.yaml").read_text().replace(
        "nvlink_partition_mode: full_bandwidth", "nvlink_partition_mode: adaptive_bandwidth")
    path = tmp_path / "gh200_adaptive.yaml"
    path.write_text(text)
    l1 = _row(analyze_file(path, catalog), "nvlink_switch_tray", "one L1")
    # adaptive: the 8 GPUs keep 12 of 18 links (2/3) and stay in the 256-GPU partition
    assert (l1.gpus_lost, l1.gpus_degraded, l1.largest_placeable_job_gpus) == (0, 8, 256)
    assert l1.degraded_bandwidth_fraction == pytest.approx(2 / 3, abs=1e-4)


def test_gb300_nvl72_from_shipped_catalog(gb300):
    m = gb300.metrics()
    assert (m["gpus"], m["cpus"], m["scale_up_domain_gpus"]) == (72, 36, 72)
    # FP4: 72 x 15,000 TF dense = 1,080 PF; 72 x 20,000 sparse = 1,440 PF (S8 "20 | 15 PF")
    assert m["peak_dense_pflops_fp4"] == pytest.approx(1080)
    assert m["peak_sparse_pflops_fp4"] == pytest.approx(1440)
    # BF16: 72 x 2,500 = 180 PF dense, 72 x 5,000 = 360 PF sparse
    assert (m["peak_dense_pflops_bf16"], m["peak_sparse_pflops_bf16"]) == (180, 360)
    # HBM: 72 x 279 GiB = 20,088 GiB ("~20 TB", NVIDIA's sum of vendor GB) = 21.569 x 10^12 B
    assert m["hbm_tbyte"] == pytest.approx(21.569, abs=1e-3)
    # + 36 Grace x 480 GB = 17.28 TB -> 38.849 TB (NVIDIA: "37 TB fast memory", the vendor
    # GB summed: 20,088 + 17,280 = 37,368)
    assert m["combined_memory_tbyte"] == pytest.approx(38.849, abs=1e-3)
    # one CX-8 per GPU, Gen6 x16 straight from its B300: 800 nominal, 800 effective
    assert m["scale_out_gbit_s_per_gpu_nominal"] == 800
    assert m["scale_out_gbit_s_per_gpu_effective"] == 800


def test_sparse_never_in_dense(gb300):
    rows = {r["precision"]: r for r in gb300.tables()["flops_by_precision"]}
    assert rows["fp4"]["peak_dense_pflops"] == 1080 and rows["fp4"]["peak_sparse_pflops"] == 1440
    assert rows["fp64"]["peak_sparse_pflops"] is None  # no sparse FP64 figure exists


def test_switch_only_rack_alone_is_an_error(catalog, tmp_path):
    from infra.errors import InfraError
    from infra.models.resolve import load_design

    path = tmp_path / "l2only.yaml"
    path.write_text("name: x\nracks:\n  l2:\n    type: generic-42u-air-rack\n    contents:\n"
                    "      - {type: nvidia-nvlink4-switch, count: 18}\nbuild: {l2: 1}\n")
    with pytest.raises(InfraError, match="only NVLink switch trays"):
        load_design(path, catalog)


def test_three_racks_without_l2_is_an_error(catalog, tmp_path):
    from infra.errors import InfraError
    from infra.models.resolve import load_design
    from infra.topology.scaleup import scale_up_domains

    path = tmp_path / "three.yaml"
    path.write_text((DESIGNS / "aws_nvl36x2.yaml").read_text()
                    .replace("racks: {nvl36: 2}", "racks: {nvl36: 3}")
                    .replace("racks_per_domain: 2", "racks_per_domain: 3"))
    with pytest.raises(InfraError, match="second switch tier"):
        scale_up_domains(load_design(path, catalog))


def test_nvl576_style_two_tier_domain(catalog):
    from infra.analysis.summary import analyze_file

    a = analyze_file(DESIGNS / "concepts" / "gb200_nvl576.yaml", catalog)
    m = a.metrics()
    assert (m["gpus"], m["scale_up_domains"], m["scale_up_domain_gpus"]) == (576, 1, 576)
    # 16 racks x 18 chips x 36 free ports = 10,368 uplinks = 144 L2 chips x 72 ports
    tiers = {t["tier"]: t for t in a.tables()["scale_up_tiers"]}
    assert (tiers["L1"]["up_links"], tiers["L2"]["switch_chips_per_domain"]) == (10368, 144)
    assert m["scale_up_max_oversubscription_ratio"] == 1.0
    # bisection 288 GPUs x 900 GB/s = 259,200 GB/s (= 10,368 / 2 x 50 GB/s)
    assert m["scale_up_bisection_gbyte_s"] == pytest.approx(259_200)
    # an L1 chip carries one link of each of its rack's 36 GPUs: they leave the partition
    l1 = _row(a, "nvlink_switch_chip", "one L1")
    assert (l1.gpus_lost, l1.largest_placeable_job_gpus) == (36, 540)
    l2 = _row(a, "nvlink_switch_tray", "one L2")
    assert (l2.gpus_lost, l2.domains_broken, l2.largest_placeable_job_gpus) == (0, 0, 576)


def test_mi300x_mesh_cluster(catalog):
    from infra.analysis.summary import analyze_file

    m = analyze_file(DESIGNS / "mi300x_cluster.yaml", catalog).metrics()
    # 128 servers x 8 = 1,024 GPUs in 128 switchless meshes of 8
    assert (m["gpus"], m["scale_up_domains"], m["scale_up_domain_gpus"]) == (1024, 128, 8)
    # 7 peer links x 64 GB/s = 448 GB/s per direction (896 bidirectional)
    assert m["scale_up_gbyte_s_per_gpu"] == 448
    # HBM 1,024 x 192 GiB = 196,608 GiB = 211.106 x 10^12 B; BF16 dense 1,024 x 1,307.4 TF = 1,338.8 PF,
    # sparse 1,024 x 2,614.9 = 2,677.7 PF
    assert m["hbm_tbyte"] == pytest.approx(211.106, abs=1e-3)  # 196,608 GiB
    assert m["peak_dense_pflops_bf16"] == pytest.approx(1338.7776)
    assert m["peak_sparse_pflops_bf16"] == pytest.approx(2677.6576)
    assert m["scale_out_gbit_s_per_gpu_effective"] == 400


def test_gh200_one_exaflop_is_fp8_sparse(gh200):
    m = gh200.metrics()
    # NVIDIA's "1 exaflop" DGX GH200: 256 x 3,958 TF FP8 sparse = 1,013.2 PF; dense half
    assert m["peak_sparse_pflops_fp8"] == pytest.approx(1013.248)
    assert m["peak_dense_pflops_fp8"] == pytest.approx(506.624)


def test_mi300x_mesh_link_failure(catalog):
    from infra.analysis.summary import analyze_file

    a = analyze_file(DESIGNS / "mi300x_cluster.yaml", catalog)
    row = _row(a, "scale_up_link", "one Infinity Fabric")
    # 8-GPU mesh: 8 x 7 / 2 = 28 links per server x 128 servers = 3,584; a link failing
    # leaves both ends 6 of 7 links; no GPU lost, the 8-GPU domain stays whole
    assert row.count == 3584
    assert (row.gpus_lost, row.gpus_degraded, row.domains_broken) == (0, 2, 0)
    assert row.degraded_bandwidth_fraction == pytest.approx(6 / 7, abs=1e-4)


def test_gh200_half_l2_is_2_to_1(catalog, tmp_path):
    from infra.analysis.summary import analyze_file

    text = (DESIGNS / "dgx_gh200_256.yaml").read_text().replace(
        "racks: {gh200_chassis: 32, nvlink_l2: 2}", "racks: {gh200_chassis: 32, nvlink_l2: 1}")
    path = tmp_path / "gh200_half_l2.yaml"
    path.write_text(text)
    m = analyze_file(path, catalog).metrics()
    # 18 L2 trays x 128 ports = 2,304 / 192 L1 chips = 12 uplinks per chip for 24 GPU links:
    # 2:1; bisection 2,304 / 2 x 25 GB/s = 28,800 GB/s (half of 57,600)
    assert m["scale_up_max_oversubscription_ratio"] == 2.0
    assert m["scale_up_bisection_gbyte_s"] == pytest.approx(28_800)
    assert m["scale_up_gbyte_s_per_gpu"] == 450  # access links unchanged
