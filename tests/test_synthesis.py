"""``infra synthesize``: designs from a budget; every written design is valid input and
reproduces its front row; the DGX SuperPOD H100 reference table; rejections say why."""

from __future__ import annotations

import json

import pytest

from infra.synthesis import Budget, synthesize


def test_front_designs_validate_and_reproduce_their_figures(run_cli, tmp_path):
    out = tmp_path / "syn"
    r = run_cli("synthesize", "--power-mw", "1.7", "--capex-usd", "4e7", "--sku", "h100",
                "-o", str(out), "--format", "json")
    assert r.exit_code == 0, r.output
    front = json.loads((out / "synthesis.json").read_text())["front"]
    assert front
    for row in front:
        path = out / f"{row['design']}.yaml"
        assert run_cli("validate", str(path)).exit_code == 0
        d = run_cli("design", str(path), "--report", "json", "-o", str(tmp_path / "d"),
                    "--no-diagrams")
        assert d.exit_code == 0, d.output
        m = json.loads((tmp_path / "d" / f"{row['design']}.json").read_text())["metrics"]
        assert m["gpus"] == row["gpus"]
        assert round(m["facility_power_kw"] / 1000, 4) == row["facility_power_mw"]
        assert (m["leaf_switches"], m["spine_switches"]) == (row["leaf_switches"],
                                                             row["spine_switches"])
        assert m["capex_priced_usd"] == row["capex_usd"]
        assert row["facility_power_mw"] <= 1.7 and row["capex_usd"] <= 4e7


@pytest.mark.parametrize("sus, spines", [(1, 4), (2, 8), (3, 16), (4, 16)])
def test_dgx_superpod_h100_reference_counts(sus, spines):
    """NVIDIA DGX SuperPOD H100 RA (hardware-facts §5c, S23): 8 leaves per SU, 4 / 8 / 16 /
    16 spines for 1 / 2 / 3 / 4 SU, non-blocking QM9700. The family's candidate at that
    GPU count (32 DGX H100 = 256 GPUs per SU) has exactly those counts; leaf-to-spine links
    = leaves x 32 uplinks."""
    r = synthesize(Budget(power_mw=10, gpus=256 * sus), only=("dgx_h100_su",),
                   oversubscriptions=(1.0,), rail_only=False)  # the RA: a non-blocking fat tree
    (row,) = r.front_rows()
    assert row["blocks"] == sus and row["gpus"] == 256 * sus
    assert (row["leaf_switches"], row["spine_switches"], row["core_switches"]) == (8 * sus, spines, 0)


def test_superpod_transceivers_differ_by_one_dgx():
    """The RA's 4-SU SuperPOD (designs/dgx_h100_superpod.yaml) has 127 DGX (one slot left
    for UFM); the 4-SU candidate has 128: 8 more transceivers, the 128th DGX's 4 twin-port
    OSFPs at the node and the 4 at the leaves (2,040 + 8 = 2,048)."""
    from conftest import DESIGNS
    from infra.analysis.summary import analyze_file

    ref = analyze_file(DESIGNS / "dgx_h100_superpod.yaml").metrics()
    (row,) = synthesize(Budget(power_mw=10, gpus=1016), only=("dgx_h100_su",),
                        oversubscriptions=(1.0,), rail_only=False).front_rows()
    assert row["transceivers"] == ref["transceivers"] + 8
    assert (row["leaf_switches"], row["spine_switches"]) == (ref["leaf_switches"],
                                                             ref["spine_switches"])


def test_rejections_name_the_bound():
    r = synthesize(Budget(power_mw=0.3, train_model="llama-3-405b", tokens=1e12),
                   only=("dgx_h100_su", "gb200_nvl72_576"))
    reasons = {x["family"]: x["reason"] for x in r.rejected}
    # one GB200 SU needs 1.33 MW facility: the power bound allows 0 blocks
    assert "power allows 0" in reasons["gb200_nvl72_576"]
    # 405B x 18 B = 7.3 TB of state fits 1 SU of H100 (256 x 85.9 GB x 0.9 = 19.8 TB), but
    # 0.3 MW allows no SU (1.2 MW facility a block)
    assert reasons["dgx_h100_su"].startswith("1 block(s) needed")
    r = synthesize(Budget(power_mw=20, capex_usd=5e8), only=("mi355x_cluster",))
    assert r.rejected[-1]["reason"].startswith("capex unknown")


def test_reruns_are_byte_identical(run_cli, tmp_path):
    args = ["synthesize", "--power-mw", "1", "--sku", "h100", "--format", "csv"]
    a = run_cli(*args, "-o", str(tmp_path / "a"))
    b = run_cli(*args, "-o", str(tmp_path / "b"))
    assert a.exit_code == b.exit_code == 0
    assert a.output.replace(str(tmp_path / "a"), "D") == b.output.replace(str(tmp_path / "b"), "D")
    for f in (tmp_path / "a").iterdir():
        assert f.read_bytes() == (tmp_path / "b" / f.name).read_bytes()


@pytest.mark.parametrize("args, words", [
    (["--power-mw", "5", "--train", "llama-3-70b"], "--train and --tokens go together"),
    (["--power-mw", "5", "--family", "nope"], "unknown family"),
    (["--power-mw", "5", "--sku", "tpu"], "no family matches"),
    (["--power-mw", "5", "--objectives", "days:up"], "direction must be min or max"),
])
def test_bad_input_exits_2(run_cli, args, words):
    r = run_cli("synthesize", *args)
    assert r.exit_code == 2 and words in r.output, r.output


def test_reports_chart_the_front(run_cli, tmp_path):
    import zipfile

    import openpyxl

    out = tmp_path / "rep"
    r = run_cli("synthesize", "--power-mw", "1.7", "--sku", "h100", "-o", str(out),
                "--report", "xlsx", "--report", "html")
    assert r.exit_code == 0, r.output
    front = json.loads((out / "synthesis.json").read_text())["front"]
    wb = openpyxl.load_workbook(out / "synthesis.xlsx")
    assert wb.sheetnames == ["Front", "Candidates", "Rejected"]
    assert wb["Front"].max_row == 1 + len(front)
    charts = [n for n in zipfile.ZipFile(out / "synthesis.xlsx").namelist()
              if n.startswith("xl/charts/chart")]
    assert len(charts) == 1
    page = (out / "synthesis.html").read_text()
    assert page.count("<circle") == len(front) and "Rejected families" in page
    assert run_cli("synthesize", "--power-mw", "1", "--report", "html").exit_code == 2


def test_oversubscription_is_searched_within_a_family():
    """One SU of DGX H100 at 1:1 and at 2:1: the 2:1 candidate has half the leaf uplinks
    (8 leaves x 16 = 128 = 2 spines of 64 ports, against 4), costs less, and its design
    file says so; on gpus:max, capex:min it dominates the non-blocking one."""
    r = synthesize(Budget(power_mw=10, gpus=256), only=("dgx_h100_su",),
                   oversubscriptions=(1.0, 2.0), objectives="gpus:max,capex:min",
                   rail_only=False)
    rows = {row["leaf_oversubscription"]: row for row in r.rows if row["status"] == "ok"}
    assert set(rows) == {1.0, 2.0}
    assert [row["leaf_oversubscription"] for row in r.front_rows()] == [2.0]
    assert (rows[1.0]["spine_switches"], rows[2.0]["spine_switches"]) == (4, 2)
    assert rows[2.0]["capex_usd"] < rows[1.0]["capex_usd"]
    i = next(i for i in r.front if r.rows[i]["leaf_oversubscription"] == 2.0)
    assert r.designs[i]["fabrics"]["compute"]["tiers"][0]["oversubscription"] == 2.0
    assert r.search["enumerated"] == r.search["pruned_by_bounds"] + r.search["analysed"]


def test_bad_oversubscription_is_an_input_error():
    from infra.errors import InfraError

    with pytest.raises(InfraError, match="each must be 1 to 16"):
        synthesize(Budget(power_mw=1), only=("dgx_h100_su",), oversubscriptions=(0.5,))


def test_rail_only_fabric_is_a_candidate_while_a_rail_fits_one_switch(tmp_path):
    """Two DGX H100 SUs (64 nodes) rail-only: each of the 8 rails is one QM9700 of 64
    ports (8 switches, no spine), one transceiver per node port: 64 x 8 = 512 (the 2-tier
    fat tree: 16 leaves, 8 spines, 1,024). Four SUs (128 nodes) do not fit one switch per
    rail: that candidate is rejected saying so. The written rail-only design validates and
    analyses to the same counts."""
    from infra.api import analyze
    from infra.synthesis.output import design_name, design_text

    two = synthesize(Budget(power_mw=10, gpus=512), only=("dgx_h100_su",),
                     objectives="gpus:max,capex:min")
    rows = {r["fabric_variant"]: r for r in two.rows if r["leaf_oversubscription"] == 1.0}
    rail, tree = rows["rail_only"], rows["fat_tree"]
    assert (rail["leaf_switches"], rail["spine_switches"], rail["transceivers"]) == (8, 0, 512)
    assert (tree["leaf_switches"], tree["spine_switches"], tree["transceivers"]) == (16, 8, 1024)
    assert rail["capex_usd"] < tree["capex_usd"]
    i = next(i for i, r in enumerate(two.rows) if r is rail)
    path = tmp_path / f"{design_name(rail)}.yaml"
    assert path.name == "dgx_h100_su-x2-rail.yaml"
    path.write_text(design_text(two, i), encoding="utf-8")
    m = analyze(path).metrics()
    assert (m["leaf_switches"], m["spine_switches"], m["transceivers"]) == (8, 0, 512)
    four = synthesize(Budget(power_mw=10, gpus=1024), only=("dgx_h100_su",))
    (r4,) = [r for r in four.rows if r["fabric_variant"] == "rail_only"]
    assert r4["status"] == "rejected" and "1 tier" in r4["reason"]


B200_RA = [  # NVIDIA DGX SuperPOD B200 RA, "DGX SuperPOD Architecture", table of larger
    # component counts (docs.nvidia.com/dgx-superpod/reference-architecture-scalable-
    # infrastructure-b200/latest/dgx-superpod-architecture.html): SUs, leaf, spine, core;
    # cables node-leaf, leaf-spine, spine-core
    (2, 16, 8, 0, 512, 512, 0),
    (4, 32, 16, 0, 1024, 1024, 0),
    (8, 64, 32, 0, 2048, 2048, 0),
    (16, 128, 128, 64, 4096, 4096, 4096),
]


@pytest.mark.parametrize("sus, leaf, spine, core, c1, c2, c3", B200_RA)
def test_dgx_superpod_b200_reference_counts(tmp_path, sus, leaf, spine, core, c1, c2, c3):
    """Given the GPU count of the B200 RA's 2 to 16 SU SuperPODs (32 DGX B200 = 256 GPUs an
    SU), the dgx_b200_su family's non-blocking candidate has the RA's switch counts (three
    tiers at 16 SU, as the RA) and, analysed from its written design file, its cables."""
    from infra.api import analyze
    from infra.synthesis.output import design_text

    r = synthesize(Budget(power_mw=100, gpus=256 * sus), only=("dgx_b200_su",),
                   oversubscriptions=(1.0,), rail_only=False)
    (i,) = r.front
    row = r.rows[i]
    assert (row["leaf_switches"], row["spine_switches"], row["core_switches"]) == (leaf, spine,
                                                                                   core)
    path = tmp_path / "b200.yaml"
    path.write_text(design_text(r, i), encoding="utf-8")
    cables = [t.cables for f in analyze(path).fabrics for t in f.tiers]
    assert cables == [c for c in (c1, c2, c3) if c]


def test_synthesize_writes_nothing_when_one_target_is_refused(run_cli, tmp_path):
    """A symlinked synthesis.json: exit 2 before any front design is written."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "synthesis.json").symlink_to(tmp_path / "elsewhere.json")
    r = run_cli("synthesize", "--power-mw", "1", "--sku", "h100", "-o", str(out))
    assert r.exit_code == 2 and "symbolic link" in r.output
    assert sorted(p.name for p in out.iterdir()) == ["synthesis.json"]


def test_repeated_ratios_count_once_and_huge_searches_are_refused(run_cli):
    once = synthesize(Budget(power_mw=1), only=("dgx_h100_su",), oversubscriptions=(2.0,))
    thrice = synthesize(Budget(power_mw=1), only=("dgx_h100_su",),
                        oversubscriptions=(2.0, 2.0, 2.0))
    assert len(thrice.rows) == len(once.rows) and thrice.search == once.search
    r = run_cli("synthesize", "--power-mw", "100000", "--every-count", "--family", "dgx_h100_su")
    assert r.exit_code == 2 and "candidates to analyse in full" in r.output
    assert "--max-scenarios" not in r.output and "Traceback" not in r.output
