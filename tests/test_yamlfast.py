"""The one-pass YAML reader gives what the full path (compose, check, construct) gives.

``read_yaml`` tries :mod:`infra.models.yamlfast` and falls back to the full path for
anything unusual; these tests hold the two to the same values (same types, same key
order), the same line index and the same errors.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from infra.errors import InfraError
from infra.models import yamlfast, yamlio

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted(p for d in ("designs", "catalogs", "sweeps", "tests/fixtures")
                 for p in (ROOT / d).rglob("*.yaml"))


def same(a, b) -> bool:
    """Equal values of the same types all the way down (NaN equals NaN)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a) and all(
            type(x) is type(y) for x, y in zip(a, b))
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return a == b


def full(text: str, path: Path):
    """The full path's value and line index (None when it has no document)."""
    value = yamlio._read_full(text, path, InfraError)
    node, loader = yamlio._compose(text, path, InfraError)
    loader.dispose()
    return value, (None if node is None else yamlfast.index_of_nodes(node))


def index_tuple(index):
    return None if index is None else (index.root_line, index.root)


def test_depth_limits_agree():
    assert yamlfast.MAX_DEPTH == yamlio.MAX_DEPTH


def test_shipped_files_take_the_fast_path_and_agree():
    assert len(SHIPPED) > 90  # designs, the catalog, sweeps, fixtures
    fell_back = []
    for p in SHIPPED:
        text = p.read_text()
        try:
            value, index = yamlfast.build(yamlio._Loader(text))
        except yamlfast.Fallback:
            fell_back.append(p.relative_to(ROOT).as_posix())
            continue
        want, want_index = full(text, p)
        assert same(value, want), p
        assert index_tuple(index) == index_tuple(want_index), p
    assert fell_back == ["catalogs/rates/default.yaml"]  # its sources use &anchors / *aliases


def test_read_yaml_uses_one_pass_and_answers_lines(tmp_path, monkeypatch):
    p = tmp_path / "d.yaml"
    p.write_text("name: t\nracks:\n  r:\n    contents:\n      - {type: x, count: 2}\n"
                 "      - type: y\n        count: 3\nbuild: {r: 1}\n")
    monkeypatch.setattr(yamlio, "_read_full", lambda *a: pytest.fail("took the full path"))
    assert yamlio.read_yaml(p)["racks"]["r"]["contents"][1] == {"type": "y", "count": 3}
    assert yamlio.line_of(p, ("racks", "r", "contents", 1, "count")) == 7
    assert yamlio.line_of(p, ("racks", "r", "contents", 0)) == 5
    assert yamlio.line_of(p, ("racks", "r", "contents", 9)) == 4  # deepest that exists
    assert yamlio.line_of(p, ("build", "r", "x")) == 8
    assert yamlio.line_of(p, ()) == 1


# ----------------------------------------------------------------------------- generated

# Texts that exercise YAML 1.1 resolution (booleans, octal/hex/sexagesimal integers,
# floats, infinities, nulls, timestamps, merges, values) and plain strings.
SCALARS = ["a", "x-y", "nvidia-gb200", "1", "01", "-7", "+3", "0x1F", "0o17", "017", "0b101",
           "1_000", "190:20:30", "1.5", "1e3", "1.0e+3", "-.inf", ".NaN", ".inf", "6.8523015e+5",
           "685.230_15e+03", "190:20:30.15", "yes", "No", "ON", "off", "true", "False", "y", "n",
           "~", "null", "Null", "", "2020-01-02", "2001-12-14t21:59:43.10-05:00",
           "2001-12-14 21:59:43.10 -5", "2001-12-15T02:59:43.1Z", "2020-13-45", "<<", "=",
           "1.2.3", "12:30", "0.", "._", "-", "a b", "é", "#x", "a: b", "[x]", "'q'", "@x"]
TAGS = ["", "", "", "", "!!str ", "!!int ", "!!float ", "!!bool ", "!!null ", "!!timestamp ",
        "!!binary ", "! ", "!local ", "!!python/name:os.system "]


def scalar_text(draw) -> str:
    text = draw(st.sampled_from(SCALARS) | st.sampled_from(SCALARS) | st.text(
        st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=6))
    style = draw(st.sampled_from(["plain", "plain", "single", "double"]))
    if style == "single":
        text = "'" + text.replace("'", "''") + "'"
    elif style == "double":
        text = '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return draw(st.sampled_from(TAGS)) + text


@st.composite
def node_text(draw, depth=0) -> tuple[str, bool]:
    """(YAML text of a node, whether it is a block collection)."""
    kind = draw(st.sampled_from(["scalar", "scalar", "map", "seq", "flowmap", "flowseq",
                                 "alias"] if depth < 4 else ["scalar"]))
    if kind == "scalar":
        return scalar_text(draw), False
    if kind == "alias":
        return draw(st.sampled_from(["*a", "&a 1", "&a {k: v}", "!!map {k: v}", "!!seq x",
                                     "!!set {k: }", "[*a, *a]"])), False
    n = draw(st.integers(0, 4))
    if kind in ("flowmap", "flowseq"):
        items = [draw(st.sampled_from(SCALARS[:30])) for _ in range(n)]
        if kind == "flowseq":
            return "[" + ", ".join(items) + "]", False
        keys = [draw(st.sampled_from(SCALARS[:12])) for _ in range(n)]
        return "{" + ", ".join(f"{k}: {v}" for k, v in zip(keys, items)) + "}", False
    lines = []
    for _ in range(n):
        child, block = draw(node_text(depth + 1))
        if kind == "map":
            key = draw(st.sampled_from(SCALARS[:16] + ["<<", "? [k]", "k"])
                       | st.from_regex(r"[a-z][a-z0-9_-]{0,6}", fullmatch=True))
            lines.append(f"{key}:" + ("\n" + _indent(child) if block else " " + child))
        else:
            lines.append("-" + ("\n" + _indent(child) if block else " " + child))
    if not lines:
        return ("{}" if kind == "map" else "[]"), False
    return "\n".join(lines), True


def _indent(text: str) -> str:
    return "\n".join("  " + ln for ln in text.split("\n"))


@st.composite
def documents(draw) -> str:
    body, _ = draw(node_text())
    return draw(st.sampled_from(["", "", "---\n", "%YAML 1.1\n---\n"])) + body + draw(
        st.sampled_from(["\n", "", "\n---\nb: 1\n", "\n...\n"]))


def outcome(fn, text, path):
    try:
        return "ok", fn(text, path)
    except InfraError as exc:
        return "error", (str(exc), exc.line)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_generated_documents_agree(text):
    path = Path("gen.yaml")

    def fast(t, p):
        try:
            value, index = yamlfast.build(yamlio._Loader(t))
        except yamlfast.Fallback:
            return yamlio._read_full(t, p, InfraError), "full"
        return value, index

    got = outcome(fast, text, path)
    want = outcome(lambda t, p: full(t, p), text, path)
    assert got[0] == want[0], (text, got, want)
    if got[0] == "error":
        assert got[1] == want[1]
        return
    value, index = got[1]
    assert same(value, want[1][0]), text
    if index != "full":
        assert index_tuple(index) == index_tuple(want[1][1]), text


PLAIN = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.dates() | st.datetimes()
    | st.text(max_size=8) | st.sampled_from(SCALARS),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(
        st.text(max_size=6) | st.integers() | st.sampled_from(SCALARS), kids, max_size=4),
    max_leaves=20)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PLAIN, st.sampled_from([None, False, True]), st.booleans())
def test_dumped_data_reads_the_same(data, flow, explicit_start):
    text = yaml.safe_dump(data, default_flow_style=flow, explicit_start=explicit_start,
                          allow_unicode=True, sort_keys=False)
    try:
        value, index = yamlfast.build(yamlio._Loader(text))
    except yamlfast.Fallback:  # a repeated key text (1 and '1'), a complex key...
        return
    want, want_index = full(text, Path("dumped.yaml"))
    assert same(value, want), text
    assert index_tuple(index) == index_tuple(want_index), text


@pytest.mark.parametrize("text", [
    "a: 1\na: 2\n", "a: &x 1\nb: *x\n", "<<: {a: 1}\nb: 2\n", "a: !!binary aGk=\n",
    "a: 2020-13-45\n", "? [k]\n: v\n", "a: 1\n---\nb: 2\n", "", "# only a comment\n",
    "a: !!map x\n", "1: a\n'1': b\n", "a: !!timestamp x\n", "a: [" * 70 + "]" * 70 + "\n", "a: \x07\n",
])
def test_unusual_documents_fall_back_with_the_same_result(text, tmp_path):
    p = tmp_path / "u.yaml"
    p.write_bytes(text.encode())
    with pytest.raises(yamlfast.Fallback):
        yamlfast.build(yamlio._Loader(text))
    got = outcome(lambda t, q: yamlio.read_yaml(q), text, p)
    want = outcome(lambda t, q: yamlio._read_full(t, q, InfraError), text, p)
    assert got[0] == want[0] and same(got[1], want[1]) if got[0] == "ok" else got == want



def _line_by_nodes(root, yaml_path) -> int:
    """line_of as it was: walk the composed node tree key by key."""
    from yaml.nodes import MappingNode, SequenceNode

    node, line = root, root.start_mark.line + 1
    for key in yaml_path:
        if isinstance(node, MappingNode):
            found = next(((k, v) for k, v in node.value if getattr(k, "value", None) == str(key)),
                         None)
            if found is None:
                return line
            line, node = found[0].start_mark.line + 1, found[1]
        elif isinstance(node, SequenceNode) and isinstance(key, int):
            if not 0 <= key < len(node.value):
                return line
            node = node.value[key]
            line = node.start_mark.line + 1
        else:
            return line
    return line


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, prefix + (k,))
        yield prefix + ("no-such-key",)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, prefix + (i,))
        yield prefix + (len(value),)


@pytest.mark.parametrize("name", ["designs/aws_nvl36x2.yaml", "designs/dgx_h100_superpod.yaml",
                                  "catalogs/trays/nvidia-gb200-compute-tray.yaml"])
def test_line_index_answers_as_the_node_walk_did(name):
    p = ROOT / name
    text = p.read_text()
    value, index = yamlfast.build(yamlio._Loader(text))
    node, loader = yamlio._compose(text, p, InfraError)
    loader.dispose()
    paths = list(_paths(value))
    assert len(paths) > 20
    for path in paths:
        assert index.line(path) == _line_by_nodes(node, path), (name, path)
