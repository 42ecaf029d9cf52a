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
        ("error", "pcie-degraded", "r01-t02", "gpu3 (module 4)"),
        ("error", "gpu-missing", "r01-t03", "gpu5 (module 6)"),
        ("error", "nvlink-inactive", "r02-t03", "gpu5 (module 6)"),
        ("warning", "cable-wrong-port", "r01-t04", None),
        ("error", "link-degraded", "r02-t01", None),
        ("error", "cable-wrong-leaf", "r02-t03", None),
    ])
    assert (hgx.errors, hgx.warnings) == (5, 1)
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
    assert "port 5" in slow.port  # r02-t01 is the SU's 5th node: port 5 on every rail leaf
    wrong = by["cable-wrong-port"]
    # r01-t04 is node 4 of the SU: plan port 4 on the rail-2 leaf; cabled to port 12
    assert "leaf su0.rail2.leaf0 port 4" in wrong.expected and wrong.found.endswith("port 12")
    leaf = by["cable-wrong-leaf"]
    assert "su0.rail1.leaf0 port 7" in leaf.expected and "su0.rail5.leaf0" in leaf.found
    missing = by["gpu-missing"]
    assert "7 of 8 GPUs" in missing.cost and missing.found.startswith("7 reported")


def test_hgx_switches_identified_by_their_cables(hgx):
    leaves = {desc: leaf for _, desc, leaf in hgx.coverage.switch_map}
    assert leaves["MF0;SU1-RAIL1-LEAF1:MQM9700/U1"] == "su0.rail0.leaf0"
    assert leaves["MF0;SU1-RAIL8-LEAF1:MQM9700/U1"] == "su0.rail7.leaf0"
    assert len(leaves) == 8  # the spine carries no adapter cable


def test_gb200_finds_exactly_the_seeded_faults(gb200):
    assert keys(gb200) == sorted([
        ("error", "clique-split", None, None),
        ("error", "fabric-not-attached", "r01-t15", "sc1.gpu0 (module 3)"),
        ("error", "nvlink-inactive", "r01-t07", "sc0.gpu1 (module 2)"),
        ("warning", "tray-position", "r01-t08", None),
        ("warning", "tray-position", "r01-t09", None),
    ])


def test_gb200_clique_split_cost(gb200):
    split = next(f for f in gb200.findings if f.check == "clique-split")
    # trays 1-9: 9 x 4 = 36 GPUs in clique 1; trays 10-18: 36 less the unattached GPU = 35
    assert "2 cliques of 36 and 35: largest NVLink job 36 GPUs instead of 72" in split.cost
    assert "(71 of 72 GPUs reported a clique)" in split.cost and split.rack == "nvl720"
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
    assert data["summary"]["errors"] == 5 and len(data["findings"]) == 6
    from openpyxl import load_workbook

    ws = load_workbook(tmp_path / "dgx_h100_su-diff.xlsx")["Diff"]
    rows = list(ws.iter_rows(values_only=True))
    assert rows[0][:2] == ("severity", "check") and len(rows) == 7
    assert {r[1] for r in rows[1:]} == {f["check"] for f in data["findings"]}
    md = (tmp_path / "dgx_h100_su-diff.md").read_text()
    assert md.count("\n| error |") == 5 and "| warning | cable-wrong-port |" in md


def test_unknown_host_is_a_warning(tmp_path):
    import shutil

    inv = tmp_path / "inv"
    shutil.copytree(FIX / "gb200-nvl72-clean", inv)
    (inv / "r01-t01").rename(inv / "gb200-node-01")
    res = diff_file(NVL72, inv)
    assert [(f.check, f.node) for f in res.findings] == [("node-unknown", "gb200-node-01")]
    named = diff_file(NVL72, FIX / "gb200-nvl72-clean", host_pattern="gb200-r{rack:02d}-t{tray:02d}")
    assert len([f for f in named.findings if f.check == "node-unknown"]) == 18


def test_default_description_without_guid_map_warns(tmp_path):
    import shutil

    inv = tmp_path / "inv"
    shutil.copytree(FIX / "hgx-h100-clean", inv)
    shutil.copytree(FIX / "hgx-h100" / "r02-t04", inv / "r02-t04")
    shutil.copy(FIX / "hgx-h100" / "ibnetdiscover.txt", inv / "ibnetdiscover.txt")
    res = diff_file(H100_SU, inv)
    # Without guid-map.txt r02-t04's 6th adapter (default description) cannot be placed:
    # a warning, and its planned cable (rail 5 leaf, port 8: r02-t04 is the SU's 8th node)
    # is missing from the view. Its other 7 adapters are numbered by the leaves they
    # reach, so nothing shifts. Hosts r02-t01 and r02-t03 are in the fabric dump only:
    # their cables are still checked and their seeded cable faults come back.
    assert keys(res) == sorted([
        ("warning", "adapter-unmapped", None, None),
        ("error", "link-missing", "r02-t04", None),
        ("error", "link-degraded", "r02-t01", None),
        ("error", "cable-wrong-leaf", "r02-t03", None),
        ("warning", "cable-wrong-port", "r01-t04", None),
    ])
    missing = next(f for f in res.findings if f.check == "link-missing")
    assert missing.port == "leaf su0.rail5.leaf0 port 8"
