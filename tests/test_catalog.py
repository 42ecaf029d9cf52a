"""Every catalog file loads, its slug matches its file name, and its figures are sourced."""

from __future__ import annotations

import pytest
import yaml

from conftest import CATALOGS
from infra.models.base import numeric_figures
from infra.models.catalog import load_catalog, parse_entry

FILES = sorted(p for p in CATALOGS.rglob("*.yaml") if not {"prices", "rates"} & set(p.parts))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_catalog_file_loads_with_sources(path):
    entry = parse_entry(yaml.safe_load(path.read_text()), path)
    assert entry.slug == path.stem
    assert entry.sources, "every entry needs a source"
    for src in entry.sources:
        assert src.title
        assert src.url or src.tag in ("assumption", "DER", "estimate")
    for field, _ in numeric_figures(entry):
        assert entry.source_of(field).id in {s.id for s in entry.sources}


def test_catalog_cross_references_resolve(catalog):
    assert len(catalog) == len(FILES)
    gb200 = catalog.get("nvidia-gb200")
    assert catalog.get(gb200.cpu.type).kind == "cpu"
    assert catalog.get(gb200.gpus.type).kind == "gpu"


def test_required_parts_present(catalog):
    required = {
        "gpu": ["nvidia-b200-gb200"],
        "cpu": ["nvidia-grace"],
        "superchip": ["nvidia-gb200"],
        "nic": ["nvidia-connectx-7-400g", "nvidia-bluefield-3-b3220", "aws-nitro-400g",
                "aws-nitro-200g-dpu"],
        "compute_tray": ["nvidia-gb200-compute-tray", "aws-gb200-compute-tray"],
        "rack": ["nvidia-gb200-nvl72-rack", "aws-nvl36-rack"],
    }
    for kind, slugs in required.items():
        for slug in slugs:
            assert catalog.get(slug).kind == kind


def test_gb200_is_explicit_composition(catalog):
    # GB200 = 1 Grace + 2 B200 (domain brief); GH200-style "2 GPUs" mistakes are caught here
    sc = catalog.get("nvidia-gb200")
    assert (sc.cpu.type, sc.cpu.count) == ("nvidia-grace", 1)
    assert (sc.gpus.type, sc.gpus.count) == ("nvidia-b200-gb200", 2)
    # NVLink-C2C: 900 GB/s bidirectional = 450 GB/s per direction
    assert sc.c2c_gbyte_s == 900 / 2


def test_nitro_logical_interfaces_share_one_port(catalog):
    nitro = catalog.get("aws-nitro-400g")
    assert {i.port for i in nitro.interfaces} == {"p0"}
    assert sum(i.gbit_s for i in nitro.interfaces) == 400 + 200  # over the 400 Gb/s port
    assert nitro.port_gbit_s == 400


def test_show_lists_each_figure_with_source(catalog):
    from infra.models.listing import entry_rows

    rows = {r["field"]: r for r in entry_rows(catalog, "nvidia-b200-gb200")}
    assert rows["hbm_gib"]["value"] == 186  # vendor GB, binary-sized: 186 GiB
    assert rows["tdp_w"]["tag"] == "V"  # NVIDIA DPS registry: 1,200 W
    assert rows["peak_dense_tflops.bf16"]["value"] == 2500
    assert "gb200-nvl72" in rows["peak_dense_tflops.bf16"]["url"]


def test_load_catalog_is_cached():
    assert load_catalog(CATALOGS) is load_catalog(CATALOGS)


def test_hbm_is_the_vendors_gib_and_counts_bytes(catalog, tmp_path):
    """Vendors' HBM 'GB' are binary-sized (accuracy-audit-3 row 10: an HGX B200 '180 GB' GPU
    reports 183,359 MiB under nvidia-smi, an H100 '80 GB' 81,559 MiB), so the catalog
    field is hbm_gib and byte counts convert it; the old key hbm_gb is refused with the
    rename as the fix."""
    h100 = catalog.get("nvidia-h100-sxm5")
    assert h100.hbm_gib == 80
    # 80 x 2^30 = 85,899,345,920 bytes = 85.899 x 10^9
    assert h100.hbm_gbyte == pytest.approx(85.899345920)
    # nvidia-smi's 81,559 MiB usable fits inside 80 GiB = 81,920 MiB, not inside 80 x 10^9 B
    # = 76,294 MiB: the figure is binary-sized
    assert 81_559 <= h100.hbm_gib * 1024 and 81_559 > 80e9 / 2**20
    from infra.errors import InfraError

    f = tmp_path / "nvidia-h100-sxm5.yaml"
    f.write_text((CATALOGS / "gpus/nvidia/nvidia-h100-sxm5.yaml").read_text()
                 .replace("hbm_gib: 80", "hbm_gb: 80"))
    with pytest.raises(InfraError) as err:
        parse_entry(yaml.safe_load(f.read_text()), f)
    assert "hbm_gb is now hbm_gib" in str(err.value) and "rename the key" in str(err.value)
