"""Systems people buy (issue 12, NVIDIA/OEM parts): golden figures of the shipped HGX B300,
OEM HGX H200 and liquid-cooled OEM HGX H100 designs, computed by hand from the catalog's
datasheet values (arithmetic in the comments).

HGX B300 server (DGX B300 configuration), one GPU and its NIC::

    [B300 k]==Gen6 x16==[CX-8 k: integrated PCIe Gen6 switch]==Gen5 x16==[Xeon 6776P]
                              |
                            800G XDR port -> leaf k of the rail-optimized fabric

Supermicro SYS-821GE-TNHR (HGX H200), one of four PCIe switches::

    [Xeon 8570]==x16==[PEX89144]==x16==[H200 2s], [H200 2s+1], [B3140H 2s], [B3140H 2s+1]
"""

from __future__ import annotations

import pytest

from conftest import DESIGNS


def _analysis(name: str):
    @pytest.fixture(scope="module")
    def fixture(catalog):
        from infra.analysis.summary import analyze_file

        return analyze_file(DESIGNS / f"{name}.yaml", catalog)

    return fixture


b300 = _analysis("hgx_b300_su")
h200 = _analysis("hgx_h200_cluster")
h100lc = _analysis("hgx_h100_liquid_512")


def _tray_envelope(a, slug: str):
    (row,) = [r for r in a.envelopes if r.scope == f"tray:{slug}"]
    return row


# ---------------------------------------------------------------- HGX B300 scalable unit


def test_hgx_b300_su_compute(b300):
    m = b300.metrics()
    # 32 servers x 8 B300 = 256 GPUs; 2 x Xeon 6776P each = 64 CPUs
    assert (m["gpus"], m["cpus"], m["compute_trays"], m["compute_racks"]) == (256, 64, 32, 8)
    # dense: BF16 256 x 2,250 TF = 576 PF; FP8 256 x 4,500 = 1,152 PF;
    # FP4 256 x 14,000 (datasheet "18 | 14 PF") = 3,584 PF
    assert m["peak_dense_pflops_bf16"] == pytest.approx(576)
    assert m["peak_dense_pflops_fp8"] == pytest.approx(1152)
    assert m["peak_dense_pflops_fp4"] == pytest.approx(3584)
    # sparse FP4 256 x 18,000 = 4,608 PF = 32 x NVIDIA's HGX B300 "144 PF" (8 GPUs)
    assert m["peak_sparse_pflops_fp4"] == pytest.approx(32 * 144)
    assert m["peak_sparse_pflops_bf16"] == pytest.approx(256 * 4.5)  # 4,500 TF sparse each
    # HBM 256 x 270 GiB = 69,120 GiB = 74.217 x 10^12 B (HGX page "2.1 TB" per 8 GPUs)
    assert m["hbm_tbyte"] == pytest.approx(74.217, abs=1e-3)
    # DDR5: 32 x 2,048 GB ("2 TB") = 65.536 TB; combined 74.217 + 65.536 = 139.753 TB
    assert m["cpu_memory_tbyte"] == pytest.approx(65.536, abs=0.01)
    assert m["combined_memory_tbyte"] == pytest.approx(139.753, abs=0.01)


def test_hgx_b300_su_network(b300):
    m = b300.metrics()
    # one CX-8 800G per GPU, its Gen6 x16 straight from the B300: 800 nominal and effective
    assert m["scale_out_gbit_s_per_gpu_nominal"] == 800
    assert m["scale_out_gbit_s_per_gpu_effective"] == 800
    # NVLink 5 inside each server: 18 x 50 GB/s = 900 GB/s per direction per GPU
    assert m["scale_up_gbyte_s_per_gpu"] == 900
    # rail-optimized XDR on Q3400: 8 leaves (one per rail) and 4 spines, as NVIDIA's
    # DGX SuperPOD B300 XDR RA lists for one SU (8 / 4)
    assert (m["leaf_switches"], m["spine_switches"]) == (8, 4)
    # bisection: 256 GPUs x 800 Gb/s / 2 = 102.4 Tb/s
    assert m["scale_out_bisection_tbit_s"] == pytest.approx(102.4)


def test_hgx_b300_su_xdr_optics(b300):
    m = b300.metrics()
    # leaf: 256 node links (one 800G CX-8 port per GPU) -> 256 MMS4A20-XM800 single-port
    # 800G OSFPs in the CX-8 cages, 256 / 2 = 128 MMS4A00-XM 1.6T twin-ports in the leaves
    # (two 800G links per module). Spine: 8 leaves x 72 uplinks = 576 links -> 576 / 2 =
    # 288 twin-ports in the leaves + 288 in the spines. 256 + 128 + 288 + 288 = 960.
    assert m["transceivers"] == 960
    leaf, spine = b300.fabrics[0].tiers
    assert (leaf.lower_end, leaf.lower_end_transceivers) == ("nvidia-mms4a20-xm800", 256)
    assert (leaf.switch_end, leaf.switch_end_transceivers) == ("nvidia-mms4a00-xm", 128)
    assert (spine.lower_end_transceivers, spine.switch_end_transceivers) == (288, 288)
    # one straight single-mode fibre per 800G link: 256 + 576 = 832
    assert (leaf.cables, spine.cables) == (256, 576)
    # fabric power (max): 12 Q3400 x 2,465 W [est] = 29,580 W + switch-side twin-ports
    # (128 + 288 + 288) = 704 x 25 W [3P] = 17,600 W -> 47.18 kW. The 256 node-end
    # modules (256 x 13.2 W [est] = 3.379 kW) sit in the servers, covered by the 14 kW
    # published system figure: not added again.
    assert m["fabric_power_kw"] == pytest.approx(29.58 + 704 * 0.025)
    assert leaf.transceiver_power_kw == pytest.approx((256 * 13.2 + 128 * 25) / 1000)
    assert m["node_optics_power_kw"] == 0
    # typical: 12 x 2,054 W [est] = 24,648 W + 704 x 23.5 W [est: 25 x 16/17] = 16,544 W
    assert m["it_power_typical_kw"] == pytest.approx(448 + 24.648 + 16.544)


def test_hgx_b300_su_power(b300):
    m = b300.metrics()
    # 32 x 14 kW ("~14 kW" DGX B300) = 448 kW + fabric 47.18 kW (12 Q3400 x 2,465 W [est]
    # + 704 switch-side MMS4A00-XM x 25 W [3P]) = 495.18 kW
    assert m["it_power_kw"] == pytest.approx(448 + 12 * 2.465 + 704 * 0.025)
    (rack,) = b300.power.racks
    # 4 servers per rack = 56 kW, the "~56 kW per rack" of NVIDIA's B300 XDR RA
    assert rack.it_kw == pytest.approx(56)
    # parts alone: 8 x 1,100 W B300 + 2 x 350 W Xeon + 8 x 50 W CX-8 [est] + 2 x 150 W BF-3
    # = 10,200 W, shown beside the 14 kW system figure (NVLink switch chips unpublished)
    row = _tray_envelope(b300, "nvidia-hgx-b300")
    assert row.computed_kw == pytest.approx(10.2) and row.published_kw == 14
    assert "published maximum" in row.label
    # room air: 448 kW of server heat / 29 kW PDX units -> 16 needed, 18 installed
    (pdx,) = [r for r in b300.cooling.rows if r.unit == "vertiv-liebert-pdx"]
    assert (pdx.needed, pdx.installed) == (16, 18)


def test_hgx_b300_cx8_is_between_gpu_and_host(catalog):
    tray = catalog.get("nvidia-hgx-b300")
    ends = {(link.a, link.b) for link in tray.links}
    # GPU k -> CX-8 k's Gen6 side, CX-8 k's Gen5 side -> its CPU; no discrete PCIe switch
    assert ("gpu5", "nic5@gpu_side") in ends and ("cpu1", "nic5@cpu_side") in ends
    assert not any(c.type.startswith("broadcom-pex") for c in tray.components)


# ---------------------------------------------------------------- OEM HGX H200 cluster


def test_hgx_h200_cluster_compute(h200):
    m = h200.metrics()
    assert (m["gpus"], m["cpus"], m["compute_trays"]) == (256, 64, 32)
    # HBM 256 x 141 GiB = 36,096 GiB = 38.758 x 10^12 B; bandwidth 256 x 4.8 TB/s = 1,228.8 TB/s
    assert m["hbm_tbyte"] == pytest.approx(38.758, abs=1e-3)
    assert m["hbm_tbyte_s"] == pytest.approx(1228.8)
    # dense BF16 256 x 989 TF = 253.184 PF; sparse 256 x 1,979 = 506.624 PF
    assert m["peak_dense_pflops_bf16"] == pytest.approx(253.184)
    assert m["peak_sparse_pflops_bf16"] == pytest.approx(506.624)
    # Hopper has no FP4: 0, not unknown
    assert m["peak_dense_pflops_fp4"] == 0


def test_hgx_h200_cluster_network(h200):
    m = h200.metrics()
    # one B3140H 400G per GPU behind a Gen5 x16 switch port: 400 nominal and effective
    assert m["scale_out_gbit_s_per_gpu_nominal"] == 400
    assert m["scale_out_gbit_s_per_gpu_effective"] == 400
    # NVLink 4: 18 x 25 GB/s = 450 GB/s per direction (900 bidirectional)
    assert m["scale_up_gbyte_s_per_gpu"] == 450
    # front end: 1 x B3220 = 2 x 200G = 400 Gb/s per server (ERA 2-8-9-400)
    assert m["front_end_gbit_s_per_tray"] == 400
    # 256 x 400G on SN5600 run as 128 x 400G: 8 rail leaves, 4 spines; 256 x 400 / 2
    assert (m["leaf_switches"], m["spine_switches"]) == (8, 4)
    assert m["scale_out_bisection_tbit_s"] == pytest.approx(51.2)


def test_hgx_h200_cluster_power(h200):
    m = h200.metrics()
    # 32 x 10.2 kW [estimate: DGX H100/H200 max] = 326.4 kW + 12 SN5600 x 1,096 W [est]
    # + twin-port 2 x 400G optics (MMA4Z00-NS, 15 W): leaf tier 256 down links, one twin
    # per 2 links at the leaf = 128; spine tier 8 leaves x 64 uplinks = 512 links with a
    # twin at both ends = 512 x 2 / 2 = 512; 640 x 15 W = 9.6 kW. The NIC-end QSFP112s
    # (9 W each) are inside the server maximum, as for DGX H100
    assert m["it_power_kw"] == pytest.approx(326.4 + 12 * 1.096 + 640 * 0.015)
    bom = {r.slug: r.count for r in h200.bom}
    assert bom["nvidia-mma1z00-ns400"] == 256  # one 400G QSFP112 per B3140H
    assert bom["nvidia-mma4z00-ns"] == 128 + 512
    # parts: 8 x 700 + 2 x 350 + 4 x 50 PEX [est] + 8 x 75 B3140H [slot bound] + 150 B3220
    # = 7,250 W; the maximum shown beside it is an estimate and is labelled so
    row = _tray_envelope(h200, "supermicro-sys-821ge-tnhr-h200")
    assert row.computed_kw == pytest.approx(7.25) and row.published_kw == 10.2
    assert row.tag == "estimate" and "estimated maximum" in row.label
    # its PSUs: 6 x 3 kW, 4+2 -> 4 x 3 = 12 kW usable >= 10.2 kW
    (psu,) = h200.tables()["server_psus"]
    assert psu["usable_kw"] == pytest.approx(12) and psu["covers_max"] is True


# ---------------------------------------------------------------- liquid-cooled HGX H100


def test_liquid_hgx_h100_rack_heat_split(h100lc):
    m = h100lc.metrics()
    assert (m["gpus"], m["compute_racks"], m["compute_trays"]) == (512, 8, 64)
    # 64 x 10.2 kW = 652.8 kW + 12 SN5600 x 1,096 W + (512 / 2 + 512) twin optics x 15 W
    assert m["it_power_kw"] == pytest.approx(652.8 + 12 * 1.096 + 768 * 0.015)
    (rack,) = h100lc.power.racks
    # 8 x 10.2 kW [est] = 81.6 kW per rack
    assert rack.it_kw == pytest.approx(81.6)
    # on cold plates: 8 x 700 + 2 x 350 + 4 x 50 W = 6.5 kW per server, x 8 = 52 kW;
    # the rest of the 81.6 kW (NICs, drives, fans) goes to air: 29.6 kW
    assert rack.liquid_kw == pytest.approx(52)
    assert rack.air_kw == pytest.approx(29.6)
    # one Supermicro in-rack CDU (100 kW at 32 C secondary) covers 52 kW: ceil(52/100) = 1
    (cdu,) = [r for r in h100lc.cooling.rows if r.unit == "supermicro-hgx-in-rack-cdu"]
    assert cdu.capacity_kw == 100 and cdu.needed == 1
    # achievable BF16: 512 x 794.5 TF (H100 MAMF) = 406.784 PF
    assert m["achievable_pflops_bf16"] == pytest.approx(406.784)


def test_cdu_capacity_depends_on_coolant_temperature(catalog):
    cdu = catalog.get("supermicro-hgx-in-rack-cdu")
    # 100 kW at 32 C chosen; 60 kW at 40 C recorded in the choice, not silently dropped
    assert cdu.capacity_kw == 100 and "60 kW" in cdu.choices["capacity_kw"]
    assert cdu.source_of("max_power_w").tag == "estimate"


def test_supernic_b3140h(catalog):
    nic = catalog.get("nvidia-bluefield-3-b3140h")
    assert nic.role == "supernic" and nic.port_gbit_s == 400
    assert (nic.host_links[0].gen, nic.host_links[0].lanes) == (5, 16)
    # 75 W = the PCIe CEM x16 slot limit (no aux power connector): an upper bound, tagged
    assert nic.max_power_w == 75 and nic.source_of("max_power_w").tag == "estimate"


def test_dell_xe9680_psus_do_not_cover_the_maximum_under_fault(tmp_path, catalog):
    from infra.analysis.summary import analyze_file

    p = tmp_path / "xe9680.yaml"
    p.write_text("name: one XE9680\n"
                 "racks:\n  r:\n    type: generic-42u-air-rack\n"
                 "    contents: [{type: dell-poweredge-xe9680-h200, count: 1}]\n"
                 "build: {r: 1}\n")
    a = analyze_file(p, catalog)
    (psu,) = a.tables()["server_psus"]
    # 6 PSUs totalling 19,200 W -> 3.2 kW each; 3+3 fault-tolerant (N+N): 3 x 3.2 = 9.6 kW
    # survives a feed loss, below the 10.2 kW maximum (estimate) -> not covered, which is
    # what Dell's GPU power brake in that state implies
    assert (psu["psus"], psu["psu_kw"], psu["usable_kw"]) == (6, 3.2, pytest.approx(9.6))
    assert psu["covers_max"] is False
    assert a.metrics()["it_power_kw"] == pytest.approx(10.2)


def test_nvl72_sweep_xdr_rows_count_xdr_optics():
    """The shipped NIC sweep's CX-8 / Q3400 media (its second values) carry XDR optics:
    the CX-8 point run with them and with bare fibre ({}) differs by the optics alone."""
    import yaml

    import infra
    from conftest import ROOT

    grid = yaml.safe_load((ROOT / "sweeps" / "nvl72_nic_oversub.yaml").read_text())
    pick = {"tray": [1], "switch": [1], "supply": [1], "leaf_oversubscription": [0]}
    for name, p in grid["parameters"].items():
        p["values"] = [{}, p["values"][1]] if name.endswith("_media") else \
            [p["values"][i] for i in pick[name]]
    grid["zip"] = [["leaf_media", "spine_media"]]  # the media pairs stay together
    bare, xdr = infra.sweep(DESIGNS / "gb200_nvl72_576.yaml", grid).frame().to_dict("records")
    # the design's in-band Ethernet fabric (not swept) keeps its 318 MMA4Z00-NS modules
    # (144 + 87 + 87) and 12.442 kW (7 SN5600 x 1,096 W + 318 x 15 W) in both points
    inband_mods, inband_kw = 318, 7 * 1.096 + 318 * 0.015
    assert (bare["status"], xdr["status"]) == ("ok", "ok")
    assert bare["transceivers_per_gpu"] == pytest.approx(inband_mods / 576, abs=1e-4)  # rounded
    # 144 trays x 4 CX-8 = 576 node links; 8 leaves (4 rails x 2) x 72 uplinks = 576
    # leaf-spine links. Modules: 576 MMS4A20-XM800 + (288 + 288 + 288) MMS4A00-XM = 1,440
    assert xdr["transceivers_per_gpu"] == pytest.approx((1440 + inband_mods) / 576, abs=1e-4)
    # fabric: 12 Q3400 x 2,465 W [est] = 29.58 kW + 864 twin-ports x 25 W [3P] = 21.6 kW
    assert bare["fabric_power_kw"] == pytest.approx(29.58 + inband_kw)
    assert xdr["fabric_power_kw"] == pytest.approx(29.58 + 21.6 + inband_kw)
    # IT adds the switch-side optics and, for these sum-of-parts trays, the node-end
    # modules: 576 x 13.2 W [est] = 7.6032 kW -> +29.2032 kW
    assert xdr["it_power_kw"] - bare["it_power_kw"] == pytest.approx(21.6 + 7.6032, abs=1e-3)
