"""Exports the real tools accept (issue 29 item 7), hostile names (fuzz C7) and exports that
refuse before they enumerate (issue 34).

Each rule tested here is quoted from the tool that applies it, with where it is written.
"""

from __future__ import annotations

import io

import networkx as nx
import pytest

from conftest import DESIGNS
from infra.exports import TARGETS


@pytest.fixture(scope="module")
def control_named(tmp_path_factory):
    """dgx_h100_su named ``x<ESC>[31m<SOH>y`` (fuzz-report-3 C7)."""
    text = (DESIGNS / "dgx_h100_su.yaml").read_text()
    lines = [r'name: "x\e[31m\x01y"' if line.startswith("name:") else line
             for line in text.splitlines()]
    path = tmp_path_factory.mktemp("c7") / "c7.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("scope", ["fabric", "cluster", "domain", "rack"])
def test_graphml_of_a_design_named_with_control_characters(run_cli, tmp_path, control_named, scope):
    # XML 1.0 (section 2.2, Char) has no place for U+0001 or U+001B: the name is written
    # with escapes, as the k8s and Slurm comment lines write it, and the file reads back
    r = run_cli("export", str(control_named), "--to", "graphml", "--scope", scope,
                "-o", str(tmp_path))
    assert r.exit_code == 0, r.output
    g = nx.read_graphml(io.StringIO((tmp_path / "graphml" / f"c7.{scope}.graphml").read_text()))
    assert g.graph["design"] == "x\\u001b[31m\\u0001y"
    if scope == "cluster":
        assert g.nodes["cluster"]["label"] == "x\\u001b[31m\\u0001y"


@pytest.mark.parametrize("target", [t for t in TARGETS if t != "graphml"])
def test_every_export_of_a_design_named_with_control_characters(run_cli, tmp_path, control_named,
                                                                target):
    r = run_cli("export", str(control_named), "--to", target, "-o", str(tmp_path))
    assert r.exit_code == 0, r.output
    for p in tmp_path.rglob("*"):
        if p.is_file() and p.suffix != ".xlsx":
            assert "\x1b" not in p.read_text() and "\x01" not in p.read_text(), p


# --- NetBox: devicetype-library rules, CSV import, push -------------------------------

import csv  # noqa: E402
import json  # noqa: E402

import yaml  # noqa: E402

from conftest import ROOT  # noqa: E402
from dtl_rules import violations  # noqa: E402
from infra.errors import InfraError  # noqa: E402
from infra.exports import export_design  # noqa: E402
from infra.exports.common import ExportError  # noqa: E402
from infra.models.catalog import load_catalog  # noqa: E402
from infra.models.resolve import load_design  # noqa: E402

SOURCES = sorted(DESIGNS.glob("*.yaml")) + [ROOT / "tests/fixtures/designs/nvl72_missing_rack.yaml"]


@pytest.fixture(scope="module")
def netbox_files():
    """{design stem: {path: text}} of a design's NetBox export, made when first asked."""
    cat = load_catalog()

    class Files(dict):
        def __missing__(self, stem):
            path = next(d for d in SOURCES if d.stem == stem)
            ex = export_design(load_design(path, cat), "netbox")
            self[stem] = {f.path: f.text for f in ex.files}
            return self[stem]

    return Files()


def test_every_exported_device_type_passes_the_library_rules():
    from infra.exports import netbox_types as nbt
    from infra.exports.netbox import device_types

    cat = load_catalog()
    types = {}
    for d in SOURCES:  # the files netbox_export writes: nbt.file_path(dt), nbt.dump(dt)
        try:
            rd = load_design(d, cat)
        except InfraError:
            continue
        types.update({nbt.file_path(dt): nbt.dump(dt) for dt in device_types(rd).values()})
    assert len(types) >= 17  # the interop report's 17 types, and the designs added since
    failed = {p: v for p, t in types.items() if (v := violations(p.removeprefix("netbox/"), t))}
    assert failed == {}


def test_the_library_rules_fail_the_earlier_form(netbox_files):
    # the form the interop report saw fail 17/17: PyYAML's default (sequences not
    # indented), no power source, the catalog slug as file name
    dt = yaml.safe_load(netbox_files["dgx_h100_su"]["netbox/device-types/NVIDIA/DGX-H100.yaml"])
    old = {k: v for k, v in dt.items() if k != "power-ports"}
    text = yaml.safe_dump(old, sort_keys=False, explicit_start=True, width=1000)
    got = violations("device-types/NVIDIA/nvidia-dgx-h100.yaml", text)
    assert any("indentation" in v for v in got)
    assert any("power source" in v for v in got)
    assert any("file name" in v for v in got)
    bad = dict(dt, manufacturer="APC (Schneider Electric)")
    assert any("does not start with manufacturer" in v
               for v in violations("device-types/APC/DGX-H100.yaml", yaml.safe_dump(bad)))


def test_switch_ports_are_named_as_the_library_names_them(netbox_files):
    cat = load_catalog()
    from infra.exports.netbox import device_types

    rd = load_design(DESIGNS / "dgx_h100_superpod.yaml", cat)
    qm = device_types(rd)["nvidia-quantum-2-qm9700"]
    names = [i["name"] for i in qm["interfaces"]]
    # devicetype-library device-types/Nvidia/QM9700.yaml: P<cage>.<lane>, cages 0-31,
    # lanes 0-1 (32 twin-port OSFP = 64 NDR ports); the library's file skips P22.1, P23.0
    assert names[:3] == ["P0.0", "P0.1", "P1.0"] and names[-1] == "P31.1" and len(names) == 64
    from infra.exports.netbox_types import switch_port_names
    # Q3400-RA.yaml: sw1p1 ... sw72p2; SN5600.yaml: swp1 ... swp64
    q = switch_port_names("nvidia-quantum-x800-q3400", 144)
    assert (q[0], q[1], q[-1]) == ("sw1p1", "sw1p2", "sw72p2")
    assert switch_port_names("nvidia-spectrum-4-sn5600", 64)[-1] == "swp64"
    assert switch_port_names("ufispace-s9321-64e", 64)[:2] == ["1", "2"]  # no library file


@pytest.mark.parametrize("design", ["dgx_h100_superpod", "gb200_nvl72_576", "aws_nvl36x2_cluster",
                                    "hgx_h200_cluster"])
def test_netbox_csvs_refer_only_to_what_they_import(netbox_files, design):
    # NetBox 4.6 import forms (netbox/dcim/forms/bulk_import.py): DeviceImportForm needs
    # manufacturer (by name) and device_type (by model), role/site/rack by name;
    # CableImportForm matches side_*_device by name and side_*_name on that device
    files = netbox_files[design]

    def rows(name):
        return list(csv.DictReader(files[f"netbox/csv/{name}.csv"].splitlines()))

    sites = {r["name"] for r in rows("1-sites")}
    makers = {r["name"] for r in rows("2-manufacturers")}
    roles = {r["name"] for r in rows("3-device-roles")}
    racks = {r["name"] for r in rows("4-racks")}
    types = {}
    for p, t in files.items():
        if "/device-types/" in p:
            dt = yaml.safe_load(t)
            types[(dt["manufacturer"], dt["model"])] = {i["name"] for i in dt.get("interfaces", [])}
    assert {r["site"] for r in rows("4-racks")} <= sites
    devices = {}
    for d in rows("5-devices"):
        assert (d["manufacturer"] in makers and d["role"] in roles and d["site"] in sites
                and d["rack"] in racks), d
        devices[d["name"]] = types[(d["manufacturer"], d["device_type"])]
    cables = rows("6-cables")
    assert cables
    for c in cables:
        for side in "ab":
            # every cable end is an interface the device type's templates create
            assert c[f"side_{side}_name"] in devices[c[f"side_{side}_device"]], c
    b = json.loads(files["netbox/bundle.json"])
    assert len(b["devices"]) == len(devices) and len(b["cables"]) == len(cables)


class FakeNetBox:
    """pynetbox's dcim endpoints over dicts: get(slug=), filter(site_id=), create(rows),
    delete(ids); ``fail`` = an endpoint whose create raises; counts every write."""

    class Endpoint:
        def __init__(self, box, name):
            self.box, self.name, self.rows = box, name, {}

        def get(self, slug):
            return next((r for r in self.rows.values() if r.get("slug") == slug), None)

        def filter(self, site_id):
            out = [r for r in self.rows.values() if r.get("site") == site_id]
            if self.name == "interfaces":  # with the device, as the API nests it
                dev = self.box.dcim.devices.rows
                out = [dict(r, device={"name": dev[r["device"]]["name"]})
                       for r in self.rows.values() if dev[r["device"]]["site"] == site_id]
            return out

        def create(self, rows):
            if self.box.fail == self.name:
                raise RuntimeError("400 Bad Request")
            out = []
            for r in rows:
                self.box.writes += 1
                self.box.next_id += 1
                self.rows[self.box.next_id] = dict(r, id=self.box.next_id)
                out.append({"id": self.box.next_id})
                if self.name == "devices":  # NetBox instantiates the type's templates
                    dev = out[-1]["id"]
                    for t in self.box.dcim.interface_templates.rows.values():
                        if t["device_type"] == r["device_type"]:
                            self.box.next_id += 1
                            self.box.dcim.interfaces.rows[self.box.next_id] = {
                                "id": self.box.next_id, "device": dev, "name": t["name"]}
            return out

        def delete(self, ids):
            self.box.deletes += len(ids)
            for i in ids:
                self.rows.pop(i, None)

    def __init__(self, fail=None):
        from types import SimpleNamespace

        self.fail, self.writes, self.deletes, self.next_id = fail, 0, 0, 0
        self.dcim = SimpleNamespace(**{k: self.Endpoint(self, k) for k in (
            "manufacturers", "device_types", "interface_templates", "power_port_templates",
            "device_roles", "sites", "racks", "devices", "interfaces", "cables")})

    def count(self):
        return {k: len(v.rows) for k, v in vars(self.dcim).items()}


@pytest.fixture(scope="module")
def su_bundle():
    from infra.exports.netbox import bundle

    return bundle(load_design(DESIGNS / "dgx_h100_su.yaml"))


def test_push_creates_manufacturers_types_and_roles_then_reuses_them(su_bundle):
    from infra.exports.netbox import push_bundle

    nb = FakeNetBox()
    made = push_bundle(su_bundle, nb)
    # dgx_h100_su: 8 compute racks + 1 leaf + 1 spine rack; 32 DGX + 24 PDUs + 12 QM9700;
    # 256 node-leaf + 256 leaf-spine cables; NVIDIA and APC; 3 types; roles compute, pdu,
    # leaf-switch, spine-switch. Every cable end is a template interface (DGX nic*/p0,
    # QM9700 P*.*): no interface is created by hand
    assert made == {"manufacturers": 2, "device_types": 3, "device_roles": 4, "sites": 1,
                    "racks": 10, "devices": 68, "interfaces": 0, "cables": 512}
    n = nb.count()
    # 12 DGX + 64 QM9700 interface templates; 6 DGX PSUs + 1 PWR each for QM9700, AP8886
    assert (n["interface_templates"], n["power_port_templates"]) == (76, 8)
    cable = next(iter(nb.dcim.cables.rows.values()))
    assert isinstance(cable["a_terminations"][0]["object_id"], int)
    # a second design's push into another site reuses the manufacturers, types and roles
    other = json.loads(json.dumps(su_bundle).replace('"infra-design"', '"site-2"'))
    again = push_bundle(other, nb)
    assert (again["manufacturers"], again["device_types"], again["device_roles"]) == (0, 0, 0)
    assert again["devices"] == 68


def test_push_checks_everything_before_the_first_write(su_bundle):
    from infra.exports.netbox import push_bundle

    broken = json.loads(json.dumps(su_bundle))
    broken["devices"][-1]["role"] = {"slug": "no-such-role"}
    nb = FakeNetBox()
    with pytest.raises(ExportError, match="role 'no-such-role' is not in 'device_roles'"):
        push_bundle(broken, nb)
    assert nb.writes == 0
    # a site that already holds one of the bundle's racks: refused, nothing written
    nb = FakeNetBox()
    push_bundle(su_bundle, nb)
    before = nb.writes
    with pytest.raises(ExportError, match="already holds .* nothing was written"):
        push_bundle(su_bundle, nb)
    assert nb.writes == before


def test_a_failed_push_deletes_what_it_created(su_bundle):
    from infra.exports.netbox import push_bundle

    nb = FakeNetBox(fail="cables")
    with pytest.raises(ExportError, match="cables batch 1 .* were deleted again"):
        push_bundle(su_bundle, nb)
    # everything the push created is gone (the interfaces NetBox made from templates go
    # with their devices in a real NetBox; the fake keeps them)
    assert {k: v for k, v in nb.count().items() if k != "interfaces"} == dict.fromkeys(
        ["manufacturers", "device_types", "interface_templates", "power_port_templates",
         "device_roles", "sites", "racks", "devices", "cables"], 0)


# --- k8s: topograph's label hash --------------------------------------------------------

def _go_fnv1a64(data: bytes) -> int:
    """Go's hash/fnv New64a: offset basis 14695981039346656037, prime 1099511628211
    (FNV spec, draft-eastlake-fnv), here written independently of infra.exports.k8s."""
    h = 14695981039346656037
    for b in data:
        h ^= b
        h = (h * 1099511628211) % 2**64
    return h


def test_long_label_values_hash_as_topograph_does():
    from infra.exports.k8s import _value, fnv64a

    # published FNV-1a 64 vectors: "" -> cbf29ce484222325, "a" -> af63dc4c8601ec8c,
    # "foobar" -> 85944171f73967e8 (draft-eastlake-fnv test vectors)
    assert [fnv64a(s) for s in ("", "a", "foobar")] == [
        "xcbf29ce484222325", "xaf63dc4c8601ec8c", "x85944171f73967e8"]
    # topograph labeler.go: fmt.Sprintf("x%x", h.Sum64()), so a hash with a leading zero
    # nibble is 15 hex digits, not 16 (the interop report found 6.3 % of long values
    # differing when infra zero-padded)
    long = "su0.rail0.leaf" + "x" * 60 + "1000"
    h = _go_fnv1a64(long.encode())
    assert h < 1 << 60  # this value's hash has a leading zero nibble
    assert _value(long) == "x" + format(h, "x") == "xd16918460a717c4"
    # Go's len() counts bytes: 40 x 'é' is 80 bytes, so it is hashed
    assert _value("é" * 40) == "x" + format(_go_fnv1a64(("é" * 40).encode()), "x")
    assert _value("a" * 63) == "a" * 63


# --- cabling: NVIDIA UFM Cable Validation Tool P2P columns -------------------------------

def test_cabling_sheet_in_ufm_p2p_format():
    # UFM Cable Validation Tool 1.5, "P2P file": columns Rack | U | Name | HCA/Port |
    # Rack | U | Name | Port; a host port is a number (1 -> mlx5_0 P1, 2 -> mlx5_1 P1),
    # a switch port "a single number or a split port (e.g., 1/2)"
    import re

    ex = export_design(load_design(DESIGNS / "dgx_h100_superpod.yaml"), "cabling")
    rows = list(csv.reader(ex.files[0].text.splitlines()))
    head, body = rows[0], rows[1:]
    assert head[:8] == ["Rack", "U", "Name", "HCA/Port", "Rack", "U", "Name", "Port"]
    split = re.compile(r"[1-9][0-9]*(/[1-9][0-9]*)?")
    assert all(split.fullmatch(r[3]) and split.fullmatch(r[7]) for r in body)
    nodes = [r for r in body if r[10] == "leaf"]
    # a DGX H100 has 8 compute-fabric ports (8 x CX-7 400G, rails 0-7): HCA ports 1-8,
    # in NIC order, and the design's names beside them
    first = {r[3]: r[11] for r in nodes if r[2] == "r001n01"}
    assert first == {str(k + 1): f"nic{k}/p0" for k in range(8)}
    # switch ends: QM9700 twin-port OSFP cages (32 x 2 = 64 ports): logical port 33 of a
    # leaf (its first uplink, after 32 down ports) is cage 17 lane 1
    up = next(r for r in body if r[10] == "spine")
    assert (up[3], up[11]) == ("17/1", "33")


# --- exports that refuse before they enumerate (issue 34) -------------------------------

def _dag(tmp_path, depth: int, rack: str) -> str:
    """A pod hierarchy ``depth`` levels deep, two of the level below in each (2**depth
    racks of ``rack``): 2**30 racks at depth 30."""
    racks = {"dgx4": "generic-42u-air-rack\n    contents:\n      - {type: nvidia-dgx-h100, count: 4}",
             "nvl72": "nvidia-gb200-nvl72-rack\n    contents:\n"
                      "      - {type: nvidia-mgx-33kw-power-shelf, count: 8}\n"
                      "      - {type: nvidia-gb200-compute-tray, count: 18}\n"
                      "      - {type: nvidia-nvlink5-switch-tray, count: 9}\n"
                      "      - {type: supermicro-gb300-in-rack-cdu, count: 1}"}
    lines = [f"name: pod hierarchy {depth} deep", "racks:", f"  r:\n    type: {racks[rack]}",
             "pods:", "  p0:", "    racks: {r: 2}"]
    lines += [f"  p{i}:\n    pods: {{p{i - 1}: 2}}" for i in range(1, depth)]
    path = tmp_path / f"dag{depth}_{rack}.yaml"
    path.write_text("\n".join(lines + ["build:", f"  p{depth - 1}: 1"]) + "\n")
    return str(path)


def _no_enumeration(monkeypatch):
    """Make listing nodes or racks fail: a refusal must come before it."""
    import infra.analysis.layout.identity as identity

    def boom(*a, **k):
        raise AssertionError("enumerated the nodes")

    for mod in ("infra.exports.slurm", "infra.exports.k8s", "infra.analysis.layout.placement"):
        monkeypatch.setattr(__import__(mod, fromlist=["x"]), "node_identities", boom, raising=False)
    monkeypatch.setattr(identity, "node_identities", boom)
    monkeypatch.setattr(identity, "rack_instances", boom)


@pytest.mark.parametrize("target", ["slurm", "k8s", "cabling"])
def test_nothing_to_export_is_found_before_any_node_is_listed(run_cli, tmp_path, monkeypatch,
                                                               target):
    # 2**30 racks of 4 DGX, no fabric, every NVLink domain one node: nothing to export
    # (was 74 s and 5.9 GB at 20 levels, perf-report-3 section 7)
    design = _dag(tmp_path, 30, "dgx4")
    _no_enumeration(monkeypatch)
    r = run_cli("export", design, "--to", target, "-o", str(tmp_path / "out"))
    assert r.exit_code == 2, r.output
    assert "neither multi-node NVLink domains nor a fabric" in r.output or "no fabric" in r.output
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("target", ["slurm", "k8s"])
def test_a_per_node_export_too_large_says_how_large_and_what_instead(run_cli, tmp_path,
                                                                      monkeypatch, target):
    # 2**30 NVL72 racks x 18 trays = 19,327,352,832 nodes: refused from the counts alone
    design = _dag(tmp_path, 30, "nvl72")
    _no_enumeration(monkeypatch)
    r = run_cli("export", design, "--to", target, "-o", str(tmp_path / "out"))
    assert r.exit_code == 2, r.output
    assert "19,327,352,832 compute nodes" in r.output and "at most 500,000" in r.output
    assert "build:" in r.output  # what to ask for instead


def test_the_node_limit_is_the_boundary(monkeypatch, tmp_path):
    import infra.exports.common as common

    rd = load_design(DESIGNS / "gb200_nvl72_576.yaml")  # 8 racks x 18 trays = 144 nodes
    monkeypatch.setattr(common, "MAX_NODES", 144)
    assert common.check_node_count(rd, "Slurm", "x") == 144
    monkeypatch.setattr(common, "MAX_NODES", 143)
    with pytest.raises(ExportError, match="144 compute nodes"):
        export_design(rd, "slurm")
