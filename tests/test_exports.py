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
    assert kinds["rack"] == m["racks"]
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
                                      ("graphml", "cluster"), ("graphml", "domain")])
def test_exports_are_byte_identical_between_runs(run_cli, tmp_path, to, scope):
    design = str(DESIGNS / "gb200_nvl72_576.yaml")
    for d in ("a", "b"):
        r = run_cli("export", design, "--to", to, "--scope", scope, "-o", str(tmp_path / d))
        assert r.exit_code == 0, r.output
    a = {p.relative_to(tmp_path / "a"): p.read_bytes() for p in (tmp_path / "a").rglob("*") if p.is_file()}
    b = {p.relative_to(tmp_path / "b"): p.read_bytes() for p in (tmp_path / "b").rglob("*") if p.is_file()}
    assert a == b and a
