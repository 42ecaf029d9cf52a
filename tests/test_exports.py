"""Exports: Slurm, Kubernetes labels, GraphML; golden files and the format checkers.

Golden files live in tests/golden/exports/<design>/ and were checked by hand against
the rules quoted in each test (regenerate with INFRA_UPDATE_GOLDEN=1, then re-check).
"""

from __future__ import annotations

import io
import json
import os
from collections import Counter

import networkx as nx
import pytest

from conftest import DESIGNS, ROOT
from infra.exports import export_design
from infra.exports.common import ExportError
from infra.exports.hostlist import compress, expand
from infra.exports.k8s import check_label
from infra.exports.slurm_check import check_block_conf, check_block_sizes, check_tree_conf
from infra.models.resolve import load_design

GOLDEN = ROOT / "tests" / "golden" / "exports"
FIXTURES = ROOT / "tests" / "fixtures" / "designs"
MISSING_RACK = FIXTURES / "nvl72_missing_rack.yaml"


def _design(name):
    return load_design(MISSING_RACK if name == "nvl72_missing_rack" else DESIGNS / f"{name}.yaml")


def _golden(design: str, ex) -> dict[str, str]:
    """Compare every file of ``ex`` with its golden copy; return {path: text}."""
    out = {}
    for f in ex.files:
        path = GOLDEN / design / f.path
        if os.environ.get("INFRA_UPDATE_GOLDEN"):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f.text)
        assert path.exists(), f"missing golden {path}"
        assert f.text == path.read_text(), f"{path} differs from the export"
        out[f.path] = f.text
    return out


def _lines(text: str, key: str) -> list[str]:
    return [x for x in text.splitlines() if x.startswith(key)]


def test_slurm_nvl72_su_eight_blocks_of_18():
    files = _golden("gb200_nvl72_576", export_design(_design("gb200_nvl72_576"), "slurm"))
    block = files["slurm/topology.block.conf"]
    blocks = _lines(block, "BlockName=")
    # 8 NVL72 racks = 8 NVLink domains of 18 trays, in rack order
    assert len(blocks) == 8
    assert all(len(expand(b.split("Nodes=")[1])) == 18 for b in blocks)
    assert blocks[0] == "BlockName=su0.r0 Nodes=r001n[01-18]"
    # 8 blocks: 18 x 2^k for k = 0..log2(8) = 3
    assert _lines(block, "BlockSizes=") == ["BlockSizes=18,36,72,144"]
    tree = files["slurm/topology.tree.conf"]
    # 144 trays over 32-port leaf groups: ceil(144 / 32) = 5 logical leaves under one spine
    assert len(_lines(tree, "SwitchName=su0.leaf")) == 5
    assert _lines(tree, "SwitchName=spine") == ["SwitchName=spine Switches=su0.leaf[0-4]"]


def test_slurm_nvl36x2_rack_blocks_under_the_domain():
    files = _golden("aws_nvl36x2", export_design(_design("aws_nvl36x2"), "slurm"))
    block = files["slurm/topology.block.conf"]
    # two NVL36 racks of 9 trays form one 72-GPU domain: rack = base block, pair = domain
    assert _lines(block, "BlockName=") == ["BlockName=ultraserver0.r0 Nodes=r001n[01-09]",
                                           "BlockName=ultraserver0.r1 Nodes=r002n[01-09]"]
    assert _lines(block, "BlockSizes=") == ["BlockSizes=9,18"]
    assert "# ultraserver0.r0=ultraserver0/d0 (rack ultraserver0/r0)" in block
    assert "slurm/topology.tree.conf" not in files  # no fabric in this design


def test_slurm_superpod_tree_one_logical_leaf_per_su():
    files = _golden("dgx_h100_superpod", export_design(_design("dgx_h100_superpod"), "slurm"))
    assert "slurm/topology.block.conf" not in files  # each DGX is its own 8-GPU domain
    tree = files["slurm/topology.tree.conf"]
    leaves = _lines(tree, "SwitchName=superpod0.su")
    # 4 SUs: the 8 rail leaves of an SU carry the same nodes -> one switch each (31, 32 x 3)
    assert [len(expand(x.split("Nodes=")[1])) for x in leaves] == [31, 32, 32, 32]
    assert _lines(tree, "SwitchName=spine") == [
        "SwitchName=spine Switches=superpod0.su_first0,superpod0.su[0-2]"]
    assert tree.count("rail0.leaf0") == 4
    doc = __import__("yaml").safe_load(files["slurm/topology.yaml"])
    assert doc[0]["topology"] == "fabric" and doc[0]["cluster_default"] is True
    assert doc[0]["tree"]["switches"][0] == {
        "switch": "spine", "children": "superpod0.su_first0,superpod0.su[0-2]"}


def test_slurm_missing_rack_gets_a_placeholder_block():
    files = _golden("nvl72_missing_rack", export_design(_design("nvl72_missing_rack"), "slurm"))
    blocks = _lines(files["slurm/topology.block.conf"], "BlockName=")
    # SU 1: 8 racks; SU 2: 7 racks + the absent 8th slot, so the 2nd SU starts at block 8
    # and every 2/4/8-block aggregate stays inside one SU
    assert len(blocks) == 16 and blocks[8].startswith("BlockName=cluster0.su_short0.r0 ")
    assert blocks[15] == "BlockName=cluster0.su_short0.absent7"
    assert _lines(files["slurm/topology.block.conf"], "BlockSizes=") == ["BlockSizes=18,36,72,144,288"]
    yaml_blocks = __import__("yaml").safe_load(files["slurm/topology.yaml"])[0]["block"]["blocks"]
    assert yaml_blocks[15] == {"block": "cluster0.su_short0.absent7"}


def test_slurm_no_topology_is_exit_2(run_cli, tmp_path):
    r = run_cli("export", str(DESIGNS / "llama3_h100_16k.yaml"), "--to", "slurm",
                "-o", str(tmp_path))
    assert r.exit_code == 2 and "neither multi-node NVLink domains nor a fabric" in r.output
    assert not list(tmp_path.iterdir())


def test_custom_host_pattern_reaches_the_files(run_cli, tmp_path):
    r = run_cli("export", str(DESIGNS / "dgx_h100_su.yaml"), "--to", "slurm", "-o",
                str(tmp_path), "--hostnames", "dgx-su01-{index:03d}")
    assert r.exit_code == 0, r.output
    conf = (tmp_path / "slurm" / "topology.tree.conf").read_text()
    assert "SwitchName=su0 Nodes=dgx-su01-[001-032]" in conf  # the man page's SU example
    r = run_cli("export", str(DESIGNS / "dgx_h100_su.yaml"), "--to", "slurm", "-o",
                str(tmp_path), "--hostnames", "DGX_{index}")
    assert r.exit_code == 2 and "not a valid host name" in r.output


# --- Slurm checker: negative cases from block_record.c and topology.conf(5) ----------

@pytest.mark.parametrize("text,fragment", [
    # Slurm's testsuite block_bad_options case: 12 is not a power of two of 4
    ("BlockName=b1 Nodes=n[01-04]\nBlockSizes=4,12\n", "12 is not the 4-node base"),
    ("BlockName=b1 Nodes=n[01-04]\nBlockName=b1 Nodes=n[05-08]\nBlockSizes=4\n",
     "defined twice"),
    ("BlockSizes=4,8\n", "no BlockName lines"),
    ("BlockName=b1 Nodes=n[01-04]\nBlockName=b2 Nodes=n[04-07]\nBlockSizes=4\n",
     "node n04 is in block b1 and in block b2"),
    ("BlockName=b1 Nodes=n[01-04]\nBlockSizes=4,8,4\n", "must increase"),
    ("BlockName=b1 Nodes=n[01-04]\nBlockSizes=0\n", "positive"),
    ("BlockName=b1 Nodes=x[1-4]\nBlockSizes=4\n", "not a node of the design"),
])
def test_block_checker_rejects(text, fragment):
    with pytest.raises(ExportError, match=fragment):
        check_block_conf(text, [f"n{i:02d}" for i in range(1, 9)])


def test_block_checker_limits_and_positional_aggregates():
    check_block_sizes([4 << k for k in range(16)])  # 2^15 x base: the last legal level
    with pytest.raises(ExportError, match="at most 2\\^15"):
        check_block_sizes([4 << k for k in range(17)])
    text = "".join(f"BlockName={b} Nodes=n[{4 * i + 1:02d}-{4 * i + 4:02d}]\n"
                   for i, b in enumerate("abcd")) + "BlockSizes=4,8,16\n"
    check_block_conf(text, None, {"a": "su0", "b": "su0", "c": "su1", "d": "su1"})
    # SUs of two blocks written interleaved: the 8-node aggregate a+b spans two SUs
    with pytest.raises(ExportError, match="out of fabric order"):
        check_block_conf(text, None, {"a": "su0", "b": "su1", "c": "su0", "d": "su1"})


@pytest.mark.parametrize("text,fragment", [
    ("SwitchName=s0 Nodes=n[01-02]\nSwitchName=s0 Nodes=n03\n", "defined twice"),
    ("SwitchName=" + "s" * 65 + " Nodes=n01\n", "1-64 characters"),
    ("SwitchName=top Switches=s[0-1]\nSwitchName=s0 Nodes=n01\n", "unknown child switch 's1'"),
    ("SwitchName=a Switches=b\nSwitchName=b Switches=a\n", "switch loop"),
    ("SwitchName=a\n", "neither Nodes= nor Switches="),
    ("SwitchName=a Nodes=n01\nSwitchName=b Nodes=n01\n", "node n01 is in leaf switch a"),
])
def test_tree_checker_rejects(text, fragment):
    with pytest.raises(ExportError, match=fragment):
        check_tree_conf(text)


def test_hostlist_round_trip_of_every_export():
    ex = export_design(_design("dgx_h100_superpod"), "slurm")
    conf = ex.files[0].text
    names = [n for line in _lines(conf, "SwitchName=superpod0")
             for n in expand(line.split("Nodes=")[1])]
    assert len(names) == len(set(names)) == 127
    assert compress(names) and expand(compress(names)) == names
    assert compress(["n9", "n10", "n11"]) == "n9,n[10-11]"  # widths differ: no range
    assert expand("a[1-3],b") == ["a1", "a2", "a3", "b"]


# --- Kubernetes labels ------------------------------------------------------------

def test_k8s_labels_nvl72_su():
    files = _golden("gb200_nvl72_576", export_design(_design("gb200_nvl72_576"), "k8s"))
    doc = json.loads(files["k8s/labels.json"])
    labels = doc["nodes"]
    assert len(labels) == 144
    # tray 1 of rack 2 (node 19): domain = its rack, leaf group 0 (nodes 1-32), then spine
    assert labels["r002n01"] == {"accelerator.topograph.run/domain": "su0.r1",
                                 "fabric.topograph.run/tier-0": "su0.leaf0",
                                 "fabric.topograph.run/tier-1": "spine"}
    assert Counter(v["accelerator.topograph.run/domain"] for v in labels.values()) == {
        f"su0.r{k}": 18 for k in range(8)}
    sh = files["k8s/label-nodes.sh"]
    assert sh.count("kubectl label node ") == 144


def test_k8s_nvl36x2_sub_domain_is_the_rack():
    labels = json.loads(export_design(_design("aws_nvl36x2"), "k8s").files[0].text)["nodes"]
    assert labels["r002n09"] == {"accelerator.topograph.run/domain": "ultraserver0.d0",
                                 "accelerator.topograph.run/sub-domain": "ultraserver0.r1"}


@pytest.mark.parametrize("key,value,fragment", [
    ("fabric.topograph.run/tier-0", "a" * 64, "value must be at most 63"),
    ("fabric.topograph.run/tier-0", "-leaf", "value must be"),
    ("Fabric_Topograph/tier-0", "s1", "DNS subdomain"),
    ("fabric.topograph.run/" + "t" * 64, "s1", "key name must be 1-63"),
    ("fabric.topograph.run/", "s1", "key name must be 1-63"),
])
def test_k8s_label_checker_rejects(key, value, fragment):
    with pytest.raises(ExportError, match=fragment):
        check_label(key, value)


# --- GraphML ------------------------------------------------------------------------

@pytest.mark.parametrize("design", ["dgx_h100_superpod", "gb200_nvl72_576",
                                    "aws_nvl36x2_cluster"])
def test_graphml_cluster_round_trip_counts_equal_infra_design(design):
    from infra.analysis.summary import analyze_file

    m = analyze_file(DESIGNS / f"{design}.yaml").metrics()
    ex = export_design(_design(design), "graphml", scope="cluster")
    g = nx.read_graphml(io.StringIO(ex.files[0].text))
    kinds = Counter(d["kind"] for _, d in g.nodes(data=True))
    assert kinds["gpu"] == m["gpus"] and kinds["compute_tray"] == m["compute_trays"]
    # the GraphML holds the design's own racks (compute, management/storage), not the
    # network racks the cabling plan adds
    assert kinds["rack"] == m["compute_racks"] + m["other_racks"]
    assert kinds["leaf_switch"] + kinds["tor_switch"] == m["leaf_switches"]
    assert kinds["spine_switch"] == m["spine_switches"]
    a = analyze_file(DESIGNS / f"{design}.yaml")
    links = sum(d["links"] for _, _, d in g.edges(data=True))
    assert links == sum(t.down_links for f in a.fabrics for t in f.tiers)
    assert all("label" in d and "weight" in d for _, d in g.nodes(data=True))
    assert all("label" in d and "weight" in d for _, _, d in g.edges(data=True))
    assert all(d["kind"] != "contains" for _, _, d in g.edges(data=True))
    assert g.graph["design"] == a.rd.name and g.graph["scope"] == "cluster"


def test_graphml_superpod_link_count():
    g = nx.read_graphml(io.StringIO(export_design(_design("dgx_h100_superpod"), "graphml",
                                                  scope="cluster").files[0].text))
    # 127 DGX x 8 rails = 1,016 node links + 32 leaves x 32 uplinks = 1,024: 2,040
    assert sum(d["links"] for _, _, d in g.edges(data=True)) == 2040
    assert g.nodes["superpod0/su0/r0/t0"]["parent"] == "superpod0/su0/r0"
    assert g.nodes["superpod0/su0/r0"]["weight"] == 32  # 4 DGX x 8 GPUs


def test_graphml_cluster_scope_has_a_size_limit(run_cli, tmp_path):
    r = run_cli("export", str(DESIGNS / "llama3_h100_16k.yaml"), "--to", "graphml", "--scope",
                "cluster", "-o", str(tmp_path))
    assert r.exit_code == 2 and "limited to 4,096 GPUs" in r.output and "16,384" in r.output


@pytest.mark.parametrize("to,scope", [("slurm", "fabric"), ("k8s", "fabric"),
                                      ("graphml", "cluster"), ("graphml", "domain"),
                                      ("nccl", "fabric"), ("cabling", "fabric"),
                                      ("netbox", "fabric")])
def test_exports_are_byte_identical_between_runs(run_cli, tmp_path, to, scope):
    design = str(DESIGNS / "gb200_nvl72_576.yaml")
    for d in ("a", "b"):
        r = run_cli("export", design, "--to", to, "--scope", scope, "-o", str(tmp_path / d))
        assert r.exit_code == 0, r.output
    a = {p.relative_to(tmp_path / "a"): p.read_bytes() for p in (tmp_path / "a").rglob("*") if p.is_file()}
    b = {p.relative_to(tmp_path / "b"): p.read_bytes() for p in (tmp_path / "b").rglob("*") if p.is_file()}
    assert a == b and a


# --- NCCL topology XML ----------------------------------------------------------------

def test_nccl_nvl72_tray_xml():
    files = _golden("gb200_nvl72", export_design(_design("gb200_nvl72"), "nccl"))
    xml = files["nccl/nvidia-gb200-compute-tray.xml"]
    lines = xml.splitlines()
    assert lines[0] == '<system version="1">' and not xml.startswith("<?xml") and "\t" not in xml
    # 2 Grace (arm64) x (2 B200 + 2 CX-7 + 1 BlueField-3)
    assert xml.count('<cpu numaid=') == 2 and xml.count('arch="arm64"') == 2
    assert xml.count('sm="100"') == 4  # CUDA compute capability 10.0 (B200)
    # every NVL72 GPU: 18 NVLink-5 links to the rack's NVSwitches, one NVS row
    assert xml.count('<nvlink target="fffffff:ffff:ff" count="18" tclass="0x068000"/>') == 4
    # C2C: 450 GB/s per direction -> bw 450000 (MB/s) x count 1 = 450 GB/s in NCCL's units
    assert xml.count('<c2c bw="450000" count="1"/>') == 4
    # 4 CX-7 400G IB: speed in Mb/s; 2 BlueField-3 B3240 dual-port 400G Ethernet (4 ports)
    assert xml.count('class="0x020700"') == 4 and xml.count('class="0x020000"') == 2
    assert xml.count('speed="400000"') == 4 + 4 and xml.count('speed="200000"') == 0
    ex = export_design(_design("gb200_nvl72"), "nccl")
    assert any("placeholders" in w for w in ex.warnings)


def test_nccl_dgx_h100_xml():
    files = _golden("dgx_h100_su", export_design(_design("dgx_h100_su"), "nccl"))
    xml = files["nccl/nvidia-dgx-h100.xml"]
    # 2 x Xeon 8480C: CPUID family 6, model 0x8F = 143 (Sapphire Rapids-X)
    assert xml.count('<cpu numaid="') == 2 and xml.count(
        'arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143"') == 2
    # GPU k and NIC k under CX-7 k's integrated PCIe Gen5 switch (8 switches)
    assert xml.count('class="0x060400" link_speed="32.0 GT/s PCIe" link_width="16"') == 8
    # 18 NVLink-4 links per H100 over 4 NVSwitches: 5+5+4+4 (NCCL #1182 shows 4/5/5/4)
    import re
    for gpu in re.findall(r"<gpu .*?</gpu>", xml, re.S):
        counts = sorted(int(c) for c in re.findall(r'count="(\d+)"', gpu))
        assert counts == [4, 4, 5, 5]
    assert xml.count('sm="90"') == 8 and xml.count("<net ") == 8 + 4


@pytest.mark.parametrize("mutate,fragment", [
    (lambda x: '<?xml version="1.0" encoding="utf-8"?>\n' + x, "XML declaration"),
    (lambda x: x.replace("  <cpu", "\t<cpu", 1), "a tab"),
    (lambda x: x.replace(' arch="arm64">', '\n arch="arm64">', 1), "one whole element per line"),
    (lambda x: x.replace('count="1"/>', 'count="1" />', 1), "no space before '/>'"),
    (lambda x: x.replace('<system version="1">', '<system version="2">'), 'needs version="1"'),
    (lambda x: x.replace(' rank="0"', "", 1), "lacks required attribute(s) ['rank']"),
    (lambda x: x.replace('link_speed="32.0 GT/s PCIe"', 'link_speed="32 GT/s Gen5"', 1),
     "not a string NCCL knows"),
    (lambda x: x.replace('name="nic0"', 'name="' + "n" * 256 + '"'), "limited to 255"),
    (lambda x: x.replace('<net name="nic0"', '<net' + "".join(f' a{i}="1"' for i in range(16))
                         + ' name="nic0"'), "21 attributes; NCCL keeps 16"),
    (lambda x: x.replace("<nic>", "<gpu dev=\"9\" sm=\"100\" rank=\"9\" gdr=\"1\">", 1)
     .replace("</nic>", "</gpu>", 1), "cannot sit under"),
    (lambda x: x.replace("</system>", ""), "never closed"),
    (lambda x: x.replace('arch="arm64"', 'arch="x86_64"', 1), "['vendor']"),
])
def test_nccl_checker_rejects(mutate, fragment):
    from infra.exports.nccl_check import check_nccl_xml

    xml = export_design(_design("gb200_nvl72"), "nccl").files[0].text
    check_nccl_xml(xml)
    with pytest.raises(ExportError) as exc:
        check_nccl_xml(mutate(xml))
    assert fragment in str(exc.value)


def test_nccl_checker_element_limit():
    from infra.exports.nccl_check import check_nccl_xml

    body = "".join('  <cpu numaid="0" arch="arm64">\n  </cpu>\n' for _ in range(256))
    with pytest.raises(ExportError, match="more than 256 elements"):
        check_nccl_xml('<system version="1">\n' + body + "</system>\n")


# --- Network placement and the cabling plan -----------------------------------------

def test_superpod_network_racks_and_elevations():
    from infra.analysis.layout.placement import network_placement
    from infra.analysis.summary import analyze_file

    p = network_placement(_design("dgx_h100_superpod"))
    # 32 leaves (8 per SU) + 16 spines, all placed; a 42U rack holds (42 - 2) // (1 + 1) = 20
    # 1U switches, so one leaf rack per SU at the end of its row and one spine rack
    assert len(p.switches) == 48
    assert [(r.path, len(r.switches)) for r in p.racks] == [
        ("superpod0/su_first0/n0", 8), ("superpod0/su0/n0", 8), ("superpod0/su1/n0", 8),
        ("superpod0/su2/n0", 8), ("network/n0", 16)]
    # leaf power: QM9700 1,096 W [estimate] + its optics: (1,016 + 1,024) links / 2 per
    # twin-port OSFP / 32 leaves = 31.875 x 17 W = 541.875 W -> 1,637.875 W per leaf
    leaf = p.switches["superpod0/su0.rail0.leaf0"]
    assert leaf.power_w == pytest.approx(1637.875) and leaf.unknown == ()
    assert (leaf.u, p.switches["superpod0/su0.rail7.leaf0"].u) == (42, 28)
    rows = analyze_file(DESIGNS / "dgx_h100_superpod.yaml").tables()["rack_elevation"]
    net = [r for r in rows if r["layout"].startswith("network:")]
    assert len(net) == 8 + 16 and {r["unit"] for r in net} == {"nvidia-quantum-2-qm9700"}


def test_superpod_cabling_both_ends_placed_and_lengths():
    ex = export_design(_design("dgx_h100_superpod"), "cabling")
    rows = list(__import__("csv").reader(io.StringIO(ex.files[0].text)))
    header, body = rows[0], rows[1:]
    assert header[:8] == ["Rack", "U", "Name", "HCA/Port", "Rack", "U", "Name", "Port"]
    assert len(body) == 2040  # 1,016 node links + 1,024 leaf-spine links
    assert all(r[0] and r[1] and r[4] and r[5] for r in body)  # rack and U at both ends
    first = dict(zip(header, body[0]))
    # DGX 1 (rack superpod0/su_first0/r0, row 0 slot 0, U35 of 42) to rail-0 leaf (leaf
    # rack at slot 8, U42): 8 x 0.6 m + (42-35+1) x 0.04445 + 0.5 + (42-42+1) x 0.04445
    # + 0.5 + 1.0 slack = 7.200 m -> 7.5 m (0.5 m steps)
    assert (first["Length (m)"], first["A split"], first["B split"]) == ("7.5", "1/1", "1/1")
    assert all(r[header.index("Reach OK")] == "True" for r in body)
    assert "cabling/dgx_h100_superpod.xlsx" in [f.path for f in ex.files]


def test_cabling_xlsx_reads_back_equal_to_csv():
    from openpyxl import load_workbook

    ex = export_design(_design("dgx_h100_su"), "cabling")
    data = next(f.data for f in ex.files if f.path.endswith(".xlsx"))
    ws = load_workbook(io.BytesIO(data))["compute"]
    csv_rows = list(__import__("csv").reader(io.StringIO(ex.files[0].text)))
    # 32 DGX x 8 rails = 256 node links; 8 leaves x 32 uplinks (64 ports, 1:1) = 256
    assert ws.max_row == len(csv_rows) == 1 + 256 + 256
    # UFM P2P: the node's HCA port number (its first fabric port, nic0/p0, is 1)
    assert [c.value for c in ws[2]][:4] == ["su0/r0", 35, "r001n01", 1]
    assert ws["L2"].value == "nic0/p0" and ws.freeze_panes == "A2"


def test_in_rack_tors_are_placed_in_free_u():
    from infra.analysis.layout.placement import network_placement

    p = network_placement(_design("aws_nvl36x2_cluster"))
    # 6 x 2U ToRs per NVL36 rack, below the 27U of trays: U1, 3, 5, 7, 9, 11
    tors = [s for s in p.switches.values() if s.rack == "cluster0/ultraserver0/r0"]
    assert [s.u for s in tors] == [1, 3, 5, 7, 9, 11]
    assert [r.path for r in p.racks] == ["network/n0"]  # 12 spines (2U): 40 // 3 = 13 per rack


def test_cabling_needs_a_fabric(run_cli, tmp_path):
    r = run_cli("export", str(DESIGNS / "gb200_nvl72.yaml"), "--to", "cabling", "-o", str(tmp_path))
    assert r.exit_code == 2 and "has no fabric" in r.output


# --- NetBox ----------------------------------------------------------------------------

def test_netbox_device_types_and_bundle_superpod():
    ex = export_design(_design("dgx_h100_superpod"), "netbox")
    paths = [f.path for f in ex.files]
    assert {"netbox/device-types/NVIDIA/DGX-H100.yaml",
            "netbox/device-types/NVIDIA/Quantum-2-QM9700.yaml"} <= set(paths)
    files = {f.path: f.text for f in ex.files}
    import yaml as _yaml

    from infra.exports.netbox_check import check_device_type
    qm = _yaml.safe_load(files["netbox/device-types/NVIDIA/Quantum-2-QM9700.yaml"])
    check_device_type(qm)
    # QM9700: 64 NDR ports (the stored devicetype-library file lists 62, missing P22.1, P23.0)
    assert len(qm["interfaces"]) == 64 and {i["type"] for i in qm["interfaces"]} == {"infiniband-ndr"}
    dgx = _yaml.safe_load(files["netbox/device-types/NVIDIA/DGX-H100.yaml"])
    # 8 x CX-7 400G IB + 2 x dual-port CX-7 200G (IB first in its protocols)
    assert [i["type"] for i in dgx["interfaces"]].count("infiniband-ndr") == 8
    assert dgx["u_height"] == 8.0 and dgx["is_full_depth"] is True
    b = json.loads(files["netbox/bundle.json"])
    # 32 compute racks + 4 leaf racks + 1 spine rack; 127 DGX + 96 PDUs + 48 switches
    assert (len(b["racks"]), len(b["devices"]), len(b["cables"])) == (37, 271, 2040)
    c = b["cables"][0]
    assert c["a_terminations"][0]["object_type"] == "dcim.interface" and c["length_unit"] == "m"
    assert c["profile"] == "single-1c1p" and c["type"] == "smf-os2"  # MMS4X00-NS is single-mode
    head = files["netbox/csv/6-cables.csv"].splitlines()[0]
    assert head.startswith("side_a_device,side_a_type,side_a_name,side_b_device")


@pytest.mark.parametrize("change,fragment", [
    ({"slug": "NVIDIA DGX"}, "slug must match"),
    ({"u_height": 1.25}, "multiple of 0.5"),
    ({"part_number": "x" * 51}, "50 characters"),
    ({"weight": 10}, "weight and weight_unit"),
    ({"colour": "green"}, "not in the devicetype-library schema"),
    ({"interfaces": [{"name": "p0", "type": "osfp-800"}]}, "not a NetBox interface type"),
    ({"interfaces": [{"name": "p0", "type": "other"}, {"name": "p0", "type": "other"}]}, "repeats"),
    ({"power-ports": []}, "no power source"),
    ({"power-ports": [{"name": "PSU1", "type": "c20"}]}, "not a NetBox power-port type"),
    ({"power-ports": [{"name": "PSU1", "type": "other", "maximum_draw": 0.5}]}, "maximum_draw"),
    ({"slug": "nv-x"}, "start with the manufacturer 'nvidia'"),
    ({"model": "Y"}, "end with the model 'y'"),
])
def test_netbox_device_type_checker_rejects(change, fragment):
    from infra.exports.netbox_check import check_device_type

    dt = {"manufacturer": "NVIDIA", "model": "X", "slug": "nvidia-x", "u_height": 1,
          "is_full_depth": True, "power-ports": [{"name": "PWR", "type": "other"}]}
    check_device_type(dt)
    with pytest.raises(ExportError, match=fragment):
        check_device_type({**dt, **change})
    with pytest.raises(ExportError, match="missing required"):
        check_device_type({k: v for k, v in dt.items() if k != "is_full_depth"})


def test_cabling_geometry_override(run_cli, tmp_path):
    r = run_cli("export", str(DESIGNS / "dgx_h100_su.yaml"), "--to", "cabling", "-o",
                str(tmp_path), "--rack-width-m", "0.8")
    assert r.exit_code == 0, r.output
    first = (tmp_path / "cabling" / "compute.csv").read_text().splitlines()[1].split(",")
    # as the 7.5 m case, with 8 x 0.8 m along the row: 6.4 + 0.8556 + 0.6334 + 1.0 = 8.89
    # -> 9.0 m
    assert first[-3] == "9.0"
    r = run_cli("export", str(DESIGNS / "dgx_h100_su.yaml"), "--to", "cabling", "-o",
                str(tmp_path), "--row-pitch-m", "-1")
    assert r.exit_code == 2 and "plausible" in r.output
