"""Power and heat against published envelopes (golden tests), supply redundancy, cooling
plausibility and design power overrides. Expected values are worked by hand from the
catalog figures; the arithmetic is in the comments.

Catalog figures used (max, per part):
  GB200 superchip 2,650 W (NVIDIA PRS FAQ 2.0.0: 5.3 kW GPU+CPU per tray)   CX-7 400G 25 W [estimate]
  B300 (GB300) 1,400 W   Grace 420 W (NVIDIA DPS registry)   CX-8 800G 50 W [estimate]
  BlueField-3 B3240 150 W (family "up to")   GB200 tray overhead 450 W [estimate]
  NVLink switch tray 1,240 W (DPS: 11,160 W / 9)   SN2201 150 W [estimate]
  QM9700 1,096 W [estimate]   MMS4X00-NS 17 W   MMS4X00-NS400 9 W
  DGX H100 10,200 W max, DGX B200 14,300 W max (DGX user guides)
"""

from __future__ import annotations

import textwrap

import pytest

from conftest import DESIGNS

from infra.analysis.summary import analyze_file


def _write(tmp_path, text: str):
    p = tmp_path / "d.yaml"
    p.write_text(textwrap.dedent(text))
    return p


def test_nvl72_within_5pct_of_nvidia_120_kw(nvl72):
    # NVIDIA (Mission Control PRS FAQ 2.0.0, read): "total rack power at full load ~120 kW,
    # including nodes and rack components (switches, interconnects)"; DPS registry: 6,667 W
    # per compute tray = 120 kW / 18.
    # 18 x (2 x 2,650 + 4 x 25 + 2 x 150 + 450) = 18 x 6,150 = 110,700 W
    # + 9 x 1,240 = 11,160 W + 2 x 150 = 300 W  -> 122.16 kW of DC load; the shelves'
    # AC->DC loss at 97.5 % (the PSU vendors' peak, relayed [3P]) adds 122.16 / 0.975 -
    # 122.16 = 3.1323 kW: 125.2923 kW at the feeds; NVIDIA 120 kW: +4.4 %
    it = nvl72.metrics()["it_power_kw"]
    assert it == pytest.approx(122.16 / 0.975)
    assert abs(it - 120) / 120 < 0.05
    # air: 18 x (2 x 150 BlueField-3 + 450 overhead) + 300 SN2201 = 13.8 kW, + the shelves'
    # loss (heat in the rack's air) 3.1323 kW = 16.9323 kW; HPE 17 kW: -0.4 %
    air = nvl72.metrics()["air_heat_kw"]
    assert air == pytest.approx(13.8 + 122.16 / 0.975 - 122.16) and abs(air - 17) / 17 < 0.05
    rows = {(r.figure, r.published_kw): r for r in nvl72.envelopes}
    assert rows[("it_max", 120)].diff_pct == pytest.approx((122.16 / 0.975 - 120) / 120 * 100, abs=1e-3)
    assert rows[("it_max", 120)].tag == "V" and not rows[("it_max", 120)].warning
    # HPE's 132 kW is shown beside it, tagged third-party: 125.2923 / 132 - 1 = -5.1 %
    assert rows[("it_max", 132)].tag == "3P"
    assert rows[("it_max", 132)].diff_pct == pytest.approx((122.16 / 0.975 - 132) / 132 * 100, abs=1e-3)
    # the first envelope (NVIDIA's) is the per-rack reference shown beside the computed figure
    (rack,) = nvl72.power.racks
    assert rack.reference_it_kw == 120


def test_gb300_nvl72_within_5pct_of_nvidia_142_kw(catalog):
    a = analyze_file(DESIGNS / "gb300_nvl72.yaml", catalog)
    # GB300 half-board: 2 x 1,400 W B300 + 420 W Grace (DPS maximum; no superchip tdp_w)
    # = 3,220 W; tray = 2 x 3,220 + 4 x 50 CX-8 + 1 x 150 BlueField-3 + 450 overhead = 7,240 W
    # 18 x 7,240 = 130,320 W + 9 x 1,240 = 11,160 W -> 141.48 kW of DC load; / 0.975 (the
    # shelves' AC->DC loss) = 145.1077 kW; NVIDIA RA "up to 142 kW": +2.2 %
    # (with Grace at the former 250 W: 36 x 170 W = 6.12 kW less)
    it = a.metrics()["it_power_kw"]
    assert it == pytest.approx(141.48 / 0.975)
    assert abs(it - 142) / 142 < 0.05
    (row,) = [r for r in a.envelopes if r.figure == "it_max"]
    assert row.published_kw == 142 and not row.warning
    # the shipped design states its supply redundancy (accuracy-audit-3 row 4): N+1, one of
    # the 8 x 33 kW shelves may fail: 7 x 33 = 231 kW usable >= 141.48 kW, no finding (the
    # shelves' 33 kW is their DC output: they carry the DC load, not the AC they draw)
    (sup,) = a.tables()["power_supply"]
    assert (sup["redundancy"], sup["installed_kw"], sup["usable_kw"]) == ("N+1", 264, 231)
    assert not a.findings
    # and every report says that a 2N split (4 + 4 shelves) cannot carry it: 4 x 33 = 132 kW,
    # 141.48 - 132 = 9.48 kW short (the same rack under N+N is a finding: the test below)
    (note,) = [r["value"] for r in a.tables()["assumptions"] if r["item"] == "note"]
    assert "132 kW per feed, 9.48 kW short" in note


def test_dgx_h100_per_server_is_its_published_max(catalog):
    a = analyze_file(DESIGNS / "dgx_h100_su.yaml", catalog)
    (rack,) = a.power.racks
    # 4 DGX H100 per rack at their published 10.2 kW system maximum
    per_server = rack.it_kw / 4
    assert abs(per_server - 10.2) / 10.2 < 0.05
    # the parts alone (8 x 700 + 2 x 350 + 10 x 25 W NICs = 6.55 kW, NVSwitch unpublished)
    # are shown beside it for information, not used
    (row,) = [r for r in a.envelopes if r.scope == "tray:nvidia-dgx-h100"]
    assert row.computed_kw == pytest.approx(6.55) and row.published_kw == 10.2
    # its PSUs: 6 x 3.3 kW, 4+2 -> 4 x 3.3 = 13.2 kW usable >= 10.2 kW
    (psu,) = a.tables()["server_psus"]
    assert psu["usable_kw"] == pytest.approx(13.2) and psu["covers_max"] is True


def test_dgx_b200_server_is_its_published_max(tmp_path, catalog):
    p = _write(tmp_path, """
        name: one DGX B200
        racks:
          r:
            type: generic-42u-air-rack
            contents: [{type: nvidia-hgx-b200, count: 1}]
        build: {r: 1}
        """)
    a = analyze_file(p, catalog)
    # DGX B200: 14.3 kW max (DGX B200 user guide); 6 x 3.3 kW PSUs, 5+1 -> 16.5 kW usable
    assert abs(a.metrics()["it_power_kw"] - 14.3) / 14.3 < 0.05
    assert catalog.get("nvidia-hgx-b200").psu_redundancy == "N+1"


def test_gb200_su_within_10pct_of_nvidia_1_2_mw(catalog):
    """The GB200 SU against NVIDIA's 1.2 MW per SU (DGX SuperPOD GB200 RA, architecture
    page: "a combination of DGX systems, InfiniBand and Ethernet networking, management
    nodes, and storage ... Each SU requires a TDP of 1.2 MW"), with the parts of that row
    the RA and NVIDIA's guides support (designs/gb200_nvl72_576.yaml, header)."""
    a = analyze_file(DESIGNS / "gb200_nvl72_576.yaml", catalog)
    m = a.metrics()
    # racks 8 x 122.16 / 0.975 (DC load and the shelves' AC->DC loss) = 1,002.3385 kW
    # compute IB fabric: 36 QM9700 x 1,096 W = 39.456 kW + switch-side optics 928 x 17 W
    #   = 15.776 kW; node-end optics (sum-of-parts trays): 576 x 9 W = 5.184 kW
    # storage and in-band Ethernet fabric, 144 trays x 4 x 200G = 576 links on SN5600 at
    #   200G (256 ports): leaves at 5:3 take 160 down -> 4 leaves (144 down, 87 up each);
    #   348 uplinks over 3 spines; 7 SN5600 x 1,096 W = 7.672 kW; MMA4Z00-NS twin-port
    #   (4 x 200G each, 15 W): 576 / 4 = 144 at the leaves + 348 / 4 = 87 at each end of
    #   the leaf-spine links = 318 x 15 W = 4.77 kW
    # management rack: 10 x 1,000 W (estimate) = 10 kW; storage (estimate) 5 kW
    # total 1,002.3385 + 39.456 + 15.776 + 5.184 + 7.672 + 4.77 + 10 + 5 = 1,090.1965 kW
    total = 8 * 122.16 / 0.975 + 39.456 + 15.776 + 5.184 + 7.672 + 4.77 + 10 + 5
    assert m["it_power_kw"] == pytest.approx(total)
    assert m["node_optics_power_kw"] == pytest.approx(5.184)
    assert a.power.storage_kw == pytest.approx(5.0)
    inband = next(f for f in a.fabrics if f.name == "inband")
    assert [t.switches for t in inband.tiers] == [4, 3]
    assert inband.power_kw == pytest.approx(7.672 + 4.77)
    (su,) = [r for r in a.envelopes if r.scope == "pod:su"]
    # 1,090.1965 / 1,200 = -9.15 %: within 10 % (issue 28), with the shelves' conversion
    # loss at the vendors' peak efficiency (without it, DC load only, 1,065.1 kW, -11.2 %).
    # Still not modelled, for want of a published count or power: UFM appliances, NMX-M
    # nodes, the management rack's OOB switches, the storage's links, the DPU-end 200G
    # optics (576 x 5 W = 2.9 kW); 1,200 - 1,090.2 = 109.8 kW is NVIDIA's allowance beyond
    # the parts modelled.
    assert su.published_kw == 1200 and su.diff_pct == pytest.approx((total / 1200 - 1) * 100, abs=1e-3)
    assert abs(su.diff_pct) < 10
    assert "UFM, OOB rack switches not modelled" in su.label


def test_storage_counts_in_power_bom_and_capex(catalog):
    """The design's storage units are IT load (air heat), BOM lines (group storage) and
    capex lines; a site-wide system marked ``it_load: false`` (Meta's Tectonic) is none."""
    a = analyze_file(DESIGNS / "gb200_nvl72_576.yaml", catalog)
    (row,) = [r for r in a.bom if r.kind == "storage_system"]
    assert (row.slug, row.count, row.group, row.where) == (
        "nvidia-superpod-gb200-su-storage-enhanced", 1, "storage", "storage su_storage")
    (line,) = [ln for ln in a.capex.lines if ln.kind == "storage_system"]
    assert line.category == "storage" and line.status == "unpriced"
    # unpriced storage keeps the capex from 'full', not from 'systems+fabric'
    assert "nvidia-superpod-gb200-su-storage-enhanced" in a.capex.missing_for("full")
    assert "nvidia-superpod-gb200-su-storage-enhanced" not in a.capex.missing_for("systems+fabric")
    # its 5 kW is air heat: the hall's air carries racks' air + fabrics + node optics + storage
    air = sum(r.air_kw * r.racks for r in a.power.racks)
    assert a.cooling.air_kw == pytest.approx(air + a.power.fabric_kw + a.power.node_optics_kw + 5.0)
    meta = analyze_file(DESIGNS / "meta_h100_24k.yaml", catalog)
    assert meta.power.storage_kw == 0 and not [r for r in meta.bom if r.kind == "storage_system"]


def test_no_shipped_design_has_a_silent_zero(catalog):
    for path in sorted(DESIGNS.glob("*.yaml")):
        a = analyze_file(path, catalog)
        m = a.metrics()
        # every part has a figure or a stated bound; none counts as a silent 0 W
        assert m["power_unknown_parts_count"] == 0 or m["power_unknown_kw_bound"] is not None, path
        for row in a.tables()["power_by_part"]:
            if row["counted"]:
                assert row["max_w_each"] is not None or row["bound_w_each"] is not None, (path, row)


def test_typical_below_max(nvl72):
    m = nvl72.metrics()
    # overhead typical 350 W vs 450 W max and CX-7 20.8 vs 25 W: 18 x (100 + 4 x 4.2) = 2.1024 kW;
    # SN2201 125 vs 150 W: 2 x 25 = 0.05 kW -> 2.1524 kW of DC load; both figures carry the
    # shelves' loss (/ 0.975): 2.1524 / 0.975 = 2.2076 kW
    assert m["it_power_kw"] - m["it_power_typical_kw"] == pytest.approx(2.1524 / 0.975, abs=1e-4)


def test_aws_vs_nvl72_pflops_per_mw_ranking(catalog):
    aws = analyze_file(DESIGNS / "aws_nvl36x2.yaml", catalog).metrics()
    nvl = analyze_file(DESIGNS / "gb200_nvl72.yaml", catalog).metrics()
    # 180 PF each; facility = IT x 1.2: AWS 140.88 x 1.2 = 169.056 kW -> 1,064.7 PF/MW (its
    # shelves publish no efficiency: no loss counted); NVL72 122.16 / 0.975 (the MGX
    # shelves' loss) x 1.2 = 150.351 kW -> 1,197.2 PF/MW: NVL72 ahead (the 0 W parts had
    # it the other way round)
    per_mw = {k: 180 / (m["facility_power_kw"] / 1000) for k, m in (("aws", aws), ("nvl", nvl))}
    assert per_mw["aws"] == pytest.approx(1064.7, abs=0.1)
    assert per_mw["nvl"] == pytest.approx(1197.2, abs=0.1)
    assert per_mw["nvl"] > per_mw["aws"]


NVL72 = """
    name: t
    racks:
      nvl72:
        type: nvidia-gb200-nvl72-rack
        REDUNDANCY
        contents:
          - {type: nvidia-mgx-33kw-power-shelf, count: 8}
          - {type: nvidia-gb200-compute-tray, count: 18}
          - {type: nvidia-nvlink5-switch-tray, count: 9, cooling: liquid}
          - {type: supermicro-gb300-in-rack-cdu, count: 1}
    build: {nvl72: 1}
    """


def test_usable_supply_under_redundancy(tmp_path, catalog):
    # 8 x 33 kW = 264 kW installed; N+N: 4 x 33 = 132 kW usable for 121.86 kW -> survives a
    # feed loss; N+1: 7 x 33 = 231 kW usable, feed arrangement unknown
    for red, usable, survives in (("N+N", 132, True), ("N+1", 231, None)):
        p = _write(tmp_path, NVL72.replace("REDUNDANCY", f"power_redundancy: {red}"))
        (rack,) = analyze_file(p, catalog).power.racks
        assert rack.supply.installed_kw == 264 and rack.supply.usable_kw == usable
        assert rack.supply.survives_feed_loss is survives


def test_redundancy_limits_a_rack(tmp_path, run_cli):
    # 6 shelves N+N = 3 x 33 = 99 kW usable < 121.86 kW (18 x 6.15 + 9 x 1.24), the DC load the
    # shelves deliver (124.985 kW at the feeds, / 0.975): a finding (exit 1, the design is
    # well formed), not an error (exit 2)
    text = NVL72.replace("REDUNDANCY", "power_redundancy: N+N").replace("count: 8}", "count: 6}")
    res = run_cli("validate", str(_write(tmp_path, text)))
    assert res.exit_code == 1 and "under N+N" in res.output and "99 kW" in res.output
    assert "finding:" in res.output and "22.9 kW short" in res.output  # 121.86 - 99 = 22.86
    assert "draws 121.9 kW IT from its shelves (125.0 kW at the feeds)" in res.output


GB300_NN = """
    name: gb300 under N+N
    racks:
      nvl72:
        type: nvidia-gb300-nvl72-rack
        power_redundancy: N+N
        contents:
          - {type: nvidia-mgx-33kw-power-shelf, count: 8}
          - {type: nvidia-gb300-compute-tray, count: 18}
          - {type: nvidia-nvlink5-switch-tray, count: 9, cooling: liquid}
          - {type: supermicro-gb300-in-rack-cdu, count: 1}
    build: {nvl72: 1}
    """


def test_supply_short_under_redundancy_is_a_finding_with_every_figure(tmp_path, run_cli):
    # GB300 NVL72 141.48 kW of DC load (18 x 7,240 + 9 x 1,240 W; 145.108 kW at the feeds) under
    # N+N: 4 x 33 = 132 kW usable, 9.48 kW short. Before: a fatal error (exit 2) and no
    # figures at all.
    p = _write(tmp_path, GB300_NN)
    res = run_cli("design", str(p), "-q", "--report", "json", "-o", str(tmp_path / "out"))
    assert res.exit_code == 1, res.output
    assert "finding:" in res.output and "draws 141.5 kW IT" in res.output and "9.5 kW short" in res.output
    import json

    data = json.loads((tmp_path / "out" / "d.json").read_text())
    (f,) = data["findings"]
    assert f["kind"] == "power_supply" and f["path"] == "racks.nvl72.contents" and f["line"]
    assert data["metrics"]["it_power_kw"] == pytest.approx(141.48 / 0.975)  # the figures are all there
    (sup,) = data["tables"]["power_supply"]
    assert sup["usable_kw"] == 132 and sup["survives_one_feed_loss"] == "no"
    # the terminal summary names the violation first, before the figures
    res = run_cli("design", str(p))
    assert res.exit_code == 1
    out = res.output
    assert out.index("FINDINGS: 1 design rule broken") < out.index("GPUs") < out.index("IT power")


def test_malformed_input_stays_exit_2(tmp_path, run_cli):
    p = _write(tmp_path, GB300_NN.replace("power_redundancy: N+N", "power_redundancy: N+7"))
    assert run_cli("design", str(p), "-q").exit_code == 2


def test_liquid_in_air_rack_exits_2(tmp_path, run_cli):
    text = NVL72.replace("nvidia-gb200-nvl72-rack", "generic-42u-air-rack").replace("REDUNDANCY", "")
    text = text.replace("count: 8}", "count: 1}").replace("count: 18}", "count: 2}")
    text = text.replace("count: 9, cooling: liquid}", "count: 1, cooling: liquid}")
    res = run_cli("validate", str(_write(tmp_path, text)))
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert "air-cooled" in res.output and "supermicro-gb300-in-rack-cdu" in res.output


def test_liquid_parts_in_air_rack_without_cdu_exits_2(tmp_path, run_cli):
    text = NVL72.replace("nvidia-gb200-nvl72-rack", "generic-42u-air-rack").replace("REDUNDANCY", "")
    text = text.replace("count: 8}", "count: 1}").replace("count: 18}", "count: 2}")
    text = text.replace("          - {type: supermicro-gb300-in-rack-cdu, count: 1}\n", "")
    text = text.replace("          - {type: nvidia-nvlink5-switch-tray, count: 9, cooling: liquid}\n", "")
    res = run_cli("validate", str(_write(tmp_path, text)))
    # per tray 2 x 2.65 + 4 x 0.025 = 5.40 kW to liquid in an air-only rack (2 trays: 10.8 kW)
    assert res.exit_code == 2 and "sends 5.40 kW to liquid" in res.output


def test_air_unit_in_liquid_rack_exits_2(tmp_path, run_cli):
    # a wholly air-cooled management switch in a rack type with no air path at all (a
    # user's liquid-only copy of the GB300 rack: no shipped rack type is liquid-only)
    import yaml

    from infra.models.catalog import DEFAULT_CATALOG_DIR

    rack = yaml.safe_load((DEFAULT_CATALOG_DIR / "racks" / "nvidia-gb300-nvl72-rack.yaml").read_text())
    rack.update(slug="acme-sealed-rack", cooling="liquid")
    (tmp_path / "cat" / "racks").mkdir(parents=True)
    (tmp_path / "cat" / "racks" / "acme-sealed-rack.yaml").write_text(yaml.safe_dump(rack))
    text = NVL72.replace("nvidia-gb200-nvl72-rack", "acme-sealed-rack").replace("REDUNDANCY", "")
    text = text.replace("          - {type: supermicro-gb300-in-rack-cdu, count: 1}\n",
                        "          - {type: supermicro-gb300-in-rack-cdu, count: 1}\n"
                        "          - {type: nvidia-sn2201, count: 1}\n")
    res = run_cli("validate", str(_write(tmp_path, text)), "--catalog", str(DEFAULT_CATALOG_DIR),
                  "--catalog", str(tmp_path / "cat"))
    assert res.exit_code == 2 and "wholly air-cooled" in res.output and "nvidia-sn2201" in res.output


def test_gb300_nvl72_rack_carries_air_cooled_management_switches(tmp_path, catalog, run_cli):
    """Issue 28 item 6: GB300 NVL72's rack type was liquid-only and refused the two
    air-cooled SN2201 management switches a real rack carries (exit 2). It is hybrid
    (liquid compute, air for the rest) and their heat is counted to air:
    2 x 150 W (SN2201 max, estimate) = 0.3 kW more load, / 0.975 through the shelves =
    0.3077 kW more IT power, all of it air heat."""
    shipped = (DESIGNS / "gb300_nvl72.yaml").read_text()
    first = "      - {type: nvidia-mgx-33kw-power-shelf, count: 4}\n"
    assert first in shipped
    p = tmp_path / "gb300_mgmt.yaml"
    p.write_text(shipped.replace(first, "      - {type: nvidia-sn2201, count: 2, role: management}\n"
                                        + first, 1))
    assert run_cli("validate", str(p)).exit_code == 0
    base, mixed = analyze_file(DESIGNS / "gb300_nvl72.yaml", catalog), analyze_file(p, catalog)
    (b,), (m,) = base.power.racks, mixed.power.racks
    assert m.it_kw == pytest.approx(b.it_kw + 0.3 / 0.975)
    assert m.air_kw == pytest.approx(b.air_kw + 0.3 / 0.975)
    assert m.liquid_kw == pytest.approx(b.liquid_kw)
    assert mixed.cooling.air_kw == pytest.approx(base.cooling.air_kw + 0.3 / 0.975)


def test_pod_of_pods_cooling_sees_the_nested_racks(tmp_path, catalog, run_cli):
    """row -> su x 4 -> nvl72 x 2; one Motivair 2.5 MW CDU on the row serves 8 racks.

    [row: CDU] ── su ── [nvl72][nvl72]
               ├─ su ── [nvl72][nvl72]   ... (4 su)
    """
    text = """
        name: t
        racks:
          nvl72:
            type: nvidia-gb200-nvl72-rack
            contents:
              - {type: nvidia-mgx-33kw-power-shelf, count: 8}
              - {type: nvidia-gb200-compute-tray, count: 18}
              - {type: nvidia-nvlink5-switch-tray, count: 9, cooling: liquid}
        pods:
          su: {racks: {nvl72: 2}}
          row:
            pods: {su: 4}
            cooling: [{type: motivair-mcdu-70, count: COUNT}]
        build: {row: 1}
        """
    p = _write(tmp_path, text.replace("COUNT", "1"))
    (row,) = analyze_file(p, catalog).cooling.rows
    # liquid per rack 18 x 5.4 + 9 x 1.24 = 108.36 kW; 8 racks = 866.88 kW (was 0 kW: bug)
    assert row.heat_kw == pytest.approx(8 * 108.36)
    assert row.needed == 1  # ceil(866.88 / 2,500)
    # 24 racks (su x 12) need 24 x 108.36 = 2,600.64 kW > 2,500 kW: one unit is short -> exit 2
    big = text.replace("COUNT", "1").replace("{su: 4}", "{su: 12}")
    res = run_cli("validate", str(_write(tmp_path, big)))
    assert res.exit_code == 1 and "short of the 2600.6 kW liquid heat load" in res.output


def test_power_override_is_used_and_listed(tmp_path, catalog):
    text = NVL72.replace("REDUNDANCY", "power_redundancy: N+1").rstrip() + "\n" + (
        "    power_overrides:\n"
        '      - {type: nvidia-nvlink5-switch-tray, max_w: 1500, typical_w: 1100, source: "vendor quote Q-1"}\n')
    p = _write(tmp_path, text)
    a = analyze_file(p, catalog)
    # 18 x 6.15 + 9 x 1.5 = 124.2 kW max; typical: 18 x (5.3 + 0.0832 + 0.3 + 0.35) + 9 x 1.1;
    # both / 0.975 through the MGX shelves
    assert a.metrics()["it_power_kw"] == pytest.approx(124.2 / 0.975)
    assert a.metrics()["it_power_typical_kw"] == pytest.approx((18 * 6.0332 + 9.9) / 0.975)
    rows = [r for r in a.tables()["assumptions"] if r["item"].startswith("power override")]
    assert rows and "vendor quote Q-1" == rows[0]["source"]


def test_air_heat_warning_default_and_design_limit(catalog, tmp_path):
    a = analyze_file(DESIGNS / "dgx_h100_su.yaml", catalog)
    # 4 x 10.2 kW = 40.8 kW of air heat per rack > 30 kW default (hardware-facts §8)
    assert any("40.8 kW of air heat" in w for w in a.cooling.warnings)
    text = (DESIGNS / "dgx_h100_su.yaml").read_text().replace(
        "  nvlink_partition_mode: full_bandwidth\n",
        "  nvlink_partition_mode: full_bandwidth\n  air_heat_limit_kw_per_rack: 45\n")
    p = tmp_path / "d.yaml"
    p.write_text(text)
    assert not analyze_file(p, catalog).cooling.warnings


@pytest.mark.parametrize("row, message", [
    ("{type: nvidia-nvlink5-switch-trai, max_w: 1500, source: q}", "unknown part type"),
    ("{type: nvidia-nvlink5-switch-tray, source: q}", "gives no figure"),
    ("{type: nvidia-nvlink5-switch-tray, max_w: 1000, typical_w: 1200, source: q}", "above max_w"),
])
def test_bad_power_override_exits_2(tmp_path, run_cli, row, message):
    text = NVL72.replace("REDUNDANCY", "").rstrip() + f"\n    power_overrides:\n      - {row}\n"
    res = run_cli("validate", str(_write(tmp_path, text)))
    assert res.exit_code == 2 and message in res.output and "power_overrides" in res.output


def test_sweep_row_with_a_finding_keeps_its_figures(tmp_path):
    from infra.sweeps.sweep import sweep

    base = _write(tmp_path, GB300_NN)
    res = sweep(base, {"parameters": {"supply": {"path": "racks.nvl72.power_redundancy",
                                                  "values": ["N+N", "N+1"]}}},
                objectives={"it_power_kw": "min"})
    nn, n1 = res.rows
    # N+N: 132 kW usable < 141.48 kW (the DC load) -> status finding, figures kept, not on
    # the front; N+1: 7 x 33 = 231 kW usable -> ok
    assert nn["status"] == "finding" and "draws 141.5 kW IT" in nn["error"] and "132 kW" in nn["error"]
    assert nn["it_power_kw"] == pytest.approx(141.48 / 0.975)
    assert n1["status"] == "ok" and res.front == (1,)


def test_fabric_switch_power_bound_is_used(tmp_path, catalog):
    """Issue 28 item 6: a fabric switch with no power figure but a stated power_bound_w
    left the design's unknown power at "no stated bound". Here the GB200 SU's QM9700
    (1,096 W max, an estimate) is replaced by a copy with no figure and a 1,500 W bound:
    the IT power drops by the switches' 1,096 W each (now unknown, 0 W) and the
    unknown power is at most switches x 1,500 W."""
    import yaml

    from infra.models.catalog import DEFAULT_CATALOG_DIR, load_catalog

    src = yaml.safe_load((DEFAULT_CATALOG_DIR / "network_switches" /
                          "nvidia-quantum-2-qm9700.yaml").read_text())
    for k in ("typical_w", "max_power_w"):
        src.pop(k)
        src["figure_sources"].pop(k)
    src.update(slug="acme-ndr-switch", power_bound_w=1500)
    src["figure_sources"]["power_bound_w"] = "EST"
    mine = tmp_path / "cat" / "network_switches"
    mine.mkdir(parents=True)
    (mine / "acme-ndr-switch.yaml").write_text(yaml.safe_dump(src, sort_keys=False))
    design = tmp_path / "su.yaml"
    design.write_text((DESIGNS / "gb200_nvl72_576.yaml").read_text().replace(
        "switch: nvidia-quantum-2-qm9700", "switch: acme-ndr-switch"))
    cat = load_catalog([DEFAULT_CATALOG_DIR, mine.parent])
    shipped, a = analyze_file(DESIGNS / "gb200_nvl72_576.yaml", catalog), analyze_file(design, cat)
    n_sw = sum(t.switches for f in a.fabrics if f.name == "compute" for t in f.tiers)
    assert n_sw > 0 and a.power.unknown == ("acme-ndr-switch",)
    assert a.power.unknown_bound_kw == pytest.approx(n_sw * 1.5)  # not None
    assert a.power.it_kw == pytest.approx(shipped.power.it_kw - n_sw * 1.096)
    row = next(r for r in a.tables()["assumptions"]
               if r["item"].startswith("power of the unknown parts"))
    assert row["value"] == pytest.approx(n_sw * 1.5)


@pytest.mark.parametrize("entry, units, spares, finding", [
    # 326.4 kW of air heat (32 DGX H100 at 10.2 kW), 29 kW units: ceil(326.4 / 29) = 12
    ("{type: vertiv-liebert-pdx}", 13, 1, None),                 # sized here: N+1 = 13
    ("{type: vertiv-liebert-pdx, spares: 0}", 12, 0, None),      # the design says N
    ("{type: vertiv-liebert-pdx, spares: 2}", 14, 2, None),      # N+2
    ("{type: vertiv-liebert-pdx, count: 13}", 13, 1, None),      # listed, no spares asked
    ("{type: vertiv-liebert-pdx, count: 12, spares: 1}", 12, 0, "cooling_redundancy"),
])
def test_cooling_units_sized_here_get_n_plus_1(tmp_path, catalog, entry, units, spares, finding):
    """Issue 28 item 6: units the tool sized got no spare (N), so one unit's failure left
    heat unremoved without notice; they now get one (N+1) unless the design's cooling
    entry sets spares; listed units short of N + the stated spares are a finding."""
    text = (DESIGNS / "dgx_h100_su.yaml").read_text()
    assert "      - {type: vertiv-liebert-pdx, count: 13}\n" in text
    p = tmp_path / "su.yaml"
    p.write_text(text.replace("{type: vertiv-liebert-pdx, count: 13}", entry))
    a = analyze_file(p, catalog)
    (row,) = a.cooling.rows
    assert row.heat_kw == pytest.approx(326.4) and row.needed == 12
    assert row.total_units == units  # one SU
    cooling = a.tables()["cooling"][0]
    assert cooling["spares"] == spares and cooling["total_units"] == units
    assert [f.kind for f in a.findings] == ([finding] if finding else [])
    if "count" not in entry:  # the blast radius sees the spare: one unit down loses no GPU
        blast = next(r for r in a.blast if r.component_kind == "cooling_unit")
        assert (blast.gpus_lost == 0) == (spares >= 1)
