"""Site naming for `infra export` and `infra history` (issue 29 item 5): the --host-map /
--host-regex of `infra diff` name the exported nodes and place recorded hosts."""

from __future__ import annotations

import json

import pytest

from conftest import ROOT
from infra.exports import export_design
from infra.ingest.hostmap import HostMapError, host_regex, load_host_map
from infra.ingest.site_names import site_names
from infra.ingest.slots import design_nodes
from infra.models.resolve import load_design
from test_ingest_hostmap import REGEX, _site_inventory

DESIGN = ROOT / "designs/dgx_h100_su.yaml"
# literal text and digit groups: a regex that can write names as well as read them
WRITABLE = r"a01-p1-dgx-(?P<group>\d{2})-c(?P<group_node>\d{2})"


@pytest.fixture(scope="module")
def rd():
    return load_design(DESIGN)


def _map(tmp_path, text, name="hosts.csv"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_map_names_the_node_at_its_rack_and_slot(tmp_path, rd):
    # rack 2 slot 3 is the 7th node of the SU (4 DGX a rack: 4 + 3): su0/r1/t2
    m = load_host_map(_map(tmp_path, "host,rack,slot\ngpu-b07,2,3\nnot-here,99,1\n"))
    sn = site_names(design_nodes(rd), m)
    assert sn.names == {"su0/r1/t2": "gpu-b07"}
    assert "31 of 32 design nodes" in sn.notes[0] and "'not-here'" in sn.notes[1]
    slurm = export_design(rd, "slurm", names=sn.names)
    tree = slurm.files[0].text
    # r002n03 (rack 2, slot 3) is gone, its place in the SU's switch taken by gpu-b07
    assert "gpu-b07" in tree and "r002n03" not in tree and "r002n04" in tree
    labels = json.loads(export_design(rd, "k8s", names=sn.names).files[0].text)["nodes"]
    assert "gpu-b07" in labels and "r002n03" not in labels and len(labels) == 32
    nb = next(f for f in export_design(rd, "netbox", names=sn.names).files
              if f.path == "netbox/bundle.json")
    b = json.loads(nb.text)
    dev = next(d for d in b["devices"] if d["name"] == "gpu-b07")
    # where the design's r002n03 sits: rack su0.r1, U19 (see infra.exports.netbox.bundle)
    assert (dev["rack"]["name"], dev["position"]) == ("su0.r1", 19)
    ends = {c["a_terminations"][0]["device"] for c in b["cables"]}
    assert "gpu-b07" in ends and "r002n03" not in ends  # cables end on the same device
    cab = export_design(rd, "cabling", names=sn.names).files[0].text.splitlines()
    mine = [r.split(",") for r in cab[1:] if ",gpu-b07," in r]
    assert len(mine) == 8 and all(r[0] == "su0/r1" for r in mine)  # 8 rail ports, its rack


def test_writable_regex_names_every_node(rd):
    sn = site_names(design_nodes(rd), host_regex(WRITABLE))
    assert len(sn.names) == 32 and sn.notes == ()
    # SU 1: rack 8 slot 4 is node 4 x 7 + 4 = 32 of the SU
    assert sn.names["su0/r7/t3"] == "a01-p1-dgx-01-c32"
    tree = export_design(rd, "slurm", names=sn.names).files[0].text
    assert "Nodes=a01-p1-dgx-01-c[01-32]" in tree


def test_regex_that_cannot_write_names_is_refused(rd):
    with pytest.raises(HostMapError, match="cannot write one: '.\\*-dgx-'"):
        site_names(design_nodes(rd), host_regex(REGEX))
    with pytest.raises(HostMapError, match="not a host name it matches itself"):
        # 32 nodes: n32 does not fit one digit
        site_names(design_nodes(rd), host_regex(r"n(?P<index>\d{1})"))


@pytest.mark.parametrize("text, line, what", [
    ("host,rack,slot\na1,1,1\nb1,1,1\n", 3, "'a1' (line 2) and 'b1' are both design node su0/r0/t0"),
    ("host,rack,slot\nok,1,2\nBad_Name,1,1\n", 3, "'Bad_Name' is not a host name"),
    ("host,rack,slot\nr001n02,1,1\n", 2, "su0/r0/t1 keeps that name from the pattern"),
    ("host,rack,slot\nx,one,1\n", 2, "rack must be a whole number"),
])
def test_bad_map_exits_2_with_file_and_line(tmp_path, run_cli, text, line, what):
    p = _map(tmp_path, text)
    for args in (("export", str(DESIGN), "--to", "slurm", "-o", str(tmp_path / "out")),
                 ("history", "drift", "--design", str(DESIGN), "--db",
                  f"sqlite:///{tmp_path}/h.db")):
        res = run_cli(*args, "--host-map", str(p))
        assert res.exit_code == 2, res.output
        assert f"hosts.csv:{line}:" in res.output and what in res.output, res.output
        assert "Traceback" not in res.output
    assert not (tmp_path / "out").exists()  # nothing written


def test_export_cli_names_and_notes(tmp_path, run_cli):
    p = _map(tmp_path, "host,rack,slot\ngpu-a01,1,1\n")
    res = run_cli("export", str(DESIGN), "--to", "k8s", "-o", str(tmp_path / "o"),
                  "--host-map", str(p))
    assert res.exit_code == 0, res.output
    assert "note: 31 of 32 design nodes are not in the host map hosts.csv" in res.output
    script = (tmp_path / "o/k8s/label-nodes.sh").read_text()
    assert "gpu-a01" in script and "r001n01" not in script
    both = run_cli("export", str(DESIGN), "--to", "k8s", "--host-map", str(p),
                   "--host-regex", WRITABLE)
    assert both.exit_code == 2 and "choose one" in both.output


def test_history_record_places_site_hosts(tmp_path, run_cli):
    inv = _site_inventory(tmp_path)  # a01-p1-dgx-01-c01..c04, rack 1 of SU 1
    db = f"sqlite:///{tmp_path}/h.db"
    rec = run_cli("history", "record", str(inv), "--design", str(DESIGN), "--db", db,
                  "--at", "2025-03-01T00:00Z", "--host-regex", REGEX)
    assert rec.exit_code == 0, rec.output
    at = run_cli("history", "at", "2025-03-02", "--db", db, "--kind", "host", "--format", "json")
    rows = json.loads(at.output)["parts"]
    # c0K is node K of SU 1 = rack 1 slot K = su0/r0/t(K-1)
    assert sorted((r["host"], r["rack"], r["slot"]) for r in rows) == [
        (f"a01-p1-dgx-01-c0{k}", "su0/r0", f"su0/r0/t{k - 1}") for k in range(1, 5)]
    drift = run_cli("history", "drift", "--design", str(DESIGN), "--db", db, "--format",
                    "json", "--host-regex", WRITABLE)
    snap = json.loads(drift.output)["snapshots"][0]
    assert snap["design_hosts_present"] == 4 and snap["hosts_not_in_design"] == 0
    plain = json.loads(run_cli("history", "drift", "--design", str(DESIGN), "--db", db,
                               "--format", "json").output)["snapshots"][0]
    assert plain["design_hosts_present"] == 0 and plain["hosts_not_in_design"] == 4
    no_design = run_cli("history", "record", str(inv), "--db", db, "--host-regex", REGEX)
    assert no_design.exit_code == 2 and "give --design" in no_design.output


def test_anchored_regex_writes_the_same_names(rd):
    plain = site_names(design_nodes(rd), host_regex(r"dgx-(?P<index>\d{3})")).names
    anchored = site_names(design_nodes(rd), host_regex(r"^dgx-(?P<index>\d{3})$")).names
    assert plain == anchored and plain["su0/r7/t3"] == "dgx-032"  # node 32 in build order


def test_exports_without_host_names_say_the_map_is_unused(tmp_path, run_cli):
    res = run_cli("export", str(DESIGN), "--to", "graphml", "-o", str(tmp_path / "g"),
                  "--host-regex", WRITABLE)
    assert res.exit_code == 0, res.output
    assert "--to graphml writes no host names" in res.output
