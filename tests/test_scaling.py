"""Cost follows definitions, not paths or instances: deep pod DAGs, many layouts, lazy lines.

These are not timed tests (timings live in ``benchmarks/``); each case below would take
hours, or not finish, with an algorithm that enumerates paths or instances, and checks
figures computed by hand.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from infra.errors import DesignError

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import bench_hetero  # noqa: E402


def test_deep_pod_dag_counts_by_hand(tmp_path, catalog):
    """Pod DAG 30 levels deep, each level's two pods both holding the next level's two::

        a0 -> {a1, b1};  a1 -> {a2, b2};  b1 -> {a2, b2};  ...  a29, b29 -> 1 x nvl72

    a0 is built once; a_L and b_L are each reached 2**(L-1) times (L >= 1), so a29 and b29
    are 2**28 each and the nvl72 rack is counted 2 * 2**28 = 2**29 times: 536,870,912 racks,
    one NVLink domain each. Enumerating paths would visit 2**30 of them.
    """
    from infra.models.resolve import load_design

    p = tmp_path / "deep.yaml"
    p.write_text(bench_hetero.deep(30))
    rd = load_design(p, catalog)
    assert rd.rack_counts["nvl72"] == 2**29
    assert rd.pod_counts["a0"] == 1
    assert rd.pod_counts["a1"] == rd.pod_counts["b1"] == 1
    assert rd.pod_counts["a29"] == rd.pod_counts["b29"] == 2**28
    assert sum(s.count for s in rd.domain_shapes) == 2**29
    assert {s.layouts for s in rd.domain_shapes} == {(("nvl72", 1),)}


def test_shared_pod_counted_once_per_reference(tmp_path, catalog):
    """A pod held by two others is counted through both (2*3 + 1*3 = 9), and its cooling
    unit appears once with that count, not once per path."""
    from infra.models.resolve import load_design

    p = tmp_path / "dag.yaml"
    p.write_text(
        "name: shared pod\nracks:\n  r:\n    type: aws-nvl36-rack\n    contents:\n"
        "      - {type: aws-gb200-compute-tray, count: 9}\n"
        "      - {type: nvidia-nvlink5-switch-tray, count: 9, cooling: liquid}\n"
        "pods:\n  leafpod:\n    racks: {r: 1}\n    cooling:\n      - {type: aws-irhx}\n"
        "  x:\n    pods: {leafpod: 2}\n  y:\n    pods: {leafpod: 1}\n"
        "  top:\n    pods: {x: 1, y: 1}\nbuild:\n  top: 3\n")
    rd = load_design(p, catalog)
    assert rd.pod_counts["leafpod"] == 9
    assert rd.rack_counts["r"] == 9
    assert [(u.pod, u.pod_count) for u in rd.pod_cooling] == [("leafpod", 9)]


def test_hall_layouts_keep_file_order(tmp_path, catalog):
    """Reports list layouts in the file's order; the linear resolver must keep it."""
    from infra.models.resolve import load_design

    p = tmp_path / "hall.yaml"
    p.write_text(bench_hetero.hall(12))
    rd = load_design(p, catalog)
    assert list(rd.rack_counts) == [f"l{i}" for i in range(12)]
    assert set(rd.rack_counts.values()) == {2}
    assert len(rd.domain_shapes) == 12


def test_unknown_slug_still_names_its_line(tmp_path, catalog):
    """Lines are computed only when an error is raised, but they are still computed."""
    from infra.models.resolve import load_design

    p = tmp_path / "bad.yaml"
    p.write_text("name: bad\nracks:\n  r:\n    type: aws-nvl36-rack\n    contents:\n"
                 "      - {type: aws-gb200-compute-tray, count: 9}\n"
                 "      - {type: nvidia-nvlink5-switch-trey, count: 9}\nbuild:\n  r: 1\n")
    with pytest.raises(DesignError) as exc:
        load_design(p, catalog)
    assert exc.value.line == 7
    assert "bad.yaml:7: racks.r.contents[1].type" in str(exc.value)
    assert "nvidia-nvlink5-switch-tray" in str(exc.value)  # the did-you-mean hint


def test_loop_named_with_its_path(tmp_path, catalog):
    from infra.models.resolve import load_design

    p = tmp_path / "loop.yaml"
    p.write_text("name: loop\nracks:\n  r:\n    type: aws-nvl36-rack\n    contents: []\n"
                 "pods:\n  a:\n    pods: {b: 1}\n  b:\n    pods: {c: 1}\n  c:\n    pods: {a: 1}\n"
                 "build:\n  a: 1\n")
    with pytest.raises(DesignError, match=r"reference loop: a -> b -> c -> a") as exc:
        load_design(p, catalog)
    assert exc.value.line == 12
