"""Node identities: build order, U, domains, fabric groups and leaves, host names."""

from __future__ import annotations

from collections import Counter

import pytest

from conftest import DESIGNS
from infra.analysis.layout.identity import node_identities, rack_instances
from infra.errors import DesignError, InfraError
from infra.models.resolve import load_design


@pytest.fixture(scope="module")
def nvl576():
    return load_design(DESIGNS / "gb200_nvl72_576.yaml")


def test_nvl72_su_trays_domains_and_u(nvl576):
    ids = node_identities(nvl576)
    # 8 racks x 18 trays; each NVL72 rack is one domain of 18
    assert len(ids) == 144
    assert Counter(n.domain for n in ids) == {f"su0/r{k}": 18 for k in range(8)}
    assert [n.domain_index for n in ids[::18]] == list(range(8))
    # 48U rack, stacked from the top: 2 x 1U SN2201 (U48, U47), 4 x 1U shelves (U46-43),
    # 10 trays U42..U33, 9 switch trays U32..U24, 8 trays U23..U16
    assert [n.u for n in ids[:18]] == list(range(42, 32, -1)) + list(range(23, 15, -1))
    assert ids[17].name == "r001n18" and ids[18].name == "r002n01"
    assert ids[0].sub_domain is None and ids[17].domain_node == 17
    # rail-optimized over 4 rails, 144 trays per SU, 32 down ports per leaf: tray 40 is on
    # leaf 40 // 32 = 1 of each rail
    # the in-band Ethernet fabric (clos, the design's second: names prefixed 'inband.'):
    # 4 ports per tray fill 144-port leaves in order, tray 40's ports 160-163 on leaf 1
    assert ids[40].leaves == (("compute", tuple(f"su0.rail{r}.leaf1" for r in range(4))),
                              ("inband", ("inband.su0.leaf1",) * 4))
    assert ids[40].group("compute") == "su0"


def test_nvl36x2_domain_spans_two_racks():
    ids = node_identities(load_design(DESIGNS / "aws_nvl36x2_cluster.yaml"))
    assert len(ids) == 8 * 18
    doms = Counter(n.domain for n in ids)
    assert len(doms) == 8 and set(doms.values()) == {18}
    n = ids[9]  # first tray of the second rack of the first UltraServer
    assert (n.domain, n.sub_domain, n.domain_node) == (
        "cluster0/ultraserver0/d0", "cluster0/ultraserver0/r1", 9)
    # in-rack ToRs: 8 Nitro ports of tray 0 dealt over 6 ToRs -> tor0..tor5, tor0, tor1
    assert ids[0].leaves[0][1] == tuple(f"cluster0/ultraserver0/r0.tor{j}"
                                        for j in (0, 1, 2, 3, 4, 5, 0, 1))


def test_superpod_groups_and_tray_domains():
    rd = load_design(DESIGNS / "dgx_h100_superpod.yaml")
    ids = node_identities(rd)
    assert len(ids) == 127
    assert len(rack_instances(rd)) == 32
    assert Counter(n.group("compute") for n in ids) == {
        "superpod0/su_first0": 31, "superpod0/su0": 32, "superpod0/su1": 32, "superpod0/su2": 32}
    # each DGX is its own 8-GPU domain; 42U rack, 8U servers from the top: U35, 27, 19, 11
    assert len({n.domain for n in ids}) == 127
    assert [n.u for n in ids[:4]] == [35, 27, 19, 11]
    assert ids[31].path == "superpod0/su0/r0/t0" and ids[31].name == "r009n01"


def test_racks_built_directly_are_numbered_at_the_top():
    ids = node_identities(load_design(DESIGNS / "llama3_h100_16k.yaml"))
    assert len(ids) == 2048 and ids[-1].path == "r511/t3" and ids[-1].name == "r512n04"
    assert ids[-1].groups == ()


def test_custom_pattern_and_reruns_are_stable(nvl576):
    a = node_identities(nvl576, "gb200-r{rack:02d}-t{slot:02d}")
    assert a[0].name == "gb200-r01-t01" and a == node_identities(nvl576, "gb200-r{rack:02d}-t{slot:02d}")


@pytest.mark.parametrize("pattern,fragments", [
    ("node{rak}", ["unknown field", "rak", "fields: index, rack"]),
    ("node", ["no field"]),
    ("n{rack}", ["gives 'n1' to both su0/r0/t0 and su0/r0/t1", "include {index}"]),
    ("Node_{index}", ["'Node_1'", "not a valid host name", "lower-case"]),
    ("n{index", ["host-name pattern", "{rack:03d}"]),
])
def test_bad_patterns_are_clear_errors(nvl576, pattern, fragments):
    with pytest.raises(DesignError) as exc:
        node_identities(nvl576, pattern)
    assert isinstance(exc.value, InfraError)
    for f in fragments:
        assert f in str(exc.value)
