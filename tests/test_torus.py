"""Switchless rings and tori (issue 29, items 1, 2 and 4): TPU v5p pod and Trn2 UltraServer
golden figures, the k-ary n-torus bisection against networkx min cuts on independently
built tori and on the domain graphs, the consistency check (no figure above what the
links carry), unused-link warnings, blast radius and the collective model's answer.

Published figures (primary documents, as cited in the catalog entries):
- Google Cloud TPU v5p page: 8,960 chips per pod; 1,200 GBps bidirectional ICI per chip
  (600 per direction; "4,800 Gbps" on the training page); 3D torus; 4x4x4 = 64 chips per
  cube; largest slice 16x16x24 (6,144 chips). No bisection figure is published.
- AWS Neuron "Amazon EC2 Trn2 architecture": 16 Trainium2 per instance in a 4x4 2D torus,
  4 instances in rings = 64 devices; 1,024 GB/s/device intra-instance, 256 inter-instance
  (1,280 = Trainium2's "1.28 TB/sec per chip"); 6,144 GiB and 185.6 TB/s per UltraServer.
  No bisection figure is published.
"""

from __future__ import annotations

import itertools
import math
import random
import shutil
from dataclasses import replace

import networkx as nx
import pytest

from infra.errors import TopologyError
from infra.models.resolve import load_design
from infra.topology.scaleup import (check_consistency, scale_up_domains, torus_bisection,
                                    torus_coords, torus_hops)
from tests.conftest import CATALOGS, DESIGNS


# --- an independent torus: every chip, both neighbours of every dimension -------------

def _torus(shape, per_neighbour_gbyte_s):
    """networkx torus built from coordinates alone: each chip sends half of each
    neighbour pair's capacity from either end (a dimension of 2: both neighbours are the
    same chip, so that pair's edge gets both)."""
    g = nx.Graph()
    for c in itertools.product(*(range(k) for k in shape)):
        for d, k in enumerate(shape):
            if k == 1:
                continue
            for step in (1, -1):
                nb = list(c)
                nb[d] = (c[d] + step) % k
                nb = tuple(nb)
                cap = g.edges[c, nb]["capacity"] if g.has_edge(c, nb) else 0.0
                g.add_edge(c, nb, capacity=cap + per_neighbour_gbyte_s[d] / 2)
    return g


def _cut(g, a):
    """Capacity crossing between node set ``a`` and the rest (all nodes are chips, so the
    min cut between the two halves is exactly the crossing capacity)."""
    a = set(a)
    return sum(d["capacity"] for u, v, d in g.edges(data=True) if (u in a) != (v in a))


def _min_bisection(g, seed=0):
    """Smallest cut found among planar halves of every dimension, random halves and
    Kernighan-Lin refinements (networkx), each split into two equal halves."""
    nodes = sorted(g)
    n = len(nodes)
    dims = len(nodes[0])
    shape = tuple(max(c[d] for c in nodes) + 1 for d in range(dims))
    best = math.inf
    for d, k in enumerate(shape):
        for start in range(k):  # the half-ring of dimension d starting at `start`
            if k % 2:
                continue
            a = [c for c in nodes if (c[d] - start) % k < k // 2]
            best = min(best, _cut(g, a))
    rng = random.Random(seed)
    for _ in range(4):
        a = rng.sample(nodes, n // 2)
        best = min(best, _cut(g, a))
        a, _b = nx.algorithms.community.kernighan_lin_bisection(g, weight="capacity", seed=rng.randrange(1 << 30))
        if len(a) == n // 2:
            best = min(best, _cut(g, a))
    return best


@pytest.mark.parametrize("shape,links,rate", [
    ((8,), (2,), 50.0),                 # a ring: 2 x 1 link x 50 = 100
    ((6,), (4,), 25.0),                 # ring, 2 links per neighbour: 2 x 2 x 25 = 100
    ((4, 4), (2, 2), 100.0),            # 2 x 4 pairs x 100 = 800
    ((4, 6), (2, 2), 100.0),            # cut across 6: 2 x 24/6 x 100 = 800
    ((2, 4), (2, 2), 100.0),            # k=2: 4 pairs x 2 links = 800; across 4: 2 x 2 x 100 = 400
    ((2, 2, 2), (2, 2, 2), 100.0),      # 4 pairs x 2 links x 100 = 800
    ((4, 4, 4), (2, 2, 2), 100.0),      # 2 k^(n-1) = 32 pairs x 100 = 3,200
    ((4, 4, 4), (4, 4, 2), 128.0),      # Trn2: z cut 2 x 16 x 128 = 4,096; x cut 8,192
    ((4, 4, 8), (2, 2, 2), 100.0),      # across 8: 2 x 16 x 100 = 3,200
])
def test_torus_bisection_is_the_min_cut(shape, links, rate):
    per_nb = tuple((dl if k == 2 else dl / 2) * rate for k, dl in zip(shape, links))
    g = _torus(shape, tuple(dl / 2 * rate for dl in links))
    # the formula never overstates: no split found is smaller, and the planar one equals it
    want = torus_bisection(shape, links, rate)
    assert _min_bisection(g) == pytest.approx(want)
    n = math.prod(shape)
    # independent arithmetic: 2 N / k_d neighbour pairs for k_d > 2, N / 2 pairs for k_d = 2
    cuts = [(2 * n / k if k > 2 else n / 2) * p for k, p in zip(shape, per_nb) if k > 1]
    assert want == pytest.approx(min(cuts))


def test_k_ary_n_cube_is_2_k_to_the_n_minus_1_links():
    for k, n in ((4, 2), (4, 3), (6, 2), (8, 1)):
        assert torus_bisection((k,) * n, (2,) * n, 1.0) == 2 * k ** (n - 1)


def test_hops_and_coordinates():
    # 4x4x4: diameter 2+2+2 = 6; a 4-ring's distances 0,1,2,1 -> mean 1 per dimension,
    # 3 over the 64 chips (self included) -> 3 x 64/63 over distinct pairs
    assert torus_hops((4, 4, 4)) == (6, pytest.approx(3 * 64 / 63))
    # 16x20x28: 8 + 10 + 14 = 32
    assert torus_hops((16, 20, 28))[0] == 32
    # blocks filled first, x fastest: chip 64 is the first chip of the second cube (x = 4)
    assert torus_coords(64, (16, 20, 28), (4, 4, 4)) == (4, 0, 0)
    assert torus_coords(63, (16, 20, 28), (4, 4, 4)) == (3, 3, 3)
    assert torus_coords(4 * 64, (16, 20, 28), (4, 4, 4)) == (0, 4, 0)  # 4 cubes fill x
    seen = {torus_coords(i, (8, 4, 4), (4, 4, 4)) for i in range(128)}
    assert len(seen) == 128


# --- golden: the shipped designs ------------------------------------------------------

@pytest.fixture(scope="module")
def tpu(catalog):
    return load_design(DESIGNS / "tpu_v5p_pod.yaml", catalog)


@pytest.fixture(scope="module")
def trn2(catalog):
    return load_design(DESIGNS / "trn2_ultraserver.yaml", catalog)


def test_tpu_v5p_pod_golden(tpu):
    doms = scale_up_domains(tpu)
    assert len(doms) == 1
    d = doms[0]
    assert (d.count, d.gpus, d.topology, d.shape) == (1, 8960, "torus", (16, 20, 28))  # Google: 8,960
    # 6 links x 100 GB/s = 600 GB/s per direction = Google's 1,200 GBps bidirectional / 2
    assert (d.links_per_gpu, d.gbyte_s_per_gpu) == (6, 600.0)
    # cut across z (28): 2 x 8,960/28 = 640 neighbour pairs x 1 link x 100 GB/s
    assert d.bisection_gbyte_s == 64_000.0
    # Google's largest slice, 16x16x24: 2 x 16 x 16 x 100 = 51,200 GB/s
    assert torus_bisection((16, 16, 24), (2, 2, 2), 100.0) == 51_200.0
    assert d.diameter_hops == 8 + 10 + 14
    # optical links between cubes: per dimension a quarter of the 8,960 neighbour pairs
    # cross a cube face: 3 x 2,240 = 6,720 (140 cubes x 96 face links / 2 ends)
    assert d.cross_rack_links == 6720 == 140 * 96 // 2
    g = d.graph
    ocs = sum(1 for _, _, e in g.edges(data=True) if e.get("via") == "ocs")
    assert ocs == 6720
    assert not d.warnings


def test_trn2_ultraserver_golden(trn2):
    from infra.analysis.summary import analyze

    (d,) = scale_up_domains(trn2)
    assert (d.count, d.gpus, d.shape) == (1, 64, (4, 4, 4))  # AWS: 64 Trainium2 devices
    # 1,024 intra-instance + 256 inter-instance = 1,280 GB/s per chip (AWS)
    assert d.gbyte_s_per_gpu == 1280.0
    chip = "r0.t0.trn0"
    by_dim = {0: 0.0, 1: 0.0, 2: 0.0}
    for _, _, e in d.graph.edges(chip, data=True):
        if e.get("kind") == "nvlink":
            by_dim[e["dim"]] += e["gbyte_s"]
    # x and y: 2 neighbours x 256 = 512 each, 1,024 together; z: 2 x 128 = 256
    assert by_dim == {0: 512.0, 1: 512.0, 2: 256.0}
    # the z rings cross the instances: chip 0 of instance 0 and of instance 1 are neighbours
    assert d.graph.has_edge("r0.t0.trn0", "r0.t1.trn0")
    # bisection: z cut 2 x 16 x 128 = 4,096 GB/s (x or y: 2 x 16 x 256 = 8,192)
    assert d.bisection_gbyte_s == 4096.0
    m = analyze(trn2).metrics()
    # AWS: 6,144 GiB device memory = 64 x 96 GiB; 185.6 TB/s = 64 x 2.9
    assert m["hbm_tbyte"] == pytest.approx(64 * 96 * 2**30 / 1e12, rel=1e-3)
    assert m["hbm_tbyte_s"] == pytest.approx(185.6)
    # AWS's UltraServer table prints 80 FP8 / 40 BF16 PFLOPS (its per-instance 20 / 10
    # rounded down from 16 x 1.299 = 20.8 and 16 x 0.667 = 10.7): 64 x 1,299 = 83.1 PF
    assert m["peak_dense_pflops_fp8"] == pytest.approx(64 * 1299 / 1000)
    assert m["peak_dense_pflops_bf16"] == pytest.approx(64 * 667 / 1000)


def test_consistency_holds_for_every_shipped_design(catalog):
    for f in sorted(DESIGNS.glob("*.yaml")):
        for d in scale_up_domains(load_design(f, catalog)):
            assert d.gbyte_s_per_gpu <= d.gpu.scale_up.gbyte_s + 1e-9 if d.gpu.scale_up else True
            assert d.bisection_gbyte_s <= d.gpus / 2 * d.gbyte_s_per_gpu + 1e-9, (f.name, d.name)


def test_domain_graph_cut_equals_counted_bisection(trn2, catalog, tmp_path):
    """The scale-up graph itself (not only the formula): min cuts on the Trn2 domain graph
    and on a two-cube TPU pod (4x4x8, OCS between the cubes)."""
    text = (DESIGNS / "tpu_v5p_pod.yaml").read_text().replace("cube: 140", "cube: 2").replace(
        "torus: [16, 20, 28]", "torus: [4, 4, 8]")
    (tmp_path / "two.yaml").write_text(text)
    for rd in (trn2, load_design(tmp_path / "two.yaml", catalog)):
        (d,) = scale_up_domains(rd)
        chips = sorted(n for n, k in d.graph.nodes(data="kind") if k == "gpu")
        nv = nx.Graph()
        nv.add_edges_from((u, v, {"capacity": e["gbyte_s"]}) for u, v, e in d.graph.edges(data=True)
                          if e.get("kind") == "nvlink")
        relabel = nx.relabel_nodes(nv, _chip_coords(d, chips))
        assert _min_bisection(relabel) == pytest.approx(d.bisection_gbyte_s)
        # per chip: the sum of its edges is the per-GPU figure
        assert {sum(e["capacity"] for _, _, e in nv.edges(c, data=True)) for c in chips} == {
            d.gbyte_s_per_gpu}


def _chip_coords(d, chips):
    """Chip name -> torus coordinate, numbering chips rack by rack, tray by tray."""
    def key(name):
        r, t, c = name.split(".")
        return int(r[1:]), int(t[1:]), int(c.lstrip("abcdefghijklmnopqrstuvwxyz_"))
    order = sorted(chips, key=key)
    return {c: torus_coords(i, d.shape, d.block) for i, c in enumerate(order)}


def test_expanded_graph_reads_the_same_figures(trn2):
    from infra.topology.expanded import expanded_cluster_graph

    g = expanded_cluster_graph(trn2)
    chips = [n for n, k in g.nodes(data="kind") if k == "gpu"]
    assert len(chips) == 64
    nv = nx.Graph((u, v) for u, v, e in g.edges(data=True) if e.get("kind") == "nvlink")
    assert nx.number_connected_components(nv) == 1
    assert all(nv.degree(c) == 6 for c in chips)  # 6 neighbours in a 4x4x4 torus


# --- item 2: no figure above what the links carry -------------------------------------

def test_inconsistent_figures_are_errors(trn2):
    (d,) = scale_up_domains(trn2)
    # half the chips x per-chip = 32 x 1,280 = 40,960 GB/s: one more is an error
    with pytest.raises(TopologyError, match="exceeds what half its GPUs can send"):
        check_consistency(replace(d, bisection_gbyte_s=40_961.0))
    check_consistency(replace(d, bisection_gbyte_s=40_960.0))
    # 10 links x 128 = 1,280 GB/s declared: 1,281 per chip is an error
    with pytest.raises(TopologyError, match="exceeds the 1,280.0 GB/s its declared links carry"):
        check_consistency(replace(d, gbyte_s_per_gpu=1281.0))


def _catalog_with(tmp_path, files):
    from infra.models.catalog import load_catalog

    root = tmp_path / "catalogs"
    shutil.copytree(CATALOGS, root)
    for name, text in files.items():
        (root / name).write_text(text)
    return load_catalog(root)


MESH4 = """\
kind: gpu
slug: test-mesh4
vendor: test
name: four-link mesh chip
form_factor: OAM
peak_dense_tflops: {bf16: 100}
scale_up: {technology: test link, links: 4, link_gbyte_s: 128, topology: mesh}
sources: [{id: T, title: test part, tag: assumption}]
"""
TRAY16 = """\
kind: compute_tray
slug: test-tray16
vendor: test
name: 16 mesh chips
form: server
u_height: 4
components: [{id: gpu, type: test-mesh4, count: 16}]
sources: [{id: T, title: test part, tag: assumption}]
"""


def test_mesh_with_fewer_links_than_peers_is_an_error(tmp_path):
    # The case: 16 chips of 4 links x 128 GB/s as a 'mesh' got (16/2)^2 x 128 =
    # 8,192 GB/s of bisection, twice what 8 chips x 512 GB/s can send (4,096).
    cat = _catalog_with(tmp_path, {"gpus/test-mesh4.yaml": MESH4, "trays/test-tray16.yaml": TRAY16})
    d = tmp_path / "d.yaml"
    d.write_text("name: m\nracks:\n  r:\n    type: generic-42u-air-rack\n    contents:\n"
                 "      - {type: test-tray16, count: 1}\nbuild: {r: 1}\n")
    with pytest.raises(TopologyError, match="needs 15 links per GPU .* declares 4"):
        scale_up_domains(load_design(d, cat))


def test_unused_links_are_a_warning_that_says_why(catalog, tmp_path):
    from infra.analysis.summary import analyze

    # one TPU v5p host alone: its 4 chips form one ring, 2 of 6 links used
    d = tmp_path / "host.yaml"
    d.write_text("name: h\nracks:\n  r:\n    type: generic-42u-air-rack\n    contents:\n"
                 "      - {type: google-tpu-v5p-host, count: 1}\nbuild: {r: 1}\n")
    (dom,) = scale_up_domains(load_design(d, catalog))
    assert (dom.topology, dom.gpus, dom.links_per_gpu, dom.gbyte_s_per_gpu) == ("ring", 4, 2, 200.0)
    assert "6 ICI (inter-chip interconnect) links declared, 2 used" in dom.warnings[0]
    # a 2x2x1 torus pod (Google's one-host slice): dimension 2 holds one chip, 4 of 6 used
    d.write_text("name: h\nracks:\n  r:\n    type: generic-42u-air-rack\n    contents:\n"
                 "      - {type: google-tpu-v5p-host, count: 1}\npods:\n  p:\n    racks: {r: 1}\n"
                 "    scale_up: {torus: [2, 2, 1]}\nbuild: {p: 1}\n")
    rd = load_design(d, catalog)
    (dom,) = scale_up_domains(rd)
    assert (dom.links_per_gpu, dom.gbyte_s_per_gpu) == (4, 400.0)
    # a dimension of 2 joins each pair with both its links: the cut across x crosses
    # N/2 = 2 pairs x 2 links x 100 GB/s = 400 GB/s
    assert dom.bisection_gbyte_s == 400.0
    assert "dimension(s) 2" in dom.warnings[0] and "2 links have no neighbour" in dom.warnings[0]
    rows = analyze(rd).tables()["assumptions"]
    assert any("scale-up links unused" in r["value"] for r in rows if r["item"] == "warning")
    # the MI300X mesh uses all its 7 links: no warning
    (mi,) = scale_up_domains(load_design(DESIGNS / "mi300x_cluster.yaml", catalog))
    assert not mi.warnings


def test_bad_torus_input_exits_2_with_file_and_line(run_cli, tmp_path):
    text = (DESIGNS / "trn2_ultraserver.yaml").read_text().replace("[4, 4, 4]", "[4, 4, 3]")
    f = tmp_path / "bad.yaml"
    f.write_text(text)
    res = run_cli("design", str(f))
    assert res.exit_code == 2
    line = next(i for i, l in enumerate(text.splitlines(), 1) if "torus: [4, 4, 3]" in l)
    assert f"bad.yaml:{line}" in res.output and "64 chips; a 4x4x3 torus needs 48" in res.output


# --- blast radius -------------------------------------------------------------------

def _rows(rd):
    from infra.analysis.summary import analyze

    return {r["component"].split(" in ")[0]: r for r in analyze(rd).tables()["blast_radius"]}


def test_blast_radius_tpu_switches_out_a_cube(tpu):
    rows = _rows(tpu)
    chip = rows["one chip (google-tpu-v5p)"]
    # the chip is lost; its cube (64) is switched out, the other 139 cubes rejoined
    assert (chip["gpus_lost"], chip["largest_placeable_job_gpus"]) == (1, 8960 - 64)
    link = next(r for k, r in rows.items() if k.startswith("one ICI"))
    # 0 lost, its two ends keep 5 of 6 links; 8,960 chips x 3 dimensions = 26,880 links
    assert (link["gpus_lost"], link["gpus_degraded"], link["count"]) == (0, 2, 26_880)
    assert link["degraded_bandwidth_fraction"] == round(5 / 6, 4)
    assert link["largest_placeable_job_gpus"] == 8960


def test_blast_radius_trn2_leaves_out_a_slab(trn2):
    rows = _rows(trn2)
    chip = rows["one chip (aws-trainium2)"]
    # no OCS: the rings through the chip break; 4x4x4 less its 16-chip z slab = 48
    assert (chip["gpus_lost"], chip["gpus_degraded"], chip["largest_placeable_job_gpus"]) == (1, 6, 48)
    inst = rows["aws-trn2-48xlarge"]
    assert (inst["gpus_lost"], inst["largest_placeable_job_gpus"]) == (16, 48)
    link = next(r for k, r in rows.items() if k.startswith("one NeuronLink"))
    # the worst link is an in-instance pair: 2 of 10 link units, 8/10 kept
    assert link["degraded_bandwidth_fraction"] == 0.8


# --- item 4: the collective model -----------------------------------------------------

def test_no_collective_model_is_said_for_tpu_and_trainium(run_cli):
    for f, slug in (("tpu_v5p_pod.yaml", "google-tpu-v5p"), ("trn2_ultraserver.yaml", "aws-trainium2")):
        res = run_cli("collectives", str(DESIGNS / f))
        assert res.exit_code == 2
        assert f"no collective model for GPU {slug!r}" in res.output


def test_ring_all_reduce_over_a_torus_uses_the_links_in_use(trn2, catalog):
    from infra.analysis.perf.algorithms import candidates, job_bandwidth
    from infra.analysis.perf.inputs import design_tiers, place_job

    t = replace(design_tiers(trn2), model=catalog.get("nccl-sm90", "collective_model"))
    pl = place_job(t, 64)
    bw = job_bandwidth(t, t.model, pl)
    # 10 links in use x the model's per-link rate; never NVLS (no switch)
    assert bw.up == pytest.approx(10 * t.model.scale_up_link_gbyte_s)
    assert bw.up_label.startswith("torus links per chip (10 x")
    algos = {c.algorithm for c in candidates("all_reduce", t, t.model, pl, bw)}
    assert "NVLS" not in algos and "Ring" in algos
