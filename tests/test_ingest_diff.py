"""``infra diff``: each fixture set gives exactly its seeded faults, a clean set none.

Seeded faults are listed in tests/fixtures/inventory/make_fixtures.py (SEEDED); the
traps (N/A bodies, zero cluster UUID on a healthy HGX, driver-535 element names, an
adapter with the default description resolved by guid-map.txt, SHARP aggregation nodes,
mixed HCA naming) must give no finding.
"""

from __future__ import annotations

import json

import pytest

from conftest import DESIGNS, ROOT
from infra.ingest.diff import diff_file

FIX = ROOT / "tests/fixtures/inventory"
H100_SU = DESIGNS / "dgx_h100_su.yaml"
NVL72 = DESIGNS / "gb200_nvl72.yaml"


def keys(res):
    return sorted((f.severity, f.check, f.node, f.gpu) for f in res.findings)


@pytest.fixture(scope="module")
def hgx():
    return diff_file(H100_SU, FIX / "hgx-h100")


@pytest.fixture(scope="module")
def gb200():
    return diff_file(NVL72, FIX / "gb200-nvl72")


def test_hgx_finds_exactly_the_seeded_faults(hgx):
    assert keys(hgx) == sorted([
        ("error", "pcie-degraded", "r001n02", "gpu3 (module 4)"),
        ("error", "gpu-missing", "r001n03", "gpu5 (module 6)"),
        ("error", "nvlink-inactive", "r002n03", "gpu5 (module 6)"),
        ("warning", "cable-wrong-port", "r001n04", None),
        ("error", "link-degraded", "r002n01", None),
        ("error", "cable-wrong-leaf", "r002n03", None),
        ("error", "nic-placement", "r002n04", "gpu6 (module 7)"),
        ("error", "nic-placement", "r001n04", "gpu2 (module 3)"),
    ])
    assert (hgx.errors, hgx.warnings) == (7, 1)
    assert (hgx.coverage.design_nodes, hgx.coverage.inspected_nodes) == (32, 8)
    # 8 nodes x 8 GPUs, one lost
    assert hgx.coverage.gpus_seen == 63 and hgx.coverage.fabric_links_seen == 64


def test_hgx_costs_from_the_design_analyses(hgx):
    by = {f.check: f for f in hgx.findings}
    pcie = by["pcie-degraded"]
    # Gen4 x16 usable: 16 GT/s x 16 x 128/130 x 256/280 = 230.5 Gb/s < the 400 Gb/s CX-7
    assert (pcie.expected, pcie.found) == ("Gen5 x16", "Gen4 x16")
    assert "drops from 400 to 230 Gb/s" in pcie.cost and (pcie.rack, pcie.u) == ("su0/r0", 27)
    nv = by["nvlink-inactive"]
    # H100: 18 x 25 GB/s = 450 GB/s per direction; 16 links -> 400
    assert "from 450 to 400 GB/s" in nv.cost and nv.found == "16 active, 2 inactive"
    slow = by["link-degraded"]
    assert slow.found == "2xNDR = 200 Gb/s" and "HCA 6 (mlx5_7)" in slow.cost
    assert "port 5" in slow.port  # r002n01 is the SU's 5th node: port 5 on every rail leaf
    wrong = by["cable-wrong-port"]
    # r001n04 is node 4 of the SU: plan port 4 on the rail-2 leaf; cabled to port 12
    assert "leaf su0.rail2.leaf0 port 4" in wrong.expected and wrong.found.endswith("port 12")
    leaf = by["cable-wrong-leaf"]
    assert "su0.rail1.leaf0 port 7" in leaf.expected and "su0.rail5.leaf0" in leaf.found
    missing = by["gpu-missing"]
    assert "7 of 8 GPUs" in missing.cost and missing.found.startswith("7 reported")


def test_hgx_nic_placement_from_topo_and_lspci(hgx):
    found = {f.node: f for f in hgx.findings if f.check == "nic-placement"}
    # topo -m: GPU6 (module 7 = design gpu6) sees every NIC at SYS
    assert found["r002n04"].found == "nearest NIC mlx5_0 at SYS (GPU6 in topo -m)"
    # lspci -tv: GPU2's switch has an empty NIC port; nearest NIC under another root port
    assert found["r001n04"].found == "nearest NIC 0000:19:00.0 at PHB (lspci -tv)"
    assert found["r001n04"].source.endswith("lspci-tv.txt")


def test_hgx_switches_identified_by_their_cables(hgx):
    leaves = {desc: leaf for _, desc, leaf in hgx.coverage.switch_map}
    assert leaves["MF0;SU1-RAIL1-LEAF1:MQM9700/U1"] == "su0.rail0.leaf0"
    assert leaves["MF0;SU1-RAIL8-LEAF1:MQM9700/U1"] == "su0.rail7.leaf0"
    assert len(leaves) == 8  # the spine carries no adapter cable


def test_gb200_finds_exactly_the_seeded_faults(gb200):
    assert keys(gb200) == sorted([
        ("error", "clique-split", None, None),
        ("error", "fabric-not-attached", "r001n15", "sc1.gpu0 (module 3)"),
        ("error", "nvlink-inactive", "r001n07", "sc0.gpu1 (module 2)"),
        ("warning", "tray-position", "r001n08", None),
        ("warning", "tray-position", "r001n09", None),
    ])


def test_gb200_clique_split_cost(gb200):
    split = next(f for f in gb200.findings if f.check == "clique-split")
    # trays 1-9: 9 x 4 = 36 GPUs in clique 1; trays 10-18: 36 less the unattached GPU = 35
    assert "2 cliques of 36 and 35: largest NVLink job 36 GPUs instead of 72" in split.cost
    assert "(71 of 72 GPUs reported a clique)" in split.cost and split.rack == "r0"
    nv = next(f for f in gb200.findings if f.check == "nvlink-inactive")
    # B200: 18 x 50 GB/s = 900 GB/s per direction; 17 links -> 850
    assert "from 900 to 850 GB/s" in nv.cost and nv.source.endswith("nvlink-s.txt")


@pytest.mark.parametrize("design,inventory", [(H100_SU, "hgx-h100-clean"), (NVL72, "gb200-nvl72-clean")])
def test_clean_fixture_gives_no_finding(design, inventory, run_cli):
    res = diff_file(design, FIX / inventory)
    assert res.findings == ()
    out = run_cli("diff", str(design), "--inventory", str(FIX / inventory))
    assert out.exit_code == 0, out.output
    assert "no finding" in out.output


def test_cli_exit_1_and_reports_read_back(tmp_path, run_cli):
    res = run_cli("diff", str(H100_SU), "--inventory", str(FIX / "hgx-h100"), "--format", "json",
                  "--report", "xlsx", "--report", "md", "-o", str(tmp_path))
    assert res.exit_code == 1  # errors gate a bring-up pipeline
    data = json.loads(res.stdout)
    assert data["summary"]["errors"] == 7 and len(data["findings"]) == 8
    from openpyxl import load_workbook

    ws = load_workbook(tmp_path / "dgx_h100_su-diff.xlsx")["Diff"]
    rows = list(ws.iter_rows(values_only=True))
    assert rows[0][:2] == ("severity", "check") and len(rows) == 9
    assert {r[1] for r in rows[1:]} == {f["check"] for f in data["findings"]}
    md = (tmp_path / "dgx_h100_su-diff.md").read_text()
    assert md.count("\n| error |") == 7 and "| warning | cable-wrong-port |" in md


def test_unknown_host_is_a_warning(tmp_path):
    import shutil

    inv = tmp_path / "inv"
    shutil.copytree(FIX / "gb200-nvl72-clean", inv)
    (inv / "r001n01").rename(inv / "gb200-node-01")
    res = diff_file(NVL72, inv)
    assert [(f.check, f.node) for f in res.findings] == [("node-unknown", "gb200-node-01")]
    named = diff_file(NVL72, FIX / "gb200-nvl72-clean", host_pattern="gb200-r{rack:02d}-t{slot:02d}")
    assert len([f for f in named.findings if f.check == "node-unknown"]) == 18


def test_default_description_without_guid_map_warns(tmp_path):
    import shutil

    inv = tmp_path / "inv"
    shutil.copytree(FIX / "hgx-h100-clean", inv)
    (inv / "r002n04").mkdir()
    shutil.copy(FIX / "hgx-h100" / "r002n04" / "nvidia-smi-q.xml", inv / "r002n04")
    shutil.copy(FIX / "hgx-h100" / "ibnetdiscover.txt", inv / "ibnetdiscover.txt")
    res = diff_file(H100_SU, inv)
    # Without guid-map.txt r002n04's 6th adapter (default description) cannot be placed:
    # a warning, and its planned cable (rail 5 leaf, port 8: r002n04 is the SU's 8th node)
    # is missing from the view. Its other 7 adapters are numbered by the leaves they
    # reach, so nothing shifts. Hosts r002n01 and r002n03 are in the fabric dump only:
    # their cables are still checked and their seeded cable faults come back.
    assert keys(res) == sorted([
        ("warning", "adapter-unmapped", None, None),
        ("error", "link-missing", "r002n04", None),
        ("error", "link-degraded", "r002n01", None),
        ("error", "cable-wrong-leaf", "r002n03", None),
        ("warning", "cable-wrong-port", "r001n04", None),
    ])
    missing = next(f for f in res.findings if f.check == "link-missing")
    assert missing.port == "leaf su0.rail5.leaf0 port 8"


def test_nic_placement_expectation_follows_the_tray_wiring(catalog):
    from infra.ingest.diff_node import expected_nic_class

    # DGX H100: GPU k and NIC k under one CX-7 integrated switch -> PIX
    assert expected_nic_class(catalog.get("nvidia-dgx-h100"), catalog, "gpu6") == "PIX"
    # GB200: the NIC hangs off Grace, reached over NVLink-C2C -> not checked from topo -m
    assert expected_nic_class(catalog.get("nvidia-gb200-compute-tray"), catalog, "sc0.gpu0") is None


def test_csv_output(run_cli):
    res = run_cli("diff", str(NVL72), "--inventory", str(FIX / "gb200-nvl72"), "--format", "csv")
    assert res.exit_code == 1
    lines = res.stdout.strip().splitlines()
    assert lines[0].startswith("severity,check,rack,u,node") and len(lines) == 6


def test_to_design_writes_a_loadable_design(tmp_path, run_cli, catalog):
    from infra.models.resolve import load_design

    out = tmp_path / "found.yaml"
    res = run_cli("ingest", str(FIX / "gb200-nvl72"), "--to-design", str(out))
    assert res.exit_code == 0, res.output
    rd = load_design(out, catalog)
    (layout,) = rd.layouts.values()
    # 18 GB200 trays matched by PCI id 0x2941 (GB200 B200); ConnectX NICs seen (mlx5_*)
    # pick NVIDIA's tray over AWS's; 18 links per B200 / 2 chips per switch tray = 9
    assert [(i.part.slug, i.count) for i in layout.items] == [
        ("nvidia-gb200-compute-tray", 18), ("nvidia-nvlink5-switch-tray", 9)]
    assert rd.tray_counts()["nvidia-gb200-compute-tray"] == 18
    text = out.read_text()
    assert text.startswith("# Starting design written by `infra ingest --to-design`")

    out2 = tmp_path / "hgx.yaml"
    assert run_cli("ingest", str(FIX / "hgx-h100"), "--to-design", str(out2)).exit_code == 0
    rd2 = load_design(out2, catalog)
    # 8 DGX H100 (PCI id 0x2330; r001n03's lost GPU still counts: highest module id 8),
    # 8U each, 42U generic rack -> 5 per rack: racks of 5 and 3
    assert rd2.tray_counts() == {"nvidia-dgx-h100": 8}
    assert sorted(i.count for lay in rd2.layouts.values() for i in lay.items) == [3, 5]


def test_to_design_unknown_gpu_is_an_error(tmp_path, run_cli):
    import shutil

    inv = tmp_path / "inv"
    shutil.copytree(FIX / "hgx-h100-clean" / "r001n01", inv / "r001n01")
    p = inv / "r001n01" / "nvidia-smi-q.xml"
    p.write_text(p.read_text().replace("233010DE", "ABCD10DE"))
    res = run_cli("ingest", str(inv), "--to-design", str(tmp_path / "x.yaml"))
    assert res.exit_code == 2 and "no node matched a catalog tray type" in res.output
    assert not (tmp_path / "x.yaml").exists()


def test_other_gpu_type_is_one_finding_per_node():
    # the GB200 rack's dumps against the DGX H100 design: hosts r001n01..04 exist in both
    res = diff_file(H100_SU, FIX / "gb200-nvl72-clean")
    types = [f for f in res.findings if f.check == "gpu-type"]
    assert [f.node for f in types] == ["r001n01", "r001n02", "r001n03", "r001n04"]
    assert "PCI id 0x2330" in types[0].expected and "NVIDIA GB200 (PCI id 0x2941)" in types[0].found
    assert {f.check for f in res.findings} == {"gpu-type", "node-unknown"}


def test_expect_all_reports_nodes_without_dumps(run_cli):
    res = diff_file(H100_SU, FIX / "hgx-h100-clean", expect_all=True)
    missing = [f.node for f in res.findings if f.check == "node-missing"]
    # the clean set has rack 1 (4 nodes) of the 32-node SU: 28 nodes have no dumps
    assert len(missing) == 28 and missing[0] == "r002n01" and res.errors == 28
    out = run_cli("diff", str(H100_SU), "--inventory", str(FIX / "hgx-h100-clean"), "--expect-all")
    assert out.exit_code == 1


def test_idle_gpu_link_speed_is_info_not_error(tmp_path, run_cli):
    """Idle GPUs lower their PCIe link speed: Gen1 at P8 is info (capture under load)."""
    import shutil

    inv = tmp_path / "inv"
    shutil.copytree(FIX / "hgx-h100-clean" / "r001n01", inv / "r001n01")
    p = inv / "r001n01" / "nvidia-smi-q.xml"
    text = p.read_text()
    first = text.index("<current_link_gen>5</current_link_gen>")
    text = text[:first] + "<current_link_gen>1</current_link_gen>" + text[first + 38:]
    text = text.replace("<performance_state>P0</performance_state>",
                        "<performance_state>P8</performance_state>", 1)
    p.write_text(text)
    res = diff_file(H100_SU, inv)
    (f,) = res.findings
    # device 0 is module 2 -> design gpu1; Gen1 x16 usable: 2.5 GT/s x 16 x 8/10 x 256/280
    # = 29.3 Gb/s, so the NIC path would fall from 400 to 29 Gb/s if it stayed there
    assert (f.severity, f.check, f.gpu, f.found) == ("info", "pcie-degraded", "gpu1 (module 2)",
                                                     "Gen1 x16")
    assert "from 400 to 29 Gb/s" in f.cost and "capture under load" in f.cost
    assert run_cli("diff", str(H100_SU), "--inventory", str(inv)).exit_code == 0


def test_guid_map_names_set_the_rail_order(tmp_path):
    import shutil

    inv = tmp_path / "inv"
    shutil.copytree(FIX / "hgx-h100-clean", inv)
    # node 1's adapter GUIDs are 0xe09d7303000001<rank>; rank k is cabled to rail k
    guids = [f"0x{0xE09D730300000100 + k:016x}" for k in range(8)]
    (inv / "guid-map.txt").write_text("".join(f'{g} "r001n01 rail{k}"\n' for k, g in enumerate(guids)))
    assert diff_file(H100_SU, inv).findings == ()
    (inv / "guid-map.txt").write_text("".join(f'{g} "r001n01 rail{7 - k}"\n' for k, g in enumerate(guids)))
    wrong = diff_file(H100_SU, inv).findings
    # reversed names: every adapter of r001n01 now claims the opposite rail's leaf
    assert [f.check for f in wrong] == ["cable-wrong-leaf"] * 8
