"""Several catalog directories (``--catalog`` repeatable, ``INFRA_CATALOG``) and
``infra new`` starter designs (issue 12, format)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import yaml

from infra.models.catalog import DEFAULT_CATALOG_DIR, load_catalog
from infra.models.resolve import load_design

ROOT = Path(__file__).resolve().parents[1]
TRAY = DEFAULT_CATALOG_DIR / "trays" / "nvidia-gb200-compute-tray.yaml"


def _user_parts(tmp_path: Path, slug: str) -> Path:
    """A user's catalog holding one tray: the shipped GB200 tray under ``slug``."""
    d = tmp_path / "my-parts" / "trays"
    d.mkdir(parents=True)
    data = yaml.safe_load(TRAY.read_text())
    data["slug"] = slug
    (d / f"{slug}.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return d.parent


def _design_using(tmp_path: Path, slug: str) -> Path:
    text = (ROOT / "designs" / "gb200_nvl72.yaml").read_text()
    p = tmp_path / "mine.yaml"
    p.write_text(text.replace("type: nvidia-gb200-compute-tray,", f"type: {slug},"))
    return p


def test_user_parts_overlay_the_shipped_catalog(tmp_path, run_cli):
    mine = _user_parts(tmp_path, "acme-gb200-tray")
    cat = load_catalog([DEFAULT_CATALOG_DIR, mine])
    assert cat.get("acme-gb200-tray").u_height == 1 and "nvidia-b200-gb200" in cat
    design = _design_using(tmp_path, "acme-gb200-tray")
    # 18 trays x 4 B200 = 72 GPUs, every tray from the user's directory
    assert load_design(design, cat).tray_counts() == {"acme-gb200-tray": 18}
    res = run_cli("validate", str(design), "--catalog", str(DEFAULT_CATALOG_DIR),
                  "--catalog", str(mine))
    assert res.exit_code == 0, res.output
    # without the user's directory the slug is unknown: exit 2, not a traceback
    res = run_cli("validate", str(design))
    assert res.exit_code == 2 and "acme-gb200-tray" in res.output


def test_slug_defined_twice_names_both_files(tmp_path, run_cli):
    mine = _user_parts(tmp_path, "nvidia-gb200-compute-tray")
    res = run_cli("validate", str(ROOT / "designs" / "gb200_nvl72.yaml"),
                  "--catalog", str(DEFAULT_CATALOG_DIR), "--catalog", str(mine))
    assert res.exit_code == 2, res.output
    assert "defined twice" in res.output
    assert str(TRAY) in res.output
    assert str(mine / "trays" / "nvidia-gb200-compute-tray.yaml") in res.output
    assert "Traceback" not in res.output


def test_infra_catalog_env_takes_several_directories(tmp_path, monkeypatch, run_cli):
    mine = _user_parts(tmp_path, "acme-gb200-tray")
    design = _design_using(tmp_path, "acme-gb200-tray")
    monkeypatch.setenv("INFRA_CATALOG", f"{DEFAULT_CATALOG_DIR}{os.pathsep}{mine}")
    assert run_cli("validate", str(design)).exit_code == 0
    monkeypatch.setenv("INFRA_CATALOG", str(DEFAULT_CATALOG_DIR))  # one directory still works
    res = run_cli("validate", str(design))
    assert res.exit_code == 2 and "acme-gb200-tray" in res.output


def test_missing_catalog_directory_is_a_clear_error(tmp_path, run_cli):
    res = run_cli("validate", str(ROOT / "designs" / "gb200_nvl72.yaml"),
                  "--catalog", str(DEFAULT_CATALOG_DIR), "--catalog", str(tmp_path / "nope"))
    assert res.exit_code == 2 and "catalog directory not found" in res.output
    assert str(tmp_path / "nope") in res.output


def test_new_writes_a_starter_that_validates(tmp_path, run_cli):
    out = tmp_path / "my_nvl72.yaml"
    res = run_cli("new", "my_nvl72", "--from", "gb200_nvl72", "-o", str(out))
    assert res.exit_code == 0, res.output
    data = yaml.safe_load(out.read_text())
    assert data["name"] == "my_nvl72"
    shipped = yaml.safe_load((ROOT / "designs" / "gb200_nvl72.yaml").read_text())
    assert {k: v for k, v in data.items() if k != "name"} == {
        k: v for k, v in shipped.items() if k != "name"}
    assert run_cli("validate", str(out)).exit_code == 0
    # a name YAML would misread is quoted
    res = run_cli("new", "yes", "-o", str(tmp_path / "b.yaml"))
    assert res.exit_code == 0
    assert yaml.safe_load((tmp_path / "b.yaml").read_text())["name"] == "yes"


def test_new_refuses_to_overwrite(tmp_path, run_cli):
    out = tmp_path / "x.yaml"
    out.write_text("mine\n")
    res = run_cli("new", "x", "--from", "dgx_b200_su", "-o", str(out))
    assert res.exit_code == 2 and "already exists" in res.output
    assert out.read_text() == "mine\n"


def test_new_unknown_template(tmp_path, run_cli):
    res = run_cli("new", "x", "--from", "gb200_nvl27", "-o", str(tmp_path / "x.yaml"))
    assert res.exit_code == 2 and "gb200_nvl72" in res.output
    assert not (tmp_path / "x.yaml").exists()


def test_catalog_list_and_show_take_catalog_dirs(tmp_path, run_cli):
    """Issue 28 item 6: the README's `infra catalog list|show --catalog DIR` (repeatable)
    was refused ("no such option"); a user's own directory now lists beside the shipped one."""
    mine = _user_parts(tmp_path, "acme-gb200-tray")
    both = ("--catalog", str(DEFAULT_CATALOG_DIR), "--catalog", str(mine))
    res = run_cli("catalog", "list", "compute_tray", "--format", "csv", *both)
    assert res.exit_code == 0, res.output
    assert "acme-gb200-tray" in res.output and "nvidia-gb200-compute-tray" in res.output
    res = run_cli("catalog", "show", "acme-gb200-tray", "--format", "csv", *both)
    assert res.exit_code == 0, res.output
    assert "acme-gb200-tray" in res.output
    # the user's directory alone is cross-checked as any catalog: its tray names a
    # superchip only the shipped catalog has -> exit 2 naming the file, no traceback
    res = run_cli("catalog", "list", "--catalog", str(mine))
    assert res.exit_code == 2 and "acme-gb200-tray.yaml" in res.output
    assert "Traceback" not in res.output
    # a directory that does not exist is exit 2 with its path, as for `infra design`
    res = run_cli("catalog", "show", "acme-gb200-tray", "--catalog", str(tmp_path / "nope"))
    assert res.exit_code == 2 and str(tmp_path / "nope") in res.output
