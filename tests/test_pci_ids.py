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
# The PCI ID Repository's pci.ids (pciutils/pciids @006181e2, Version 2026.05.24), vendor
# 10de, verbatim (tab-indented in the file):
#   20b0  GA100 [A100 SXM4 40GB]        20b2  GA100 [A100 SXM4 80GB]
#   2330  GH100 [H100 SXM5 80GB]        2335  GH100 [H200 SXM 141GB]
#   2342  GH100 [GH200 120GB / 480GB]   2901  GB100 [B200]
#   2941  GB100 [HGX GB200]             3182  GB110 [B300 SXM6 AC]
#   31c2  GB110 [GB300]                 31c3  GB110 [GB300]
PCIIDS_NVIDIA = {"nvidia-a100-sxm4-40gb": "0x20b0", "nvidia-a100-sxm4-80gb": "0x20b2",
                 "nvidia-h100-sxm5": "0x2330", "nvidia-h200-sxm": "0x2335",
                 "nvidia-h100-gh200": "0x2342", "nvidia-b200-hgx": "0x2901",
                 "nvidia-b200-gb200": "0x2941", "nvidia-b300-hgx": "0x3182",
                 "nvidia-b300-gb300": "0x31c2"}


def test_gh200_gpu_carries_nvidias_id(catalog):
    gpu = catalog.get("nvidia-h100-gh200")
    assert gpu.pci_device_ids == ["0x2342"]
    assert gpu.figure_sources["pci_device_ids"] == "OGKM"


@pytest.mark.parametrize("slug", sorted(PCIIDS_NVIDIA))
def test_every_nvidia_gpu_carries_the_pci_ids_row(catalog, slug):
    """Each shipped NVIDIA GPU's id is the pci.ids row named for it (above)."""
    assert catalog.get(slug).pci_device_ids == [PCIIDS_NVIDIA[slug]]


def test_every_shipped_gpu_read_from_a_dump_has_an_id(catalog):
    """Every GPU an nvidia-smi / amd-smi / hl-smi dump can name carries its PCI id. TPU v5p
    and Trainium2 are not PCI GPUs these readers see (no reader for them): listed, not
    silently passed."""
    missing = sorted(g.slug for g in catalog.of_kind("gpu") if not g.pci_device_ids)
    assert missing == ["aws-trainium2", "google-tpu-v5p"]


@pytest.mark.parametrize("slug", ["nvidia-b300-hgx", "nvidia-a100-sxm4-40gb"])
def test_pci_ids_source_is_the_repository_file(catalog, slug):
    gpu = catalog.get(slug)
    src = {s.id: s for s in gpu.sources}[gpu.figure_sources["pci_device_ids"]]
    assert src.tag == "V" and "pciutils/pciids" in src.title
    assert src.url.startswith("https://github.com/pciutils/pciids/blob/006181e2")
    assert f"'{gpu.pci_device_ids[0][2:]}  " in src.title  # the row, quoted


def test_hgx_b300_node_is_identified(catalog):
    """0x3182 (an HGX B300's "NVIDIA B300 SXM6 AC"): the GPU-type check runs on an HGX B300
    tray and passes, and ingest drafts that tray (was gpu-type-unchecked, no tray)."""
    dn = _dn(catalog, "nvidia-hgx-b300")
    node = _node("0x3182", "NVIDIA B300 SXM6 AC")
    assert type_unchecked(dn, node, catalog) == []
    assert _wrong_type(dn, node, catalog) is None
    tray, note = _find_tray(catalog, "0x3182", 8, None)
    assert tray is not None and tray.slug == "nvidia-hgx-b300", note
    # a GB300 (0x31c2) is not a B300 HGX
    got = _wrong_type(dn, _node("0x31c2", "NVIDIA GB300"), catalog)
    assert got is not None and "(PCI id 0x3182)" in got[0]


def test_a100_40gb_is_its_own_part_not_the_80gb(catalog):
    """The 40 GB A100 (0x20b0) is identified as nvidia-a100-sxm4-40gb: in a DGX A100 (80 GB,
    0x20b2) design it is another GPU type, an error, never silently the designed part; ingest
    names the GPU and says no catalog tray holds 8 of them (no DGX A100 40GB tray)."""
    gpu = catalog.get("nvidia-a100-sxm4-40gb")
    big = catalog.get("nvidia-a100-sxm4-80gb")
    assert (gpu.hbm_gib, gpu.hbm_tbyte_s, gpu.tdp_w) == (40, 1.555, 400)  # datasheet (S2)
    assert gpu.peak_dense_tflops == big.peak_dense_tflops  # same die: 312 TF dense BF16
    assert gpu.peak_dense_tflops.bf16 == 312 and gpu.scale_up == big.scale_up
    got = _wrong_type(_dn(catalog, "nvidia-dgx-a100"), _node("0x20b0", "NVIDIA A100-SXM4-40GB"),
                      catalog)
    assert got is not None and "(PCI id 0x20b2)" in got[0]
    assert got[1] == "NVIDIA A100-SXM4-40GB (PCI id 0x20b0)"
    tray, note = _find_tray(catalog, "0x20b0", 8, None)
    assert tray is None and "no catalog tray with 8 x ['nvidia-a100-sxm4-40gb']" in note


def test_gb300_second_id_is_not_taken(catalog):
    """pci.ids names 0x31c3 GB300 too, without saying which board; no real dump shows it.
    It is not this part's (a choice in the catalog): ingest says no GPU has it."""
    assert catalog.get("nvidia-b300-gb300").pci_device_ids == ["0x31c2"]
    assert "0x31c3" in catalog.get("nvidia-b300-gb300").choices["pci_device_ids"]
    tray, note = _find_tray(catalog, "0x31c3", 4, None)
    assert tray is None and "no catalog GPU has PCI id 0x31c3" in note


# --- small dumps through infra diff and infra ingest -----------------------------------

def _dump(tmp_path, dev: str, product: str):
    """One host of the H100 fixture with its 8 GPUs' PCI id and product name replaced
    (nvidia-smi -q -x writes the id as <pci_device_id>XXXX10DE</pci_device_id>)."""
    from conftest import ROOT

    xml = (ROOT / "tests/fixtures/inventory/hgx-h100-clean/r001n01/nvidia-smi-q.xml").read_text()
    assert xml.count("<pci_device_id>233010DE</pci_device_id>") == 8
    host = tmp_path / "inv" / "r001n01"
    host.mkdir(parents=True)
    (host / "nvidia-smi-q.xml").write_text(
        xml.replace("233010DE", f"{dev[2:].upper()}10DE").replace("NVIDIA H100 80GB HBM3", product))
    return tmp_path / "inv"


def _checks(design: str, inv) -> set[str]:
    from conftest import ROOT
    from infra.ingest.diff import diff_file

    return {f.check for f in diff_file(ROOT / "designs" / design, inv).findings}


def test_b300_dump_is_checked_and_drafted(tmp_path, catalog):
    """An HGX B300 node's dump (0x3182): diff checks its GPU type against the B300 SU and it
    passes (its other findings are the H100 capture's Gen5 PCIe against B300's Gen6); ingest
    drafts the HGX B300 tray."""
    from infra.ingest.to_design import starting_design_dir

    inv = _dump(tmp_path, "0x3182", "NVIDIA B300 SXM6 AC")
    checks = _checks("hgx_b300_su.yaml", inv)
    assert not checks & {"gpu-type", "gpu-type-unchecked"}, checks
    draft = starting_design_dir(inv, catalog)
    (layout,) = draft.data["racks"].values()
    assert layout["contents"] == [{"type": "nvidia-hgx-b300", "count": 1}]


def test_a100_dumps_40gb_is_another_type_80gb_is_not(tmp_path):
    """DGX A100 (80 GB) design: a 40 GB node (0x20b0) is a gpu-type error naming the
    40 GB part's id; the same dump with the 80 GB id (0x20b2) has no finding at all."""
    from conftest import ROOT
    from infra.ingest.diff import diff_file

    inv = _dump(tmp_path / "a", "0x20b0", "NVIDIA A100-SXM4-40GB")
    (f,) = [f for f in diff_file(ROOT / "designs/dgx_a100_su.yaml", inv).findings
            if f.check == "gpu-type"]
    assert f.severity == "error" and f.found == "NVIDIA A100-SXM4-40GB (PCI id 0x20b0)"
    assert _checks("dgx_a100_su.yaml", _dump(tmp_path / "b", "0x20b2",
                                             "NVIDIA A100-SXM4-80GB")) == set()


def test_ingest_of_a_known_gpu_with_no_tray_says_so(tmp_path):
    """8 A100 40 GB (0x20b0, a catalog GPU) and no catalog tray holding them: the error
    names the reason the node was not placed and asks for a tray entry, not for a PCI id
    the catalog already has."""
    from infra.errors import InfraError
    from infra.ingest.to_design import starting_design_dir
    from infra.models.catalog import load_catalog

    inv = _dump(tmp_path, "0x20b0", "NVIDIA A100-SXM4-40GB")
    with pytest.raises(InfraError) as e:
        starting_design_dir(inv, load_catalog())
    msg = str(e.value)
    assert "nvidia-a100-sxm4-40gb" in msg and "compute_tray" in msg
    assert "pci_device_ids" not in msg
