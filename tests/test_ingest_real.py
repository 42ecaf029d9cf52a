"""Real NVIDIA dumps (tests/fixtures/real, sources in SOURCES.md) and the findings a
partial capture must give (issue 29 item 6): a GB300 node recognised by its PCI id, a
truncated `nvlink -s`, an `nvlink -s` of another node, a GPU type the catalog cannot
identify."""

from __future__ import annotations

import shutil

from conftest import ROOT
from infra.ingest.diff import diff_file
from infra.ingest.hostmap import load_host_map
from infra.ingest.inventory import load_inventory
from infra.ingest.to_design import starting_design

REAL = ROOT / "tests/fixtures/real"
FIX = ROOT / "tests/fixtures/inventory"


def test_real_gb300_capture_reads_as_published():
    (node,) = load_inventory(REAL / "gb300-node").nodes
    # qx-gb300.xml: GPUs at domains 0008/0009/0018/0019, module ids 2, 1, 4, 3, tray 15,
    # Gen6 x16, clique 32766, fabric Completed/Success, PCI id 31C210DE
    assert [g.bus_id for g in node.gpus] == ["0008:06:00.0", "0009:06:00.0",
                                             "0018:06:00.0", "0019:06:00.0"]
    assert [g.module_id for g in node.gpus] == [2, 1, 4, 3]
    assert {(g.pci_device_id, g.tray_index, g.pcie_gen, g.pcie_width, g.clique_id)
            for g in node.gpus} == {("0x31c2", 15, 6, 16, 32766)}
    assert all(g.fabric_attached for g in node.gpus)


def test_real_gb300_is_recognised_and_checked(catalog):
    res = diff_file(ROOT / "designs/gb300_nvl72.yaml", REAL / "gb300-node")
    # tray 15 of rack 1 is r001n15: placed, type checked (catalog 0x31c2), nothing found
    assert (res.coverage.inspected_nodes, res.coverage.gpus_seen) == (1, 4)
    assert res.findings == ()
    draft = starting_design(load_inventory(REAL / "gb300-node"), catalog)
    assert draft.data["racks"]["rack1"]["contents"][0] == {
        "type": "nvidia-gb300-compute-tray", "count": 1}


def test_real_gb300_against_an_h100_design(tmp_path):
    inv = ROOT / "tests/fixtures/real/gb300-node"
    res = diff_file(ROOT / "designs/dgx_h100_su.yaml", inv)
    # r001n15 is no DGX H100 SU position (4 nodes a rack): placed nowhere, which is an error
    assert [f.check for f in res.findings] == ["hosts-unplaced", "node-unknown"]
    hosts = tmp_path / "hosts.yaml"
    hosts.write_text("r001n15: r001n01\n")  # the site says: this host is the SU's first DGX
    res = diff_file(ROOT / "designs/dgx_h100_su.yaml", inv, host_map=load_host_map(hosts))
    (f,) = res.findings
    assert f.check == "gpu-type" and f.node == "r001n15"
    assert "(PCI id 0x2330)" in f.expected and f.found == "NVIDIA GB300 (PCI id 0x31c2)"


def _copy(tmp_path, name):
    inv = tmp_path / "inv"
    shutil.copytree(FIX / name, inv)
    return inv


def test_truncated_nvlink_s_is_a_finding(tmp_path):
    """A paste cut after 2 of 18 links (as NVIDIA/k8s-test-infra#371's GPU 1)."""
    inv = _copy(tmp_path, "gb200-nvl72-clean")
    p = inv / "r001n01/nvlink-s.txt"
    lines = p.read_text().splitlines()
    gpu1 = next(i for i, l in enumerate(lines) if l.startswith("GPU 1:"))
    gpu2 = next(i for i, l in enumerate(lines) if l.startswith("GPU 2:"))
    p.write_text("\n".join(lines[:gpu1 + 3] + lines[gpu2:]) + "\n")  # GPU 1: links 0, 1
    res = diff_file(ROOT / "designs/gb200_nvl72.yaml", inv)
    (f,) = [f for f in res.findings if f.check == "nvlink-unlisted"]
    assert (f.severity, f.node) == ("warning", "r001n01")
    assert f.expected == "18 NVLinks listed (nvidia-b200-gb200)"
    assert f.found == "2 listed (2 active)" and "16 links are not in the dump" in f.cost
    assert not [f for f in res.findings if f.check == "nvlink-inactive"]  # none seen down


def test_nvlink_s_of_another_node_is_a_finding(tmp_path):
    inv = _copy(tmp_path, "hgx-h100-clean")
    p = inv / "r001n01/nvlink-s.txt"
    p.write_text(p.read_text().replace("UUID: GPU-", "UUID: GPU-f"))
    res = diff_file(ROOT / "designs/dgx_h100_su.yaml", inv)
    (f,) = [f for f in res.findings if f.check == "nvlink-unmatched"]
    assert f.found.startswith("8 GPU(s) in nvlink -s") and f.node == "r001n01"


def test_a_gpu_type_the_catalog_cannot_identify_is_said(tmp_path):
    """Trainium2's catalog entry has no PCI id: 8 H100s diffed against it are not silently
    accepted as Trainium2s."""
    inv = _copy(tmp_path, "hgx-h100-clean")
    res = diff_file(ROOT / "designs/trn2_ultraserver.yaml", inv)
    (f,) = [f for f in res.findings if f.check == "gpu-type-unchecked"]
    assert f.severity == "warning" and "(0x2330)" in f.found
    assert "aws-trainium2 has no pci_device_ids" in f.found
    assert f.node == "r001n01..r001n04 (4 nodes)"


def test_h100_nodes_against_hgx_b300_are_another_gpu_type(tmp_path):
    """HGX B300 carries 0x3182 (pci.ids '3182  GB110 [B300 SXM6 AC]'): the same H100 nodes
    are a gpu-type error each (they were gpu-type-unchecked before the id)."""
    inv = _copy(tmp_path, "hgx-h100-clean")
    res = diff_file(ROOT / "designs/hgx_b300_su.yaml", inv)
    assert not [f for f in res.findings if f.check == "gpu-type-unchecked"]
    bad = [f for f in res.findings if f.check == "gpu-type"]
    assert len(bad) == 4 and all(f.severity == "error" for f in bad)
    assert bad[0].expected.startswith("nvidia-b300-hgx (PCI id 0x3182)")
