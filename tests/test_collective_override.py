"""``--collective-model FILE``: a site's calibrated ``collective_model`` entry (one file,
``OUT/<slug>.calibrated.yaml`` from ``infra diff --calibrate``) in place of the shipped one,
in ``infra collectives``, ``infra diff`` and ``infra.collectives(collective_models=...)``.

The site: NVIDIA/nccl #2409, 2 DGX H100 over 8 x 400G RoCE per node, all-reduce on 16 GPUs
measured at 231 GB/s busbw at 8 GiB and 216.5 GB/s at 1 GiB (tests/fixtures/nccl-tests);
the shipped model predicts 514.8 GB/s at 8 GiB (test_diff_nccl_tests.py).
"""

from __future__ import annotations

import json

import pytest
import yaml
from click.testing import CliRunner

from conftest import DESIGNS, ROOT

FIX = ROOT / "tests/fixtures/nccl-tests"
H100_SU = DESIGNS / "dgx_h100_su.yaml"
GIB = 2**30
ONE_ROW = ("--gpus", "16", "--size", "8GiB", "--op", "all_reduce")


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory):
    """The #2409 fixture calibrated once: the one file written."""
    from infra.cli.main import cli

    out = tmp_path_factory.mktemp("cal")
    res = CliRunner().invoke(cli, ["diff", str(H100_SU), "--inventory", str(FIX / "nccl-2409"),
                                   "--calibrate", "-o", str(out)], obj={})
    assert res.exit_code == 1, res.output  # the collective-slow finding still gates
    assert [p.name for p in out.rglob("*")] == ["nccl-sm90.calibrated.yaml"]
    return out / "nccl-sm90.calibrated.yaml"


def one_row(run_cli, *extra):
    res = run_cli("collectives", str(H100_SU), *ONE_ROW, "--format", "json", *extra)
    assert res.exit_code == 0, res.output
    (row,) = json.loads(res.stdout)["rows"]
    return res, row


def test_the_file_is_a_complete_entry_with_the_shipped_slug(calibrated):
    data = yaml.safe_load(calibrated.read_text())
    shipped = yaml.safe_load((ROOT / "catalogs/collectives/nccl-sm90.yaml").read_text())
    assert (data["kind"], data["slug"]) == ("collective_model", "nccl-sm90")
    assert set(data) >= set(shipped) - {"notes"}  # every figure of the shipped entry
    site = next(s for s in data["sources"] if s["id"] == data["figure_sources"]["net_efficiency"])
    assert site["tag"] == "estimate" and "infra diff --calibrate" in site["title"]
    assert "shipped 0.96" in data["choices"]["net_efficiency"]


def test_calibrated_model_predicts_the_measured_231(run_cli, calibrated):
    res, before = one_row(run_cli)
    assert round(before["busbw_gbyte_s"], 1) == 514.8 and before["algorithm"] == "NVLSTree"
    res, row = one_row(run_cli, "--collective-model", str(calibrated))
    assert (f"collective model nccl-sm90: {calibrated} in place of "
            "catalogs/collectives/nccl-sm90.yaml") in res.stderr
    # The fit (net_efficiency e): across 2 nodes Tree LL128 wins once the network is slow:
    # algbw = p x L / (2(N-1)/N) x 120/128 = 8 NICs x 50 GB/s x e / 1 x 0.9375 = 375 e
    # (NVLSTree: min(481.5 / 1.75, 400 e x 0.92) = 368 e; U / 2 = 18 x 20.6 / 2 = 185.4 is
    # not binding); busbw = algbw x 2(n-1)/n = 1.875 algbw, latency ~0.1 % of 8 GiB.
    # Per row, e = busbw / (1.875 x 375): 231 / 703.1 = 0.3285 (8 GiB), 216.5 / 703.1 =
    # 0.3079 (1 GiB); median of the two 0.31822 -> predicted 703.125 x 0.31822 = 223.75 GB/s
    e = (231 / (1.875 * 375) + 216.5 / (1.875 * 375)) / 2
    want = 1.875 * 375 * e
    assert want == pytest.approx(223.75, abs=0.01)
    assert row["busbw_gbyte_s"] == pytest.approx(want, rel=0.01)
    assert (row["algorithm"], row["protocol"]) == ("Tree", "LL128")
    assert abs(row["busbw_gbyte_s"] / 231 - 1) < 0.04  # close to the site's 231 GB/s
    assert "0.3191" in row["bottleneck"]  # the fitted figure, as written in the file


def test_api_keyword_is_the_cli(run_cli, calibrated):
    import infra
    from infra.models.resolve import load_design

    _, row = one_row(run_cli, "--collective-model", str(calibrated))
    args = dict(ops=["all_reduce"], gpus=[16], sizes=[8 * GIB])
    (by_path,) = infra.collectives(H100_SU, collective_models=(calibrated,), **args)
    (by_str,) = infra.collectives(str(H100_SU), collective_models=str(calibrated), **args)
    (loaded,) = infra.collectives(load_design(H100_SU), collective_models=[calibrated], **args)
    for r in (by_path, by_str, loaded):
        assert r.as_dict() == row
    (shipped,) = infra.collectives(H100_SU, **args)  # no override: the shipped model
    assert round(shipped.busbw_gbyte_s, 1) == 514.8


def test_an_override_the_design_does_not_use_is_said(run_cli, calibrated):
    res = run_cli("collectives", str(DESIGNS / "gb200_nvl72.yaml"), "--op", "all_reduce",
                  "--gpus", "8", "--size", "8GiB", "--collective-model", str(calibrated))
    assert res.exit_code == 0, res.output
    assert "changes nothing: the design's GPU uses nccl-sm100" in res.stderr


def _edit(calibrated, tmp_path, name, old, new):
    text = calibrated.read_text()
    assert old in text
    f = tmp_path / name
    f.write_text(text.replace(old, new))
    return f


BAD = [  # name, old, new, message, line
    ("kind.yaml", "kind: collective_model", "kind: gpu", "'gpu', expected collective_model", 5),
    ("slug.yaml", "slug: nccl-sm90", "slug: nccl-sm91",
     "collective_model 'nccl-sm91' is not in the catalog", 6),
    ("value.yaml", "net_efficiency: 0.3191", "net_efficiency: 1.5",
     "net_efficiency: Input should be less than or equal to 1", 13),
    ("extra.yaml", "tree_efficiency: 0.92", "tree_efficiency: 0.92\nspeedup: 2",
     "speedup: unknown key 'speedup'", 15),
    ("yaml.yaml", "library: NCCL", "library: [NCCL", "malformed YAML", None),
]


@pytest.mark.parametrize("name,old,new,message,line", BAD)
def test_bad_override_exits_2(run_cli, calibrated, tmp_path, name, old, new, message, line):
    f = _edit(calibrated, tmp_path, name, old, new)
    res = run_cli("collectives", str(H100_SU), *ONE_ROW, "--collective-model", str(f))
    assert res.exit_code == 2, res.output
    [err] = [s for s in res.output.splitlines() if s.startswith("error:")]
    assert f"error: {f}:{line or ''}" in err and message in err and "(" in err  # a hint
    assert "Traceback" not in res.output and res.stdout == ""


def test_bad_override_in_diff_and_other_errors(run_cli, calibrated, tmp_path):
    f = _edit(calibrated, tmp_path, "slug.yaml", "slug: nccl-sm90", "slug: nccl-sm9")
    res = run_cli("diff", str(H100_SU), "--inventory", str(FIX / "nccl-2409"),
                  "--collective-model", str(f))
    assert res.exit_code == 2 and "did you mean 'nccl-sm90'" in res.output
    res = run_cli("collectives", str(H100_SU), *ONE_ROW, "--collective-model",
                  str(tmp_path / "none.yaml"))
    assert res.exit_code == 2 and f"{tmp_path / 'none.yaml'}: file not found" in res.output
    twice = _edit(calibrated, tmp_path, "copy.yaml", "kind:", "kind:")
    res = run_cli("collectives", str(H100_SU), *ONE_ROW, "--collective-model", str(calibrated),
                  "--collective-model", str(twice))
    assert res.exit_code == 2 and "'nccl-sm90' is overridden twice" in res.output


def test_loader_names_the_file(calibrated, tmp_path):
    from infra.errors import CatalogError
    from infra.models.catalog import load_catalog, load_override, with_overrides

    cat = load_catalog()
    new, (entry,) = with_overrides(cat, [calibrated], "collective_model")
    assert new.get("nccl-sm90") is entry and new.files["nccl-sm90"] == calibrated
    assert cat.get("nccl-sm90").net_efficiency == 0.96  # the shipped catalog is untouched
    with pytest.raises(CatalogError, match="'collective_model', expected gpu"):
        load_override(calibrated, "gpu", cat)
