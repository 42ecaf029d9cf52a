"""Diagram rendering: renderer discovery without an activated venv, batches, cache."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from infra.reports.diagrams import render

ROOT = Path(__file__).resolve().parents[1]
BESIDE = [Path(sys.executable).parent / n for n in render.RENDERERS]
HAS_LOCAL = any(p.exists() for p in BESIDE)
needs_local = pytest.mark.skipif(not HAS_LOCAL, reason="no renderer installed beside python")


@needs_local
def test_renderer_found_beside_the_interpreter(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing on PATH: not an activated venv
    found = render.find_renderer()
    assert found is not None and Path(found).parent == Path(sys.executable).parent


@needs_local
def test_infra_by_absolute_path_renders_without_venv_on_path(tmp_path):
    """As cron or pipx run it: ``/path/to/venv/bin/infra`` with a PATH lacking the venv."""
    exe = Path(sys.executable).parent / "infra"
    if not exe.exists():
        pytest.skip("the infra console script is not installed beside python")
    env = {**os.environ, "PATH": str(tmp_path / "empty"), "INFRA_DIAGRAM_CACHE": "off"}
    res = subprocess.run([str(exe), "design", str(ROOT / "designs" / "aws_nvl36x2.yaml"),
                          "--report", "svg", "-o", str(tmp_path), "-q"],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "no Graphviz renderer" not in res.stderr
    svgs = sorted(p.name for p in (tmp_path / "aws_nvl36x2").glob("*.svg"))
    assert "rack_elevations.svg" in svgs and len(svgs) == 4
    assert not list((tmp_path / "aws_nvl36x2").glob("*.dot"))


needs_any = pytest.mark.skipif(render.find_renderer() is None, reason="no Graphviz renderer")


@needs_any
def test_batch_isolates_a_broken_diagram(tmp_path, monkeypatch):
    monkeypatch.setenv(render.CACHE_ENV, "off")
    jobs = [("graph { a -- b }", tmp_path / "ok1", ("svg",)),
            ("graph { a -- ", tmp_path / "bad", ("svg",)),
            ("digraph { x -> y }", tmp_path / "ok2", ("svg", "png"))]
    written, warns = render.render_many(jobs, workers=2)
    assert [p.name for p in written[0]] == ["ok1.svg"]
    assert [p.name for p in written[1]] == ["bad.dot"]  # falls back to the DOT file
    assert [p.name for p in written[2]] == ["ok2.svg", "ok2.png"]
    assert (tmp_path / "ok2.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<svg" in (tmp_path / "ok1.svg").read_text()
    assert len(warns) == 1 and warns[0].startswith("bad.svg:")


@needs_any
def test_cached_image_is_not_rendered_again(tmp_path, monkeypatch):
    monkeypatch.setenv(render.CACHE_ENV, str(tmp_path / "cache"))
    src = "graph { cached -- once }"
    (first,), _ = render.render_many([(src, tmp_path / "a", ("svg",))])
    assert len(list((tmp_path / "cache").iterdir())) == 1

    def no_render(*a, **k):
        raise AssertionError("rendered although cached")

    monkeypatch.setattr(render, "_render_batch", no_render)
    (second,), warns = render.render_many([(src, tmp_path / "b", ("svg",))])
    assert warns == [] and (tmp_path / "b.svg").read_bytes() == (tmp_path / "a.svg").read_bytes()
    monkeypatch.setenv(render.CACHE_ENV, "off")
    with pytest.raises(AssertionError, match="rendered although cached"):
        render.render_many([(src, tmp_path / "c", ("svg",))])


def test_no_diagrams_flag_skips_every_picture(tmp_path, run_cli):
    res = run_cli("design", str(ROOT / "designs" / "aws_nvl36x2.yaml"), "--report", "xlsx",
                  "--report", "svg", "--no-diagrams", "-o", str(tmp_path), "-q")
    assert res.exit_code == 0, res.output
    assert [p.name for p in tmp_path.iterdir()] == ["aws_nvl36x2.xlsx"]
    import zipfile

    names = zipfile.ZipFile(tmp_path / "aws_nvl36x2.xlsx").namelist()
    assert not [n for n in names if n.startswith("xl/media/")]


@needs_any
def test_workbook_embeds_each_diagram_once(tmp_path, run_cli):
    import zipfile

    res = run_cli("design", str(ROOT / "designs" / "aws_nvl36x2.yaml"), "--report", "xlsx",
                  "-o", str(tmp_path), "-q")
    assert res.exit_code == 0, res.output
    media = [n for n in zipfile.ZipFile(tmp_path / "aws_nvl36x2.xlsx").namelist()
             if n.startswith("xl/media/")]
    assert len(media) == 4  # elevation, scale-up domain, tray, failure domain


def test_shutil_which_alone_misses_it(monkeypatch, tmp_path):
    """The situation the fix is for: PATH has no renderer, so a PATH-only search fails."""
    monkeypatch.setenv("PATH", str(tmp_path))
    assert all(shutil.which(n) is None for n in render.RENDERERS)


@needs_any
def test_workbook_pictures_at_1x_capped_to_the_width_shown(tmp_path, monkeypatch):
    """A workbook shows a picture at its pixel size, at most 1,400 px wide: its PNGs are
    drawn at 96 dpi (1x) and scaled down to that width; PNG files stay at 192 dpi (2x)."""
    import struct

    monkeypatch.setenv(render.CACHE_ENV, str(tmp_path / "cache"))
    # 30 boxes side by side, each 1 inch wide with 0.25 inch between: about 37 inches,
    # 3,600 px at 96 dpi; a single 1-inch box is 96 px plus padding
    wide = "graph { node [shape=box, width=1, fixedsize=true]; " + " ".join(
        f"n{i}" for i in range(30)) + " }"
    small = "graph { node [shape=box, width=1, height=0.5, fixedsize=true]; a }"
    jobs = [(wide, tmp_path / "wide", ("png",), render.EMBED_PNG),
            (small, tmp_path / "small", ("png",), render.EMBED_PNG),
            (small, tmp_path / "small2x", ("png",))]
    written, warns = render.render_many(jobs)
    assert warns == []

    def size(p):
        return struct.unpack(">II", p.read_bytes()[16:24])

    assert size(tmp_path / "wide.png")[0] <= 1400
    w1, h1 = size(tmp_path / "small.png")
    w2, h2 = size(tmp_path / "small2x.png")
    assert 96 <= w1 < 140 and abs(w2 - 2 * w1) <= 2 and abs(h2 - 2 * h1) <= 2
    # the two resolutions are cached apart: one file per (DOT, resolution)
    assert len(list((tmp_path / "cache").iterdir())) == 3
