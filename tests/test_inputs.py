"""The loader refuses unsafe or ambiguous YAML with the file and line, exit 2 (issue 18)."""

from __future__ import annotations

import os
import textwrap
import time

import pytest

from infra.errors import InfraError, describe_value
from infra.models import yamlio
from infra.models.yamlio import line_of, read_yaml

DESIGN = textwrap.dedent("""\
    name: t
    racks:
      r:
        type: generic-42u-air-rack
        contents:
          - {type: nvidia-dgx-h100, count: 4}
    build: {r: 1}
    """)


def write(tmp_path, text: str, name: str = "d.yaml"):
    p = tmp_path / name
    p.write_text(text)
    return p


def refused(run_cli, path, *fragments: str) -> str:
    res = run_cli("validate", str(path))
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    for f in fragments:
        assert f in res.output, (f, res.output)
    assert len(res.output) < 1000
    return res.output


def test_duplicate_key_names_both_lines(tmp_path, run_cli):
    # Before: PyYAML kept the last 'build' and the design had 9,000 racks, exit 0.
    p = write(tmp_path, DESIGN + "build: {r: 9000}\n")
    refused(run_cli, p, "d.yaml:8:", "build: duplicate key (first defined on line 7)")


def test_duplicate_key_in_flow_mapping(tmp_path, run_cli):
    p = write(tmp_path, DESIGN.replace("count: 4}", "count: 4, count: 1}"))
    refused(run_cli, p, "d.yaml:6:", "racks.r.contents[0].count: duplicate key")


def test_alias_bomb_refused_fast_without_expanding(tmp_path, run_cli):
    # 9 levels of 9 aliases: 9^9 = 387 million nodes if expanded; 42 nodes in the file.
    lines = ["x0: &x0 [a, a, a, a, a, a, a, a, a]"]
    lines += [f"x{i}: &x{i} [" + ", ".join([f"*x{i - 1}"] * 9) + "]" for i in range(1, 9)]
    p = write(tmp_path, "\n".join(lines + ["name: *x8", "racks: {}", "build: {r: 1}"]) + "\n")
    t0 = time.perf_counter()
    out = refused(run_cli, p, "aliases expand this document beyond 100,000 extra nodes")
    assert time.perf_counter() - t0 < 5, "counting must not expand"
    assert "d.yaml:6: x5" in out  # 9^6 = 531,441 > budget: the first key over it


def test_small_aliases_still_work(tmp_path):
    p = write(tmp_path, "a: &a {x: 1}\nb: *a\nc: {<<: *a, y: 2}\n")
    assert read_yaml(p) == {"a": {"x": 1}, "b": {"x": 1}, "c": {"x": 1, "y": 2}}


def test_recursive_alias(tmp_path, run_cli):
    refused(run_cli, write(tmp_path, "name: &a [*a]\n"), "d.yaml:1:", "recursive alias")


@pytest.mark.parametrize("value, tag", [
    ("!!bool maybe", "!!bool"), ("!!float abc", "!!float"), ("!!int abc", "!!int"),
    ("!!int 0x", "!!int"), ("2020-13-45", "!!timestamp"), ('!!float ""', "!!float"),
])
def test_bad_scalar_for_its_tag(tmp_path, run_cli, value, tag):
    # Before: KeyError / ValueError / IndexError tracebacks from PyYAML's constructor.
    p = write(tmp_path, f"name: x\ndescription: {value}\n")
    refused(run_cli, p, "d.yaml:2:", f"is not a valid {tag}")


@pytest.mark.parametrize("tag", ["!!binary aGk=", "!!set {a, b}", "!!python/tuple [1]",
                                 "!mine x", "!!omap [{a: 1}]"])
def test_tags_outside_the_safe_schema(tmp_path, run_cli, tag):
    p = write(tmp_path, f"name: x\ndescription: {tag}\n")
    refused(run_cli, p, "d.yaml:2:", "is not allowed")


def test_not_utf8_names_line_and_column(tmp_path, run_cli):
    p = tmp_path / "d.yaml"
    p.write_bytes(b"name: t\ndescription: caf\xe9\n")
    refused(run_cli, p, "d.yaml:2:", "byte 0xe9 at column 17 is not UTF-8")


def test_control_character_line(tmp_path, run_cli):
    refused(run_cli, write(tmp_path, "name: t\ndescription: a\x07b\n"), "d.yaml:2:",
            "#x0007")


def test_truncated_file_points_at_its_last_line(tmp_path, run_cli):
    refused(run_cli, write(tmp_path, "name: t\nracks: [1,\n"), "d.yaml:2:", "malformed YAML")


def test_deep_nesting(tmp_path, run_cli):
    p = write(tmp_path, "name: " + "[" * 200 + "]" * 200 + "\n")
    refused(run_cli, p, "d.yaml:1:", "nested deeper than 64 levels")


def test_fifo_is_refused_without_blocking(tmp_path, run_cli):
    fifo = tmp_path / "d.yaml"
    os.mkfifo(fifo)
    refused(run_cli, fifo, "not a regular file")


def test_device_and_directory(tmp_path, run_cli):
    refused(run_cli, "/dev/zero", "/dev/zero: not a regular file")
    refused(run_cli, tmp_path, "is a directory")


def test_symlink_loop(tmp_path, run_cli):
    (tmp_path / "a.yaml").symlink_to(tmp_path / "b.yaml")
    (tmp_path / "b.yaml").symlink_to(tmp_path / "a.yaml")
    refused(run_cli, tmp_path / "a.yaml", "a.yaml: cannot read file")


def test_size_limit(tmp_path, monkeypatch, run_cli):
    monkeypatch.setattr(yamlio, "MAX_FILE_BYTES", 1000)
    p = write(tmp_path, DESIGN + "#" * 2000 + "\n")
    refused(run_cli, p, "over the 1,000-byte limit")


def test_long_value_is_described_not_echoed(tmp_path, run_cli):
    p = write(tmp_path, DESIGN.replace("name: t", "name: [" + "x, " * 50_000 + "x]"))
    out = refused(run_cli, p, "d.yaml:1:", "got a list of 50,001 items")
    assert out.count("x") < 100


def test_describe_value_bounds_the_text():
    assert len(describe_value("y" * 1_000_000)) < 100
    assert describe_value(2**200) == "an integer of 61 digits"


def test_line_of_answers_from_the_one_parse(tmp_path, monkeypatch):
    p = write(tmp_path, DESIGN)
    read_yaml(p)
    calls = []
    real = yamlio._compose
    monkeypatch.setattr(yamlio, "_compose", lambda *a: calls.append(1) or real(*a))
    assert line_of(p, ("racks", "r", "contents", 0, "count")) == 6
    assert line_of(p, ("build", "r")) == 7
    assert line_of(p, ("racks", "nope")) == 2  # deepest existing node
    assert calls == []
    p.write_text("\n" + DESIGN)  # changed on disk: parsed again, once
    os.utime(p, ns=(1, 1))
    assert line_of(p, ("build", "r")) == 8
    assert line_of(p, ("name",)) == 2
    assert calls == [1]


def test_errors_are_infra_errors(tmp_path):
    with pytest.raises(InfraError):
        read_yaml(write(tmp_path, "a: 1\n---\nb: 2\n"))


def test_site_envelopes_up_to_gigawatts(tmp_path, run_cli):
    """Issue 28 items 5/6: envelopes were capped at 100,000 kW (100 MW), so a 150 MW
    site's published envelope was refused. The bound is now 10,000,000 kW = 10 GW (the
    largest campuses being built are 1-5 GW), the schema says so and why, and a figure
    past it is exit 2 with the reason."""
    import json

    from conftest import ROOT
    from infra.models.schema import SCHEMA_DIR

    src = (ROOT / "designs" / "gb200_nvl72_576.yaml").read_text()
    assert "    max_kw: 1200\n" in src
    site = write(tmp_path, src.replace("    max_kw: 1200\n", "    max_kw: 150000\n"), "site.yaml")
    res = run_cli("validate", str(site))
    assert res.exit_code == 0, res.output  # 150,000 kW = 150 MW
    over = write(tmp_path, src.replace("    max_kw: 1200\n", "    max_kw: 20000000\n"), "over.yaml")
    out = refused(run_cli, over, "max_kw", "10000000", "10 GW")
    assert "Traceback" not in out
    schema = json.loads((SCHEMA_DIR / "design.schema.json").read_text(encoding="utf-8"))
    prop = schema["$defs"]["DesignEnvelope"]["properties"]["max_kw"]
    assert prop["maximum"] == 10_000_000
    assert "At most 10,000,000 (10 GW" in prop["description"]
