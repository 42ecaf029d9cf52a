"""Intel Gaudi 3: the RoCE all-to-all mesh and scale-out over the accelerator's own ports.

Golden figures by hand from Intel's Gaudi docs (Network Configuration page, HABNET) and
the Gaudi 3 catalog entry (1,677 TF BF16/FP8 dense at the shipping 1,600 MHz MME clock =
Intel's 1,835 TF x 1,600 / 1,750 MHz; 128 GB HBM2e, 900 W)::

    per accelerator: 24 x 200 GbE on die = 21 scale-up (3 to each of 7 peers) + 3 scale-out
    scale-up:  21 x 200 Gb/s = 4,200 Gb/s = 525 GB/s per direction
    scale-out:  3 x 200 Gb/s =   600 Gb/s (75 GB/s) per direction
    per server: 8 x 3 = 24 ports = 6 OSFP 800 GbE cages (4 x 200 each)
"""

from __future__ import annotations

import pytest

from conftest import DESIGNS


@pytest.fixture(scope="module")
def gaudi(catalog):
    from infra.analysis.summary import analyze_file

    return analyze_file(DESIGNS / "gaudi3_cluster.yaml", catalog)


def test_gaudi3_mesh_and_own_port_scale_out(gaudi):
    m = gaudi.metrics()
    # 64 servers x 8 = 512 accelerators in 64 switchless meshes of 8
    assert (m["gpus"], m["scale_up_domains"], m["scale_up_domain_gpus"]) == (512, 64, 8)
    # 21 ports x 25 GB/s (200 Gb/s / 8) = 525 GB/s per direction (Intel: "525 GB/s")
    assert m["scale_up_gbyte_s_per_gpu"] == 525
    # mesh bisection: 4 x 4 peer bundles cross an even split, 3 x 25 = 75 GB/s each:
    # 16 x 75 = 1,200 GB/s
    assert m["scale_up_bisection_gbyte_s"] == 1200
    # scale-out on the accelerator's own 3 x 200 GbE ports: 600 Gb/s, no PCIe on the path
    assert m["scale_out_gbit_s_per_gpu_nominal"] == 600
    assert m["scale_out_gbit_s_per_gpu_effective"] == 600


def test_gaudi3_flops_and_hbm(gaudi):
    m = gaudi.metrics()
    # 512 x 1,677 TF = 858,624 TF = 858.62 PF, BF16 and FP8 alike (matrix engines at 1,600 MHz;
    # Intel's 1,835 TF at the planned 1,750 MHz would give 939.52 PF, +9.4 %)
    assert m["peak_dense_pflops_bf16"] == pytest.approx(858.624)
    assert m["peak_dense_pflops_fp8"] == pytest.approx(858.624)
    assert m["peak_sparse_pflops_bf16"] is None  # Intel publishes no sparse figure
    # 512 x 128 GB (Intel's GB are GiB: 8 HBM2e stacks of 16 GiB) = 65,536 GiB
    # = 65,536 x 2^30 B = 70.369 x 10^12 B; 512 x 3.67 TB/s = 1,879.04 TB/s
    assert m["hbm_gib"] == 65536
    assert m["hbm_tbyte"] == pytest.approx(70.369, abs=1e-3)
    assert m["hbm_tbyte_s"] == pytest.approx(1879.04)


def test_gaudi3_fabric_sized_from_accelerator_ports(gaudi):
    from infra.analysis.network.fabric import design_fabrics

    f = design_fabrics(gaudi.rd)[0]
    # 24 ports of 200 Gb/s per node (8 accelerators x 3)
    assert (f.ports_per_node, f.link_gbit_s, f.gpus_per_node, f.nodes) == (24, 200, 8, 64)
    m = gaudi.metrics()
    # a 16-node SU: 16 x 24 = 384 ports / 128 down ports (64 x 800G as 256 x 200G, half
    # down) = 3 leaves (Intel's sub-cluster: 3 leaf switches); 4 SUs -> 12
    assert m["leaf_switches"] == 12
    # node-end optics: 800G carries 4 x 200G links: 24 / 4 = 6 per node (the 6 OSFP cages)
    assert f.tiers[0].lower_end_transceivers == 64 * 6
    # bisection 512 x 600 / 2 = 153,600 Gb/s
    assert m["scale_out_bisection_tbit_s"] == pytest.approx(153.6)


def test_gaudi3_ports_draw_no_power_and_are_not_bought_apart(gaudi):
    m = gaudi.metrics()
    # per server 8 x 900 + 2 x 350 + 4 x 50 (PCIe switches) + 3,650 overhead = 11,750 W;
    # 64 servers = 752 kW, + fabric 41.504 + node optics 6.528 kW (384 x 17 W)
    assert m["it_power_kw"] == pytest.approx(752 + 41.504 + 6.528)
    assert "intel-gaudi3-scale-out-ports" not in gaudi.capex.unpriced


def test_gaudi3_blast_radius_of_own_ports(gaudi):
    row = next(r for r in gaudi.blast if r.component.startswith("intel-gaudi3-scale-out-ports"))
    # one accelerator's 3 scale-out ports: it keeps its mesh (no GPU lost) but has no
    # scale-out left; 512 such port groups in the cluster
    assert (row.count, row.gpus_lost, row.gpus_degraded) == (512, 0, 1)
    assert row.degraded_bandwidth_fraction == 0.0
    assert "own die" in row.note


def _tray(tmp_path, catalog, edit):
    from infra.models.catalog import load_catalog

    src = catalog.files["intel-gaudi3-8x-oam-server"]
    d = tmp_path / f"mine{len(list(tmp_path.iterdir()))}"
    d.mkdir()
    text = edit(src.read_text().replace("slug: intel-gaudi3-8x-oam-server", "slug: my-gaudi3-server"))
    (d / "my-gaudi3-server.yaml").write_text(text)
    return load_catalog([str(src.parents[1]), str(d)])


def test_integrated_ports_on_a_pcie_link_are_a_clear_error(catalog, tmp_path):
    from infra.errors import InfraError

    with pytest.raises(InfraError, match="integrated in its GPU's die"):
        _tray(tmp_path, catalog, lambda t: t.replace("  - {a: cpu0, b: pcisw0, lanes: 16}\n",
                                                     "  - {a: cpu0, b: pcisw0, lanes: 16}\n"
                                                     "  - {a: pcisw0, b: eth0, lanes: 16}\n"))


def test_integrated_ports_on_the_wrong_gpu_are_a_clear_error(catalog, tmp_path):
    from infra.errors import InfraError

    with pytest.raises(InfraError, match="given two integrated NICs"):
        _tray(tmp_path, catalog, lambda t: t.replace('{interface: "eth1:p0", to: gpu1}',
                                                     '{interface: "eth1:p0", to: gpu0}'))
    with pytest.raises(InfraError, match="is not assigned"):
        _tray(tmp_path, catalog, lambda t: t.replace('  - {interface: "eth7:p2", to: gpu7}\n', ""))


def test_integrated_nic_model_rules():
    from pydantic import ValidationError

    from infra.models.parts import Nic

    base = dict(slug="x-ports", vendor="X", name="X", ports=[{"name": "p0", "gbit_s": 200}],
                interfaces=[{"name": "p0", "port": "p0", "gbit_s": 200}],
                sources=[{"id": "A", "title": "t", "tag": "assumption"}])
    assert Nic(**base, role="integrated", integrated_in="intel-gaudi3-hl325l").integrated
    with pytest.raises(ValidationError, match="integrated_in"):
        Nic(**base, role="integrated")
    with pytest.raises(ValidationError, match="at least one PCIe host link"):
        Nic(**base)
    with pytest.raises(ValidationError, match="no PCIe host_links"):
        Nic(**base, role="integrated", integrated_in="gpu-x",
            host_links=[{"name": "h", "gen": 5, "lanes": 16}])


def test_more_ports_than_the_die_has_is_a_clear_error(catalog, tmp_path):
    """21 scale-up ports (7 links x 3) + an integrated NIC of 4 ports > Gaudi 3's 24."""
    from infra.errors import InfraError
    from infra.models.catalog import load_catalog

    src = catalog.files["intel-gaudi3-scale-out-ports"]
    d = tmp_path / "mine"
    d.mkdir()
    text = (src.read_text().replace("slug: intel-gaudi3-scale-out-ports", "slug: my-gaudi3-4-ports")
            .replace("  - {name: p2, gbit_s: 200}\n", "  - {name: p2, gbit_s: 200}\n"
                     "  - {name: p3, gbit_s: 200}\n"))
    (d / "my-gaudi3-4-ports.yaml").write_text(text)
    tray = (catalog.files["intel-gaudi3-8x-oam-server"].read_text()
            .replace("slug: intel-gaudi3-8x-oam-server", "slug: my-gaudi3-server")
            .replace("type: intel-gaudi3-scale-out-ports", "type: my-gaudi3-4-ports"))
    (d / "my-gaudi3-server.yaml").write_text(tray)
    with pytest.raises(InfraError, match="has 24 ports on its die; its scale-up uses 21"):
        load_catalog([str(src.parents[1]), str(d)])
