"""AMD nodes (issue 29 item 6): rocm-smi --showtopo, the concise rocm-smi table and
amd-smi static (JSON and text) read into the as-built model and diffed against the MI300X
platform's 7 Infinity Fabric links a GPU."""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import ROOT
from infra.ingest.amd import parse_amd_static, parse_rocm_smi, parse_showtopo
from infra.ingest.base import InventoryError
from infra.ingest.diff import diff_file

REAL = ROOT / "tests/fixtures/real/amd-mi308x-node"
NODE = REAL / "r001n01"
MI300X = ROOT / "designs/mi300x_cluster.yaml"


def test_real_showtopo_8_gpus_all_xgmi():
    t = parse_showtopo(NODE / "rocm-smi-showtopo.txt")
    assert t.gpus == tuple(range(8))
    # a full mesh of 8: each GPU reaches the other 7 over XGMI in one hop
    assert [t.xgmi_links(g) for g in t.gpus] == [7] * 8
    assert t.numa == {0: 0, 1: 0, 2: 0, 3: 0, 4: 1, 5: 1, 6: 1, 7: 1}


def test_real_concise_rocm_smi_device_ids():
    assert parse_rocm_smi(NODE / "rocm-smi.txt") == {i: "0x74a2" for i in range(8)}


def test_real_mi308x_node_is_not_the_mi300x_designed():
    """The MI300X entry carries AMD's ids (0x74a1 = 29857 physical, 0x74b5 = 29877 virtual,
    rocprofiler-compute's chip_ids); the real node reports 0x74a2 (MI308X, 29858 there)."""
    res = diff_file(MI300X, REAL)
    assert (res.coverage.inspected_nodes, res.coverage.gpus_seen, res.errors) == (1, 8, 1)
    (e,) = res.findings
    assert e.check == "gpu-type" and e.severity == "error"
    assert "(PCI id 0x74a2)" in e.found and "amd-mi300x (PCI id 0x74a1, 0x74b5)" in e.expected


def _link_down(tmp_path, a: int, b: int):
    """The real node with its GPUs reported as MI300X (0x74a1, not the MI308X's 0x74a2,
    so the type check passes and the links are checked) and the link a-b lost."""
    inv = tmp_path / "inv"
    shutil.copytree(REAL, inv)
    smi = inv / "r001n01/rocm-smi.txt"
    smi.write_text(smi.read_text().replace("0x74a2", "0x74a1"))
    p = inv / "r001n01/rocm-smi-showtopo.txt"
    lines = p.read_text().splitlines()
    start = next(i for i, l in enumerate(lines) if "Link Type" in l) + 2
    for row, col in ((a, b), (b, a)):
        cells = lines[start + row].split()
        cells[1 + col] = "PCIE"
        lines[start + row] = "   ".join(cells)
    p.write_text("\n".join(lines) + "\n")
    return inv


def test_a_lost_xgmi_link_is_an_error_with_its_cost(tmp_path):
    res = diff_file(MI300X, _link_down(tmp_path, 2, 5))
    bad = [f for f in res.findings if f.check == "nvlink-inactive"]
    assert [f.gpu for f in bad] == ["gpu2", "gpu5"]  # no module id: file order
    # MI300X: 7 x 64 GB/s = 448 GB/s per direction; 6 links left -> 384
    assert bad[0].expected == "7 active Infinity Fabric (xGMI) links"
    assert bad[0].found == "6 active"
    assert "from 448 to 384 GB/s" in bad[0].cost and bad[0].source.endswith("showtopo.txt")


STATIC = [{"gpu": i,
           "asic": {"market_name": "AMD Instinct MI300X", "vendor_id": "0x1002",
                    "device_id": "0x74a1", "asic_serial": f"0x{i:016X}", "oam_id": 7 - i},
           "bus": {"bdf": f"0000:{0x0c + i:02x}:00.0", "max_pcie_width": 16,
                   "max_pcie_speed": {"value": 32, "unit": "GT/s"},
                   "pcie_interface_version": "Gen 5", "slot_type": "OAM"}}
          for i in range(8)]


@pytest.mark.parametrize("shape", ["list", "gpu_data"])
def test_amd_smi_static_json(tmp_path, shape):
    p = tmp_path / "amd-smi-static.json"
    p.write_text(json.dumps(STATIC if shape == "list" else {"gpu_data": STATIC}))
    gpus = parse_amd_static(p)
    g = gpus[0]
    assert (g.product, g.pci_device_id, g.serial) == ("AMD Instinct MI300X", "0x74a1",
                                                      "0x0000000000000000")
    assert [x.module_id for x in gpus] == [8, 7, 6, 5, 4, 3, 2, 1]  # oam_id 7..0, 1-based
    assert (g.bus_id, g.pcie_max_gen, g.pcie_max_width) == ("0000:0c:00.0", 5, 16)


def test_amd_smi_static_text_form(tmp_path):
    p = tmp_path / "amd-smi-static.txt"
    p.write_text("GPU: 0\n    ASIC:\n        MARKET_NAME: AMD Instinct MI300X\n"
                 "        DEVICE_ID: 0x74a1\n        OAM_ID: 3\n    BUS:\n"
                 "        BDF: 0000:0c:00.0\n        MAX_PCIE_WIDTH: 16\n"
                 "        MAX_PCIE_SPEED: 32 GT/s\n        PCIE_INTERFACE_VERSION: Gen 5\n"
                 "GPU: 1\n    ASIC:\n        MARKET_NAME: AMD Instinct MI300X\n"
                 "        DEVICE_ID: 0x74a1\n        OAM_ID: 2\n")
    a, b = parse_amd_static(p)
    assert (a.pci_device_id, a.module_id, a.pcie_max_gen, b.module_id) == ("0x74a1", 4, 5, 3)


def test_amd_node_with_static_and_topo_maps_gpus_by_oam_position(tmp_path):
    inv = tmp_path / "inv"
    shutil.copytree(REAL, inv)
    (inv / "r001n01/rocm-smi.txt").unlink()
    (inv / "r001n01/amd-smi-static.json").write_text(json.dumps(STATIC))
    res = diff_file(MI300X, inv)
    # 0x74a1 is the MI300X's id in the catalog: the type is verified, nothing differs
    assert (res.coverage.inspected_nodes, res.coverage.gpus_seen) == (1, 8)
    assert list(res.findings) == []


@pytest.mark.parametrize("name,content,message", [
    ("amd-smi-static.json", "[{\"gpu\": 0, \"asic\": {", "malformed or truncated JSON"),
    ("amd-smi-static.json", "{\"gpus_here\": 1}", "not a list of GPU objects"),
    ("amd-smi-static.json", "[" * 100_000 + "]" * 100_000, "malformed or truncated JSON"),
    ("amd-smi-static.txt", "nothing useful\n", "no `GPU: <n>` section"),
    ("rocm-smi.txt", "ROCm System Management Interface\n", "not the concise `rocm-smi`"),
    ("rocm-smi-showtopo.txt", "GPU0 GPU1\n", "not `rocm-smi --showtopo` output"),
])
def test_bad_amd_dumps_exit_2_naming_the_file(tmp_path, run_cli, name, content, message):
    node = tmp_path / "inv/r001n01"
    node.mkdir(parents=True)
    (node / name).write_text(content)
    res = run_cli("diff", str(MI300X), "--inventory", str(tmp_path / "inv"))
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output and message in res.output, res.output
    assert str(node / name) in res.output


def test_showtopo_row_shorter_than_header_names_the_line(tmp_path):
    p = tmp_path / "rocm-smi-showtopo.txt"
    p.write_text("==== Link Type between two GPUs ====\n       GPU0   GPU1\nGPU0   0\n")
    with pytest.raises(InventoryError, match="row GPU0 has 1 cells") as err:
        parse_showtopo(p)
    assert err.value.line == 3


def test_a_json_number_over_the_digit_limit_is_bad_input(tmp_path):
    p = tmp_path / "amd-smi-static.json"
    p.write_text('[{"gpu": ' + "9" * 5000 + "}]")
    with pytest.raises(InventoryError, match="malformed or truncated JSON"):
        parse_amd_static(p)


# ---- robustness: any text either parses or raises InventoryError (never another error)
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from infra.ingest.amd import parse_showtopo_text  # noqa: E402

REAL_TOPO = (NODE / "rocm-smi-showtopo.txt").read_text()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(REAL_TOPO)), st.integers(0, len(REAL_TOPO)), st.text(max_size=40))
def test_any_cut_or_splice_of_the_real_showtopo(a, b, junk):
    text = REAL_TOPO[:min(a, b)] + junk + REAL_TOPO[max(a, b):]
    try:
        t = parse_showtopo_text(text, "t.txt")
    except InventoryError:
        return
    assert all(0 <= t.xgmi_links(g) < len(t.gpus) for g in t.gpus)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                    lambda kids: st.lists(kids, max_size=3)
                    | st.dictionaries(st.sampled_from(["gpu", "asic", "bus", "oam_id",
                                                       "device_id", "value", "bdf"]), kids,
                                      max_size=4), max_leaves=12))
def test_any_json_shape_is_read_or_refused(tmp_path_factory, data):
    p = tmp_path_factory.mktemp("j") / "amd-smi-static.json"
    p.write_text(json.dumps([data]))
    try:
        parse_amd_static(p)
    except InventoryError:
        pass
