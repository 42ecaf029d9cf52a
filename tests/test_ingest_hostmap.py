"""Site naming (issue 29 item 5): a host regex with named groups or a CSV/YAML host map
places hosts the design's pattern cannot name; a diff that places no host is an error."""

from __future__ import annotations

import shutil

import pytest

from conftest import ROOT
from infra.ingest.diff import diff_file
from infra.ingest.hostmap import host_regex, load_host_map

CLEAN = ROOT / "tests/fixtures/inventory/hgx-h100-clean"
FAULTY = ROOT / "tests/fixtures/inventory/hgx-h100"  # seeded faults, racks 1 and 2
DESIGN = ROOT / "designs/dgx_h100_su.yaml"
# NVIDIA SuperPOD naming as in topograph's real ibnetdiscover (a05-p1-dgx-01-c01):
# <row><rack>-p1-dgx-<SU>-c<node in SU>
SITE = {f"r001n0{k}": f"a01-p1-dgx-01-c0{k}" for k in range(1, 5)}
REGEX = r".*-dgx-(?P<group>\d+)-c(?P<group_node>\d+)"


def _site_inventory(tmp_path, source=CLEAN):
    """``source`` with every r00Rn0K host renamed as the site names node 4(R-1)+K of SU 1
    (4 DGX a rack), in the host directories and the ibnetdiscover NodeDescriptions."""
    inv = tmp_path / "inv"
    shutil.copytree(source, inv)
    dumps = [p for p in (inv / "ibnetdiscover.txt", inv / "guid-map.txt") if p.exists()]
    texts = {p: p.read_text() for p in dumps}
    for d in sorted(p for p in inv.iterdir() if p.is_dir()):
        rack, node = int(d.name[1:4]), int(d.name[5:7])
        new = f"a0{rack}-p1-dgx-01-c{4 * (rack - 1) + node:02d}"
        d.rename(inv / new)
        texts = {p: t.replace(f'"{d.name} ', f'"{new} ') for p, t in texts.items()}
    for p, t in texts.items():
        p.write_text(t)
    return inv


def _shape(res):
    return sorted((f.severity, f.check, f.rack or "", f.u or 0, f.gpu or "", f.port or "",
                   f.expected.split(" ")[-1]) for f in res.findings)


@pytest.mark.parametrize("source", [CLEAN, FAULTY])
def test_regex_places_superpod_names_as_the_pattern_does(tmp_path, source):
    inv = _site_inventory(tmp_path, source)
    named = diff_file(DESIGN, source)
    site = diff_file(DESIGN, inv, host_map=host_regex(REGEX))
    # SU 01, node c0K of rack R = the SU's node 4(R-1)+K = r00Rn0K of the design
    assert site.coverage.inspected_nodes == named.coverage.inspected_nodes > 0
    assert site.coverage.fabric_links_seen == named.coverage.fabric_links_seen > 0
    assert _shape(site) == _shape(named)  # the same checks, the same results
    assert len(named.findings) > (5 if source == FAULTY else -1)  # the faults are found
    assert all(f.node is None or f.node.startswith("a0") for f in site.findings)


def test_no_host_placed_is_an_error(tmp_path, run_cli):
    inv = _site_inventory(tmp_path)
    res = run_cli("diff", str(DESIGN), "--inventory", str(inv))
    assert res.exit_code == 1, res.output
    assert "hosts-unplaced" in res.output and "0 of 4 host(s) placed" in res.output
    assert "--host-regex" in res.output
    ok = run_cli("diff", str(DESIGN), "--inventory", str(inv), "--host-regex", REGEX)
    assert ok.exit_code == 0 and "inspected 4 of 32 design nodes" in ok.output, ok.output


def test_csv_and_yaml_host_maps(tmp_path):
    inv = _site_inventory(tmp_path)
    csv = tmp_path / "hosts.csv"
    csv.write_text("host,rack,slot\n" + "".join(f"{h},1,{k}\n" for k, h in
                                                 enumerate(SITE.values(), start=1)))
    yml = tmp_path / "hosts.yaml"
    yml.write_text("".join(f"{new}: {old}\n" for old, new in SITE.items()))
    named = _shape(diff_file(DESIGN, CLEAN))
    for f in (csv, yml):
        res = diff_file(DESIGN, inv, host_map=load_host_map(f))
        assert res.coverage.inspected_nodes == 4 and _shape(res) == named


def test_a_host_the_map_does_not_name_is_unknown(tmp_path):
    inv = _site_inventory(tmp_path)
    (inv / "b11-p1-cufm-02").mkdir()
    shutil.copy(inv / "a01-p1-dgx-01-c01/nvidia-smi-q.xml", inv / "b11-p1-cufm-02")
    res = diff_file(DESIGN, inv, host_map=host_regex(REGEX))
    unknown = [f for f in res.findings if f.check == "node-unknown"]
    assert [f.node for f in unknown] == ["b11-p1-cufm-02"]
    assert "placed by the host regex" in unknown[0].expected


def test_expect_all_counts_the_placed_slots(tmp_path):
    inv = _site_inventory(tmp_path)
    res = diff_file(DESIGN, inv, expect_all=True, host_map=host_regex(REGEX))
    missing = [f for f in res.findings if f.check == "node-missing"]
    assert len(missing) == 32 - 4  # the 4 placed nodes are not missing


@pytest.mark.parametrize("args,message", [
    (["--host-regex", "(?P<rack"], "not a regular expression"),
    (["--host-regex", r"(?P<row>\d+)"], "unknown group(s) row"),
    (["--host-regex", r"n(?P<slot>\d+)"], "does not name a node"),
])
def test_bad_regex_exits_2(tmp_path, run_cli, args, message):
    res = run_cli("diff", str(DESIGN), "--inventory", str(CLEAN), *args)
    assert res.exit_code == 2 and message in res.output and "Traceback" not in res.output


@pytest.mark.parametrize("name,text,message", [
    ("h.csv", "name,rack,slot\nx,1,1\n", "no `host` column"),
    ("h.csv", "host,rack,slot\nx,1,one\n", "line 2: slot must be a whole number"),
    ("h.csv", "host,rack,aisle\nx,1,1\n", "unknown column(s) aisle"),
    ("h.csv", "host,rack\nx,1\n", "line 2: does not name a node"),
    ("h.yaml", "- a\n- b\n", "expected a mapping"),
    ("h.yaml", "x: {rack: 1, bay: 2}\n", "unknown field 'bay'"),
])
def test_bad_host_map_exits_2_naming_file_and_line(tmp_path, run_cli, name, text, message):
    p = tmp_path / name
    p.write_text(text)
    res = run_cli("diff", str(DESIGN), "--inventory", str(CLEAN), "--host-map", str(p))
    assert res.exit_code == 2, res.output
    assert message in res.output and str(p) in res.output and "Traceback" not in res.output


def test_ingest_puts_servers_in_the_racks_the_names_say(tmp_path, catalog):
    from infra.ingest.hostmap import host_regex as rx
    from infra.ingest.to_design import starting_design_dir

    inv = tmp_path / "inv"
    shutil.copytree(CLEAN, inv)
    for old, new in (("r001n01", "sjc-r06-n01"), ("r001n02", "sjc-r06-n02"),
                     ("r001n03", "sjc-r06-n03"), ("r001n04", "spare-04")):
        (inv / old).rename(inv / new)
    draft = starting_design_dir(inv, catalog, host_map=rx(r"sjc-r(?P<rack>\d+)-n\d+",
                                                          (("rack",),)))
    # rack 06 holds 3 DGX H100 as named; spare-04 matches nothing and is packed alone
    layouts = {n: r["contents"] for n, r in draft.data["racks"].items()}
    assert sorted((c[0]["count"], draft.data["build"][n]) for n, c in layouts.items()) == [
        (1, 1), (3, 1)]
    assert any("3 servers in 1 racks as the host names place them" in n for n in draft.notes)


def test_ingest_cli_host_regex_needs_only_a_rack(tmp_path, run_cli):
    out = tmp_path / "d.yaml"
    ok = run_cli("ingest", str(CLEAN), "--to-design", str(out), "--host-regex",
                 r"r(?P<rack>\d+)n\d+")
    assert ok.exit_code == 0, ok.output
    bad = run_cli("ingest", str(CLEAN), "--to-design", str(out), "--host-regex", r"r\d+")
    assert bad.exit_code == 2 and "needs the groups rack" in bad.output


@pytest.mark.parametrize("value", ["²", "0"])
def test_map_numbers_are_ascii_and_from_one(tmp_path, value):
    """'²' is a digit to str.isdigit but not to int (was an internal error, exit 3); 0 is
    not a 1-based number: both exit 2 naming the map's line (review finding)."""
    from infra.ingest.hostmap import HostMapError, load_host_map

    f = tmp_path / "hosts.csv"
    f.write_text(f"host,rack,slot\nr001n01,{value},1\n", encoding="utf-8")
    with pytest.raises(HostMapError, match="whole number from 1"):
        load_host_map(f)


def test_ingest_refuses_a_map_that_overfills_a_rack(tmp_path):
    """Eight 8U DGX H100 named into one site rack need 64U, more than the draft's 42U
    generic rack: exit 2 naming the rack and its U, not a draft that fails validation
    (review finding)."""
    from infra.errors import InfraError
    from infra.ingest.to_design import starting_design_dir
    from infra.models.catalog import load_catalog

    src = ROOT / "tests" / "fixtures" / "inventory" / "hgx-h100-clean"
    hosts = sorted(p for p in src.iterdir() if p.is_dir())
    inv = tmp_path / "inv"
    inv.mkdir()
    names = []
    for i in range(8):
        name = f"site-r01-n{i + 1:02d}"
        shutil.copytree(hosts[i % len(hosts)], inv / name)
        names.append(name)
    (tmp_path / "map.csv").write_text(
        "host,rack,slot\n" + "".join(f"{n},1,{i + 1}\n" for i, n in enumerate(names)),
        encoding="utf-8")
    with pytest.raises(InfraError, match=r"8 servers \(64U\) in rack 1, more than the 42U"):
        starting_design_dir(inv, load_catalog(), host_map=load_host_map(tmp_path / "map.csv"))
