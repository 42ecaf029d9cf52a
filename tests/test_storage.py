"""Storage reached by the nodes: GB/s per GPU and per job size, checkpoint write/read times.

Golden: Meta's Tectonic storage for Llama 3 ("The Llama 3 Herd of Models", arXiv
2407.21783, section 3.3.1 "Storage": 240 PB on 7,500 SSD servers, "sustainable throughput
of 2 TB/s and a peak throughput of 7 TB/s"; checkpoints save "each GPU's model state,
ranging from 1 MB to 4 GB per GPU"), in designs/meta_h100_24k.yaml.
"""

from __future__ import annotations

import pytest

from conftest import DESIGNS
from infra.analysis.network.storage import checkpoint_seconds, design_storage, job_sizes
from infra.analysis.summary import analyze, analyze_file
from infra.models.catalog import DEFAULT_CATALOG_DIR, load_catalog
from infra.models.resolve import load_design

META = DESIGNS / "meta_h100_24k.yaml"


@pytest.fixture(scope="module")
def tectonic():
    (s,) = design_storage(load_design(META))
    return s


def test_meta_tectonic_checkpoint_golden(tectonic):
    # Llama 3 pre-training ran on 16,384 GPUs; the largest state Meta gives is 4 GB per GPU:
    # 16,384 x 4e9 B = 65.536 TB at the sustained 2 TB/s -> 32.768 s
    assert checkpoint_seconds(tectonic, 16_384 * 4e9, 16_384) == pytest.approx(32.768)
    # reading it back (a restart) is bound by the same sustained figure
    assert checkpoint_seconds(tectonic, 16_384 * 4e9, 16_384, write=False) == pytest.approx(32.768)
    # at the 7 TB/s peak it would be 65.536 / 7 = 9.36 s: the peak is carried, not used
    assert tectonic.peak_gbyte_s == 7_000
    assert 16_384 * 4 / tectonic.peak_gbyte_s == pytest.approx(9.362, abs=1e-3)


def test_meta_storage_per_gpu_and_job_size(tectonic):
    assert tectonic.gpus == 24_576
    # GPU side: the DGX H100's front-end NICs, 2 x ConnectX-7 2 x 200G = 800 Gb/s per 8 GPUs
    # = 100 Gb/s = 12.5 GB/s per GPU
    assert tectonic.gpu_side_gbyte_s == pytest.approx(800 / 8 / 8)
    # one server: 8 x 12.5 = 100 GB/s, NIC-bound
    assert tectonic.job_gbyte_s(8, write=True) == pytest.approx(100)
    assert tectonic.binds(8, write=True).startswith("front_end NICs")
    # 160 GPUs reach the 2 TB/s (160 x 12.5 = 2,000); above that the storage binds
    assert tectonic.job_gbyte_s(160) == pytest.approx(2_000)
    assert tectonic.binds(16_384).startswith("storage")
    # all 16,384 Llama 3 GPUs: 2,000 / 16,384 = 0.122 GB/s each
    assert tectonic.per_gpu_gbyte_s(16_384) == pytest.approx(2_000 / 16_384)
    assert job_sizes(24_576) == [8, 64, 512, 4_096, 24_576]


def test_meta_storage_table(tectonic):
    rows = analyze_file(META).tables()["storage"]
    assert [r["gpus"] for r in rows] == [8, 64, 512, 4_096, 24_576]
    last = rows[-1]
    # 24,576 GPUs x 1 GB at 2,000 GB/s = 12.288 s
    assert last["checkpoint_write_per_gpu_gigabyte_seconds"] == pytest.approx(12.288)
    assert last["fabric"] == "not modelled"


def test_job_outside_the_design_is_refused(tectonic):
    from infra.errors import TopologyError

    with pytest.raises(TopologyError, match="between 1 and 24,576"):
        tectonic.job_gbyte_s(30_000)


APPLIANCE = """\
kind: storage_system
slug: test-flash-appliance
vendor: Test
name: Test flash appliance (8 x 200G)
read_gbyte_s: 90
write_gbyte_s: 65
ports: 8
port_gbit_s: 200
sources:
  - {id: T, title: "test entry: figures chosen for the arithmetic", tag: assumption}
"""

# appended to dgx_h100_su.yaml's fabrics (which end just before build:), then storage
STORAGE_FABRIC = """\
  frontend:
    kind: clos
    networks: [front_end]
    tiers:
      - role: leaf
        switch: nvidia-spectrum-4-sn5600
        port_gbit_s: 200
storage:
  flash:
    type: test-flash-appliance
    count: {count}
    fabric: {fabric}
"""


def _design(tmp_path, count: int, fabric: str = "frontend"):
    cat = tmp_path / "cat"
    cat.mkdir(exist_ok=True)
    (cat / "test-flash-appliance.yaml").write_text(APPLIANCE)
    text = (DESIGNS / "dgx_h100_su.yaml").read_text()
    assert "\nbuild:\n" in text and "\nfabrics:\n" in text
    text = text.replace("\nbuild:\n", "\n" + STORAGE_FABRIC.format(count=count, fabric=fabric)
                        + "build:\n", 1)
    p = tmp_path / "d.yaml"
    p.write_text(text)
    return p, [DEFAULT_CATALOG_DIR, cat]


def test_storage_on_a_fabric(tmp_path):
    p, dirs = _design(tmp_path, 4)
    a = analyze(load_design(p, load_catalog(dirs)))
    fe = next(f for f in a.fabrics if f.name == "frontend")
    # 32 DGX x 4 front-end ports of 200G = 128 links into one 256-port leaf (800G x 4)
    leaf = fe.tiers[0]
    assert (leaf.switches, leaf.down_links) == (1, 128)
    # 4 appliances x 8 ports take 32 of the leaf's free ports: 128 + 32 used, 96 free
    assert (fe.storage_ports, leaf.ports_used, leaf.ports_free) == (32, 160, 96)
    # each storage link gets a cable (here a fibre, the tier names no cable): 128 + 32
    assert fe.cables["fibre (one per link)"] == 160
    # the appliances (no power figure in this test entry) are a listed unknown, not 0 W
    assert "test-flash-appliance" in a.power.unknown
    (s,) = design_storage(a.rd)
    # storage side: read min(4 x 90, 4 x 8 x 200 / 8) = 360, write min(4 x 65, 800) = 260 GB/s
    assert (s.read_gbyte_s, s.write_gbyte_s) == (360, 260)
    # GPU side: min(NICs 800 Gb/s / 8 GPUs, the fabric's 100 Gb/s per GPU) = 12.5 GB/s
    assert s.gpu_side_gbyte_s == pytest.approx(12.5)
    # all 256 GPUs write 1 GB each: 256 / 260 = 0.985 s
    assert checkpoint_seconds(s, 256e9, 256) == pytest.approx(256 / 260)
    # one DGX: 8 x 12.5 = 100 GB/s < 260, bound by its NICs
    assert s.job_gbyte_s(8, write=True) == pytest.approx(100)


@pytest.mark.parametrize("count,fabric,fragments", [
    (17, "frontend", ["136 storage ports attach to this fabric", "128 free ports",
                      "fabrics.frontend.tiers[0]"]),
    (1, "nowhere", ["storage.flash.fabric", "'nowhere' is not a fabric", "compute", "frontend"]),
])
def test_storage_errors_exit_2(tmp_path, run_cli, count, fabric, fragments):
    p, dirs = _design(tmp_path, count, fabric)
    args = [a for d in dirs for a in ("--catalog", str(d))]
    res = run_cli("validate", str(p), *args)
    assert res.exit_code == 2, res.output
    for fr in fragments:
        assert fr in res.output, (fr, res.output)


@pytest.mark.parametrize("old,new,fragments", [
    ("type: meta-tectonic-llama3", "type: meta-tectonic-llama4",
     ["storage.tectonic.type", "unknown storage_system slug 'meta-tectonic-llama4'",
      "did you mean 'meta-tectonic-llama3'"]),
    ("    networks: [front_end]\nbuild:", "    networks: [management]\nbuild:",
     ["storage.tectonic.networks", "no tray with GPUs has a NIC on networks ['management']"]),
])
def test_bad_storage_entries_exit_2(tmp_path, run_cli, old, new, fragments):
    text = META.read_text()
    assert old in text
    p = tmp_path / "m.yaml"
    p.write_text(text.replace(old, new))
    res = run_cli("validate", str(p))
    assert res.exit_code == 2, res.output
    for fr in fragments:
        assert fr in res.output, (fr, res.output)
