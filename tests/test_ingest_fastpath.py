"""The dump readers' fast paths read exactly what the plain readers read.

libxml2 (lxml) parses the XML dumps where it reads a document as expat does, expat
everything else; ``nvlink -s`` link blocks, ``topo -m`` and ``lspci -tv`` texts repeated
across GPUs and nodes are read once. Each fast path is checked against the plain one on
the real and fixture dumps, cut and spliced at random (hypothesis): same elements,
texts, tails and attributes, same values, same error message.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import ROOT
from infra.ingest import base, lspci, smi_text
from infra.ingest.base import InventoryError
from infra.ingest.smi_xml import parse_smi_xml

FIX = ROOT / "tests/fixtures/inventory"
XML = sorted(FIX.glob("*/r001n0[12]/*.xml")) + sorted((ROOT / "tests/fixtures/real").rglob("*.xml"))
NVLINK = sorted(FIX.glob("*/r001n0[12]/nvlink-s.txt"))
JUNK = ["<", ">", "&", '"', "'", "<!--", "-->", "<![CDATA[", "]]>", "</gpu>", "<gpu>", "&amp;",
        "&foo;", "&#65;", "&#0;", "\x01", "\t", "\r", "\n", " ", ":", "a:b", 'xmlns:a="u"',
        "<!DOCTYPE x>", "<!DOCTYPE x [<!ELEMENT x ANY>]>", "<?pi?>", '<?xml version="1.0"?>',
        "\u00e9", "\ud7ff", "<!DOCTYPE :x>", "<!DOCTYPE a:b SYSTEM 'x'>", "<?a:b?>", "xmlns:=",
        "<!DOCTYPE x [<!ELEMENT a:b ANY>]>"]


def _tree(el) -> list:
    return [(e.tag, e.text, e.tail, sorted(e.attrib.items())) for e in el.iter()]


def _expat(text: str):
    parser = ET.XMLParser()
    parser.feed(text)
    return parser.close()


def _splice(draw, docs: list[str], junk: list[str]) -> str:
    text = draw(st.sampled_from(docs))
    for _ in range(draw(st.integers(0, 3))):
        a = draw(st.integers(0, len(text)))
        b = min(len(text), a + draw(st.integers(0, 40)))
        op = draw(st.sampled_from(["cut", "insert", "copy"]))
        if op == "cut":
            text = text[:a] + text[b:]
        elif op == "insert":
            text = text[:a] + draw(st.sampled_from(junk)) + text[a:]
        else:
            text = text[:a] + text[b:b + draw(st.integers(0, 30))] + text[a:]
    return text


XML_TEXTS = [p.read_text() for p in XML]


@st.composite
def xml_docs(draw):
    return _splice(draw, XML_TEXTS, JUNK)


def test_the_fixtures_take_the_libxml2_path():
    """Else the test below compares expat with itself."""
    taken = [base._libxml2(p.read_bytes(), p.read_text()) is not None for p in XML]
    assert base._LX is not None and all(taken), [p for p, t in zip(XML, taken) if not t]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(xml_docs())
def test_libxml2_reads_what_expat_reads(text):
    """Where libxml2 is used it returns expat's tree; where expat refuses a document,
    libxml2 refuses it too (expat then names the fault)."""
    if "<!ENTITY" in text:
        return  # refused before any parser sees it
    data = text.encode("utf-8", "surrogatepass")
    try:
        want = _tree(_expat(text))
    except ET.ParseError:
        want = None
    got = base._libxml2(data, text)  # None for non-ASCII text, among others
    if got is not None:
        assert _tree(got) == want
    root = base._expat_root(text)  # a dump checked, not read: its root tag, no tree
    if root is not None:
        assert want is not None and root == want[0][0]


@pytest.mark.parametrize("text", [
    '<!DOCTYPE a [<!ATTLIST u id CDATA "x">]><a><u>1</u></a>',  # expat adds default attributes
    '<!DOCTYPE a SYSTEM "x.dtd"><a><u>&foo;</u></a>',  # libxml2 keeps the reference
    "<a><b\u00e9>1</b\u00e9></a>",  # non-ASCII names: the two follow different XML editions
    "<a>" + "<b>" * 300 + "</b>" * 300 + "</a>",  # over libxml2's depth limit, read by expat
    "<!DOCTYPE :a><a/>",  # expat refuses the name (found by the test above), libxml2 not
])
def test_documents_the_parsers_read_otherwise_go_to_expat(text):
    assert base._libxml2(text.encode(), text) is None


def test_a_dump_checked_not_read_gets_the_same_errors(tmp_path):
    """The NCCL dump infra diff does not need is checked without a tree: the same
    refusals as when it is read."""
    from infra.ingest.nccl import read_nccl_xml
    good = (FIX / "hgx-h100-clean/r001n01/nccl-topo.xml").read_text()
    for text in [good[: len(good) // 2], good.replace("<system", "<nvidia_smi_log", 1)
                 .replace("</system>", "</nvidia_smi_log>"), '<a xmlns="urn:x"/>',
                 '<!DOCTYPE system SYSTEM "x.dtd"><system>&foo;</system>']:
        p = tmp_path / "nccl-topo.xml"
        p.write_text(text)
        with pytest.raises(InventoryError) as full:
            read_nccl_xml(p)
        with pytest.raises(InventoryError) as checked:
            read_nccl_xml(p, tree=False)
        assert str(checked.value) == str(full.value)
    p.write_text(good)
    assert read_nccl_xml(p, tree=False) is None and read_nccl_xml(p).tag == "system"


def test_a_cut_short_dump_keeps_expats_message(tmp_path):
    src = (FIX / "hgx-h100-clean/r001n01/nvidia-smi-q.xml").read_text()
    p = tmp_path / "nvidia-smi-q.xml"
    p.write_text(src[: len(src) // 2])
    with pytest.raises(InventoryError) as err:
        parse_smi_xml(p)
    with pytest.raises(ET.ParseError) as plain:
        _expat(src[: len(src) // 2])
    assert f"malformed or truncated XML: {plain.value}" in str(err.value)


NVLINK_TEXTS = [p.read_text() for p in NVLINK]
NV_JUNK = ["GPU 1: X (UUID: a)\n", "GPU 99999999999: x\n", "\t Link 3: <inactive>\n",
           "\t Link 12345678901: 5 GB/s\n", " Link 1: 1.5 GB/s", "\n", "\r", "GPU ", "Link ",
           " GB/s", "<inactive>", ":", "(UUID: ", ")", "1", "0.", "\t", " "]


@st.composite
def nvlink_texts(draw):
    return _splice(draw, NVLINK_TEXTS, NV_JUNK)


def _read(fn, text):
    try:
        gpus = fn(text, "nvlink-s.txt")
        return repr(gpus) + repr([(g.active, g.inactive, g.fastest) for g in gpus])
    except InventoryError as exc:
        return f"InventoryError: {exc}"


@settings(max_examples=400, deadline=None)
@given(nvlink_texts())
def test_nvlink_blocks_read_once_read_as_line_by_line(text):
    assert _read(smi_text.parse_nvlink_text, text) == _read(smi_text._nvlink_lines, text)


def test_repeated_texts_keep_each_files_name(tmp_path):
    """topo -m and lspci -tv read once per text: each node's matrix still names its file."""
    topo = (FIX / "hgx-h100-clean/r001n01/topo-m.txt").read_text()
    tree = (FIX / "hgx-h100-clean/r001n01/lspci-tv.txt").read_text()
    a, b = smi_text.parse_topo_text(topo, "a/topo-m.txt"), smi_text.parse_topo_text(topo, "b/topo-m.txt")
    assert (a.file, b.file) == ("a/topo-m.txt", "b/topo-m.txt")
    assert a == smi_text.TopoMatrix("a/topo-m.txt", *smi_text._parse_topo_text(topo, "x")[:5])
    assert a.nearest_nic("GPU1") == b.nearest_nic("GPU1") == ("mlx5_3", "PIX")
    la, lb = lspci.parse_lspci_text(tree, "a/l.txt"), lspci.parse_lspci_text(tree, "b/l.txt")
    assert (la.file, lb.file, la.devices) == ("a/l.txt", "b/l.txt", lb.devices)
    with pytest.raises(InventoryError, match="no `GPU0 GPU1"):
        smi_text.parse_topo_text("nothing", "c/topo-m.txt")


def test_only_short_texts_are_kept(monkeypatch):
    """A hostile inventory of 64 MB topo -m files must not be kept 64 times over: texts
    over MEMO_BYTES are read each time, not remembered."""
    topo = (FIX / "hgx-h100-clean/r001n01/topo-m.txt").read_text()
    monkeypatch.setattr(smi_text, "MEMO_BYTES", len(topo) - 1)
    smi_text._TOPO_READ.clear()
    smi_text.parse_topo_text(topo, "a/topo-m.txt")
    assert topo not in smi_text._TOPO_READ
    monkeypatch.setattr(smi_text, "MEMO_BYTES", len(topo))
    smi_text.parse_topo_text(topo, "a/topo-m.txt")
    assert topo in smi_text._TOPO_READ
