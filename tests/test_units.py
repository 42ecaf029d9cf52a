"""Unit conversions against hand arithmetic from the PCIe spec and datasheets."""

import pytest

from infra import units


def test_pcie_gen5_x16_raw():
    # 32 GT/s x 16 lanes x 128/130 / 8 bits = 63.015 GB/s per direction
    assert units.pcie_raw_gbyte_s(5, 16) == pytest.approx(32 * 16 * 128 / 130 / 8)
    assert units.pcie_raw_gbyte_s(5, 16) == pytest.approx(63.015, abs=1e-3)


def test_pcie_gen5_x16_usable():
    # 63.015 GB/s x 256/280 (TLP header+framing+LCRC = 24 B per 256 B) = 57.61 GB/s
    assert units.pcie_usable_gbyte_s(5, 16) == pytest.approx(57.61, abs=0.01)
    # in Gb/s: 57.61 x 8 = 460.9, above a 400 Gb/s NIC
    assert units.gbyte_to_gbit(units.pcie_usable_gbyte_s(5, 16)) == pytest.approx(460.9, abs=0.1)


def test_pcie_gen6_x16_usable():
    # 64 GT/s x 16 / 8 = 128 GB/s raw; x 236/256 flit payload x 256/272 TLP = 111.06 GB/s
    assert units.pcie_raw_gbyte_s(6, 16) == pytest.approx(128 * 236 / 256)
    assert units.pcie_usable_gbyte_s(6, 16) == pytest.approx(128 * 236 / 256 * 256 / 272)


def test_pcie_gen4_x16_raw_matches_hwloc_note():
    # hwloc #653: 128b/130b makes Gen4 x16 = 31.5 GB/s, not 32
    assert units.pcie_raw_gbyte_s(4, 16) == pytest.approx(31.51, abs=0.01)


def test_unknown_gen_rejected():
    with pytest.raises(ValueError, match="unknown PCIe generation 7"):
        units.pcie_raw_gbyte_s(7, 16)


def test_bits_bytes_and_bidi():
    assert units.gbit_to_gbyte(400) == 50
    assert units.gbyte_to_gbit(50) == 400
    assert units.bidi_to_per_direction(1800) == 900
    assert units.tflops_to_pflops(2500) == 2.5
    assert units.w_to_kw(5400) == 5.4


def test_pcie_gen1_is_2_5_gt_s():
    # Gen1: 2.5 GT/s x 16 lanes x 8b/10b / 8 = 4.0 GB/s per direction
    assert units.pcie_raw_gbyte_s(1, 16) == pytest.approx(4.0)
