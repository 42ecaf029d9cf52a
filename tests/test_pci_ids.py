"""PCI device ids of the AMD and Intel parts (issue 29 item 6): each shipped MI3xx and
Gaudi 3 entry carries its vendor's ids, so a dump naming them is identified (the diff's
GPU-type check runs instead of the `gpu-type-unchecked` warning; `infra ingest` finds the
tray) and another part's id is a `gpu-type` error."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from infra.ingest.diff_node import _wrong_type, type_unchecked
from infra.ingest.slots import DesignNode
from infra.ingest.to_design import _find_tray
from infra.models.catalog import load_catalog

# AMD's chip_ids table (ROCm/rocm-systems projects/rocprofiler-compute/src/utils/
# mi_gpu_spec.yaml @78265b5), decimal: physical, virtual (an SR-IOV virtual function).
# Hex by hand: 29857 = 7 x 4096 + 4 x 256 + 10 x 16 + 1 = 0x74a1; 29877 = 29857 + 20 =
# 0x74a1 + 0x14 = 0x74b5; 29861 = 0x74a1 + 4 = 0x74a5, 29881 = 0x74a5 + 0x14 = 0x74b9;
# 30112 = 7 x 4096 + 5 x 256 + 10 x 16 = 0x75a0, 30128 = 0x75a0 + 0x10 = 0x75b0;
# 30115 = 0x75a3, 30131 = 0x75a3 + 0x10 = 0x75b3.
AMD = {"amd-mi300x": (29857, 29877), "amd-mi325x": (29861, 29881),
       "amd-mi350x": (30112, 30128), "amd-mi355x": (30115, 30131)}
HEX = {29857: "0x74a1", 29877: "0x74b5", 29861: "0x74a5", 29881: "0x74b9",
       30112: "0x75a0", 30128: "0x75b0", 30115: "0x75a3", 30131: "0x75b3"}
# Intel's habanalabs driver: #define PCI_IDS_GAUDI3 0x1060 (the OAM; 0x1063 is the HL-338
# PCIe card), HabanaAI/drivers.accel.habanalabs.kernel habanalabs_drv.c @c8bb11f
GAUDI3 = "0x1060"
TRAYS = {"0x74a1": "amd-mi300x-platform-server", "0x74b5": "amd-mi300x-platform-server",
         "0x74a5": "amd-mi325x-platform-server", "0x75a3": "amd-mi355x-platform-server",
         GAUDI3: "intel-gaudi3-8x-oam-server"}


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(())


def test_hex_of_amds_decimal_ids():
    assert {d: f"0x{d:04x}" for d in HEX} == HEX  # the hand conversion above


@pytest.mark.parametrize("slug", sorted(AMD) + ["intel-gaudi3-hl325l"])
def test_each_part_carries_its_vendors_ids_with_a_source(catalog, slug):
    gpu = catalog.get(slug)
    want = [HEX[d] for d in AMD[slug]] if slug in AMD else [GAUDI3]
    assert gpu.pci_device_ids == want
    src = {s.id: s for s in gpu.sources}[gpu.figure_sources["pci_device_ids"]]
    assert src.tag == "V" and "@" in src.title and src.url.startswith("https://github.com/")


def test_ids_name_one_part_each(catalog):
    seen: dict[str, str] = {}
    for g in catalog.of_kind("gpu"):
        for d in getattr(g, "pci_device_ids", []):
            assert d not in seen, (d, seen.get(d), g.slug)
            seen[d] = g.slug


def _node(dev: str, product: str | None = None):
    return SimpleNamespace(gpus=[SimpleNamespace(pci_device_id=dev, product=product)] * 8)


def _dn(catalog, tray: str) -> DesignNode:
    t = catalog.get(tray)
    return DesignNode("r001n01", "r0", 1, 1, 1, "r0/t0", t, "r0/t0", "tray", "cluster", 8)


@pytest.mark.parametrize("dev", sorted(TRAYS))
def test_a_dump_with_the_id_is_identified(catalog, dev):
    dn = _dn(catalog, TRAYS[dev])
    assert type_unchecked(dn, _node(dev), catalog) == []  # the check runs ...
    assert _wrong_type(dn, _node(dev), catalog) is None  # ... and passes
    tray, note = _find_tray(catalog, dev, 8, None)  # infra ingest drafts its tray
    assert tray is not None and tray.slug == TRAYS[dev], note


def test_another_parts_id_is_a_type_error(catalog):
    # the real MI308X node's 0x74a2 (29858 in AMD's table) on an MI300X tray; a Gaudi 3
    # id on an MI325X tray
    for dev, tray in (("0x74a2", TRAYS["0x74a1"]), (GAUDI3, TRAYS["0x74a5"])):
        got = _wrong_type(_dn(catalog, tray), _node(dev, "x"), catalog)
        assert got is not None and f"(PCI id {dev})" in got[1]


def test_mi350x_is_named_though_no_tray_holds_it(catalog):
    tray, note = _find_tray(catalog, "0x75a0", 8, None)
    assert tray is None and "no catalog tray with 8 x ['amd-mi350x']" in note


# NVIDIA open-gpu-kernel-modules README @315fd96 (supported-GPU table):
# "NVIDIA A100-SXM4-40GB | 20B0", "NVIDIA A100-SXM4-80GB | 20B2 ...", "NVIDIA GH200 480GB | 2342"


def test_gh200_gpu_carries_nvidias_id(catalog):
    gpu = catalog.get("nvidia-h100-gh200")
    assert gpu.pci_device_ids == ["0x2342"]
    assert gpu.figure_sources["pci_device_ids"] == "OGKM"


def test_a100_40gb_is_not_taken_for_the_80gb_part(catalog):
    """No 40 GB entry is shipped: an A100-SXM4-40GB node (0x20b0) in a DGX A100 (80 GB,
    0x20b2) design is another GPU type, an error, never silently the designed part."""
    assert all("0x20b0" not in getattr(g, "pci_device_ids", []) for g in catalog.of_kind("gpu"))
    got = _wrong_type(_dn(catalog, "nvidia-dgx-a100"), _node("0x20b0", "NVIDIA A100-SXM4-40GB"),
                      catalog)
    assert got is not None and "(PCI id 0x20b2)" in got[0]
    assert got[1] == "NVIDIA A100-SXM4-40GB (PCI id 0x20b0)"
    tray, note = _find_tray(catalog, "0x20b0", 8, None)
    assert tray is None and "no catalog GPU has PCI id 0x20b0" in note
