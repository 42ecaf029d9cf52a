"""Each kind of bad input: one clear message naming file, YAML path/line and fix; exit 2."""

from __future__ import annotations

import math
import textwrap

import pytest

from conftest import CATALOGS as CATALOG_DIR, DESIGNS

GOOD = (DESIGNS / "aws_nvl36x2.yaml").read_text()


def write(tmp_path, text: str, name: str = "d.yaml"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return p


def check(run_cli, path, *fragments, code=2):
    """``code`` 2: bad input; 1: a design-rule finding (the design is analysed in full)."""
    res = run_cli("validate", str(path))
    assert res.exit_code == code, res.output
    assert "Traceback" not in res.output
    for f in fragments:
        assert f in res.output, (f, res.output)
    return res.output


def test_malformed_yaml(tmp_path, run_cli):
    p = write(tmp_path, "name: x\nracks: {a: [1, 2}\n")
    check(run_cli, p, "d.yaml:2", "malformed YAML")


def test_unknown_key(tmp_path, run_cli):
    p = write(tmp_path, GOOD.replace("pods:\n", "podz: {}\npods:\n"))
    out = check(run_cli, p, "unknown key 'podz'", "remove it or fix its spelling")
    assert "d.yaml:" in out


def test_unknown_slug_suggests_nearest(tmp_path, run_cli):
    p = write(tmp_path, GOOD.replace("type: aws-gb200-compute-tray", "type: aws-gb200-compute-try"))
    check(run_cli, p, "racks.nvl36.contents[1].type", "unknown catalog slug 'aws-gb200-compute-try'",
          "did you mean 'aws-gb200-compute-tray'")


def test_wrong_kind(tmp_path, run_cli):
    p = write(tmp_path, GOOD.replace("type: aws-nvl36-rack", "type: aws-irhx"))
    check(run_cli, p, "racks.nvl36.type", "'aws-irhx' is a cooling_unit, expected rack")


def test_wrong_type(tmp_path, run_cli):
    p = write(tmp_path, GOOD.replace("ultraserver: 1", "ultraserver: many"))
    check(run_cli, p, "build.ultraserver", "valid integer")


def test_negative_count(tmp_path, run_cli):
    p = write(tmp_path, GOOD.replace("count: 9}", "count: -9}", 1))
    check(run_cli, p, "racks.nvl36.contents[1].count", "greater than or equal to 1")


def test_missing_file(tmp_path, run_cli):
    check(run_cli, tmp_path / "nope.yaml", "nope.yaml", "file not found")


def test_reference_loop(tmp_path, run_cli):
    p = write(tmp_path, """\
        name: loop
        racks:
          r: {type: aws-nvl36-rack, contents: []}
        pods:
          a: {pods: {b: 1}}
          b: {pods: {a: 1}}
        build: {a: 1}
        """)
    check(run_cli, p, "reference loop: a -> b -> a")


def test_contents_over_rack_height(tmp_path, run_cli):
    p = write(tmp_path, GOOD.replace("{type: aws-gb200-compute-tray, count: 9}",
                                     "{type: aws-gb200-compute-tray, count: 20}"))
    # 6 x 1U ToR + 20 x 2U trays + 9 x 1U switch trays = 55U > 48U
    check(run_cli, p, "contents need 55U", "has 48U")


NVL72_RACK = """\
name: t
racks:
  nvl72:
    type: nvidia-gb200-nvl72-rack
    contents:
      - {type: nvidia-mgx-33kw-power-shelf, count: SHELVES}
      - {type: nvidia-gb200-compute-tray, count: 18}
      - {type: nvidia-nvlink5-switch-tray, count: 9, cooling: liquid}
"""


def test_power_over_shelf_capacity(tmp_path, run_cli):
    text = NVL72_RACK.replace("SHELVES", "3") + (
        "pods:\n  p:\n    racks: {nvl72: 1}\n    cooling: [{type: aws-irhx}]\nbuild: {p: 1}\n")
    p = write(tmp_path, text)
    # 18 trays x 6.15 kW (2 x 2.65 kW GB200 + 4 x 25 W CX-7 + 2 x 150 W BlueField-3 + 450 W
    # overhead) + 9 x 1.24 kW switch trays = 121.86 kW of DC load on the shelves (124.985 kW
    # at the feeds) > 3 shelves x 33 kW = 99 kW supply
    check(run_cli, p, "draws 121.9 kW IT", "supply 99 kW", "add power shelves",
          "racks.nvl72.contents", code=1)  # a finding: figures computed, exit 1


def test_cooling_short_of_heat(tmp_path, run_cli, catalog):
    # one in-row CDU for more NVL72 racks than it can cool; each rack has
    # 18 x (5.3 + 0.1) kW (GB200 + CX-7 on cold plates) + 9 x 1.24 kW = 108.36 kW liquid heat
    cdu = next(c for c in catalog.of_kind("cooling_unit")
               if c.placement == "in_row" and c.removes == "liquid" and c.capacity_kw)
    racks = math.floor(cdu.capacity_kw / 108.36) + 1
    text = NVL72_RACK.replace("SHELVES", "8") + (
        f"pods:\n  p:\n    racks: {{nvl72: {racks}}}\n"
        f"    cooling: [{{type: {cdu.slug}, count: 1}}]\nbuild: {{p: 1}}\n")
    p = write(tmp_path, text)
    check(run_cli, p, f"1 x {cdu.slug} remove {cdu.capacity_kw:g} kW",
          f"short of the {racks * 108.36:.1f} kW liquid heat load", "pods.p.cooling", code=1)


def test_liquid_heat_without_any_cdu(tmp_path, run_cli):
    text = GOOD.replace("    cooling:\n      - {type: aws-irhx}\n", "")
    p = write(tmp_path, text)
    # 9 x 5.3 kW GB200 (2 x 2.65) + 9 x 1.24 kW switch trays = 58.86 kW liquid heat per rack
    check(run_cli, p, "58.9 kW of liquid heat per rack of 'nvl36' has no CDU")


def test_debug_shows_traceback(tmp_path, run_cli):
    p = tmp_path / "nope.yaml"
    res = run_cli("--debug", "validate", str(p))
    assert res.exit_code != 0 and res.exception is not None


def test_failed_run_leaves_no_partial_report(tmp_path, run_cli, monkeypatch):
    from infra.reports import xlsx_report

    def boom(wb_path):
        wb_path.write_bytes(b"half")
        raise RuntimeError("disk full")

    monkeypatch.setattr(xlsx_report, "build_workbook", lambda data, *a: type("W", (), {"save": staticmethod(boom)})())
    res = run_cli("design", str(DESIGNS / "aws_nvl36x2.yaml"), "--report", "xlsx", "-o",
                  str(tmp_path), "-q")
    assert res.exit_code != 0
    assert list(tmp_path.iterdir()) == []


def test_catalog_errors(tmp_path, run_cli):
    p = write(tmp_path, """\
        kind: gpu
        slug: bad-gpu
        vendor: x
        name: x
        form_factor: x
        hbm_gbytes: 80
        peak_dense_tflops: {}
        sources: [{id: a, title: t, url: u, tag: D}]
        """, "bad-gpu.yaml")
    check(run_cli, p, "bad-gpu.yaml:6", "unknown key 'hbm_gbytes'")
    p2 = write(tmp_path, "kind: gpux\nslug: x\n", "x.yaml")
    check(run_cli, p2, "unknown kind 'gpux'", "did you mean 'gpu'")


@pytest.mark.parametrize("args", [["catalog", "show", "nvidia-b200-gb20"], ["catalog", "list", "gpus"]])
def test_catalog_cli_errors(run_cli, args):
    res = run_cli(*args)
    assert res.exit_code == 2
    assert "did you mean" in res.output


TRAY = (CATALOG_DIR / "trays" / "nvidia-gb200-compute-tray.yaml").read_text()


@pytest.mark.parametrize("old,new,fragments", [
    ("  - {a: sc0.cpu0, b: nic1, lanes: 16}\n",
     "  - {a: sc0.cpu0, b: nic1, lanes: 16}\n  - {a: nic1, b: sc0.cpu0, lanes: 8}\n",
     ["links[2]", "two links join nic1 and sc0.cpu0"]),
    ("  - {a: sc1.cpu0, b: nic3, lanes: 16}\n", "",
     ["nic3:net is driven by sc1.gpu1", "has no PCIe link", "add a link from nic3@host"]),
])
def test_tray_wiring_errors(tmp_path, run_cli, old, new, fragments):
    p = tmp_path / "nvidia-gb200-compute-tray.yaml"
    p.write_text(TRAY.replace(old, new))
    check(run_cli, p, *fragments)


def test_unwritable_output_dir(tmp_path, run_cli):
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    res = run_cli("design", str(DESIGNS / "gb200_nvl72.yaml"), "--report", "json", "-o",
                  str(blocker), "-q")
    assert res.exit_code == 2 and "cannot write" in res.output and "Traceback" not in res.output


def test_duplicate_nic_port_is_refused(tmp_path):
    """A NIC with two ports named p0 would have its interfaces bound to either."""
    import shutil

    from infra.models.catalog import load_catalog
    from infra.errors import CatalogError

    cat = tmp_path / "cat"
    shutil.copytree(CATALOG_DIR, cat)
    f = cat / "nics" / "nvidia-connectx-8-800g.yaml"
    f.write_text(f.read_text().replace("  - {name: p0, gbit_s: 800}",
                                       "  - {name: p0, gbit_s: 800}\n  - {name: p0, gbit_s: 800}"))
    with pytest.raises(CatalogError, match="port name 'p0' is defined twice"):
        load_catalog(cat)


def test_duplicate_rate_kind_in_one_file_is_refused(tmp_path):
    from infra.models.rates import RatesError, load_rates

    f = tmp_path / "r.yaml"
    row = ("  - {kind: gpu, rate_per_year: 0.1, repair_hours: 4, tag: assumption, "
           "source: mine}\n")
    f.write_text("rates:\n" + row + row)
    with pytest.raises(RatesError, match="appears twice"):
        load_rates(override=f)


def test_gpu_without_scale_up_in_an_nvlink_rack_is_a_clear_error(tmp_path):
    """It was an AttributeError (internal error, exit 1) before."""
    import re
    import shutil

    from infra.errors import TopologyError
    from infra.analysis.summary import analyze_file
    from infra.models.catalog import load_catalog

    cat = tmp_path / "cat"
    shutil.copytree(CATALOG_DIR, cat)
    f = cat / "gpus" / "nvidia" / "nvidia-b200-gb200.yaml"
    f.write_text(re.sub(r"^scale_up:\n(  .*\n)+", "", f.read_text(), flags=re.M))
    with pytest.raises(TopologyError, match="has no scale_up ports"):
        analyze_file(DESIGNS / "gb200_nvl72.yaml", load_catalog(cat))


def test_flow_nesting_thousands_deep_is_a_clear_error(tmp_path):
    """``[[[...]]]`` 3,000 deep made PyYAML's parser raise RecursionError (internal
    error, exit 1): found by benchmarks/fuzz_run.py."""
    from infra.errors import DesignError
    from infra.models.resolve import load_design

    f = tmp_path / "deep.yaml"
    f.write_text("name: x\nracks: " + "[" * 3000 + "]" * 3000 + "\n")
    with pytest.raises(DesignError, match="nested too deeply"):
        load_design(f)


def test_gpu_without_scale_up_in_an_nvswitch_tray_is_a_clear_error(tmp_path):
    """It analysed with exit 0 before, as if the HGX baseboard's NVSwitches joined nothing."""
    import re
    import shutil

    from infra.errors import TopologyError
    from infra.analysis.summary import analyze_file
    from infra.models.catalog import load_catalog

    cat = tmp_path / "cat"
    shutil.copytree(CATALOG_DIR, cat)
    f = cat / "gpus" / "nvidia" / "nvidia-h100-sxm5.yaml"
    f.write_text(re.sub(r"^scale_up:\n(  .*\n)+", "", f.read_text(), flags=re.M))
    assert not re.search(r"^scale_up:", f.read_text(), flags=re.M)
    with pytest.raises(TopologyError, match="nvidia-dgx-h100.*4 NVLink switch chips"):
        analyze_file(DESIGNS / "dgx_h100_su.yaml", load_catalog(cat))


def test_two_rack_domain_without_spare_switch_ports_names_the_file(tmp_path, run_cli):
    """Found by the release fuzzer (design#295: a tray line duplicated, so 18 trays share
    an NVL36 rack's switch chips): the message named no file before."""
    text = (DESIGNS / "aws_nvl36x2_cluster.yaml").read_text()
    line = "      - {type: aws-gb200-compute-tray, count: 9}\n"
    assert line in text
    p = tmp_path / "d.yaml"
    p.write_text(text.replace(line, line + line, 1))
    # racks_per_domain is on line 34 of the shipped file, 35 once the tray line is doubled
    out = check(run_cli, p, "d.yaml:35: pods.ultraserver.scale_up.racks_per_domain",
                "no port left for the other rack")
    assert len(out) < 1000


def test_tray_error_caused_by_a_referenced_part_names_that_part_file(tmp_path):
    """Found by the release fuzzer (part#1216, #1325): an interface renamed in a NIC file, or
    host lanes changed in a GPU file, surfaced as an error in the tray naming only the tray
    file; the message now names the file that defines the part too."""
    import re
    import shutil

    from infra.errors import CatalogError
    from infra.models.catalog import load_catalog

    cat = tmp_path / "cat"
    shutil.copytree(CATALOG_DIR, cat)
    nic = cat / "nics" / "aws-nitro-400g.yaml"
    text = nic.read_text()
    assert re.search(r"name: efa\b", text)
    nic.write_text(re.sub(r"name: efa\b", "name: efa0", text))
    from infra.analysis.summary import analyze_file

    with pytest.raises(CatalogError) as err:
        analyze_file(DESIGNS / "aws_nvl36x2.yaml", load_catalog(cat))
    msg = str(err.value)
    assert "aws-gb200-compute-tray.yaml" in msg and "has no interface 'efa'" in msg
    assert str(nic) in msg


def test_unknown_fabric_part_names_its_line(tmp_path, run_cli):
    """A fabric tier naming an unknown switch: exit 2, the design file, the line of the
    reference and its YAML path, and the nearest slugs (the resolved design looks the part
    up and locates the line only on the error)."""
    from conftest import ROOT

    text = (ROOT / "designs" / "dgx_h100_su.yaml").read_text()
    bad = text.replace("switch: nvidia-quantum-2-qm9700", "switch: nvidia-quantum-2-qm9701", 1)
    p = tmp_path / "d.yaml"
    p.write_text(bad)
    line = next(i for i, ln in enumerate(bad.splitlines(), 1) if "qm9701" in ln)
    res = run_cli("design", str(p))
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert f"d.yaml:{line}: fabrics.compute.tiers[0].switch: unknown network_switch slug" in res.output
    assert "did you mean 'nvidia-quantum-2-qm9700'" in res.output
