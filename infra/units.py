"""Unit conversions: the one place where units change.

Conventions (see ``../shared/reference/hardware-facts.md`` §0):

- ``GB/s`` = 10^9 bytes/s, ``Gb/s`` = 10^9 bits/s; names say which (``gbyte_s`` vs
  ``gbit_s``).
- Bandwidth figures are **per direction** unless a name says ``bidi``.
- ``TB`` of memory = 10^12 bytes; ``kW`` = 10^3 W.
- HBM as vendors state it ("80 GB", "192 GB") is binary-sized: GiB = 2^30 bytes (an
  "80 GB" H100 shows 81,559 MiB under nvidia-smi). Catalog HBM is ``hbm_gib``; byte
  counts use :func:`gib_to_gbyte` (10^9 bytes).
- FLOPS figures are dense (no 2:4 sparsity) unless a name says ``sparse``.
"""

from __future__ import annotations

from fractions import Fraction

BITS_PER_BYTE = 8
GIGA_PER_TERA = 1000
TERA_PER_PETA = 1000
PETA_PER_EXA = 1000
W_PER_KW = 1000
KW_PER_MW = 1000
GB_PER_TB = 1000
BYTES_PER_GIB = 2**30
BYTES_PER_GB = 10**9
HOURS_PER_YEAR = 8760

# PCIe signalling rate per lane in GT/s, by generation (PCI-SIG base specifications).
PCIE_GT_S: dict[int, Fraction] = {1: Fraction(5, 2), 2: Fraction(5), 3: Fraction(8),
                                  4: Fraction(16), 5: Fraction(32), 6: Fraction(64)}
# Line-code efficiency: 8b/10b for Gen1-2, 128b/130b for Gen3-5. Gen6 uses PAM4 with
# 256-byte FLITs of which 236 bytes carry TLP data (6 B DLP, 8 B CRC, 6 B FEC).
PCIE_ENCODING: dict[int, Fraction] = {
    1: Fraction(8, 10),
    2: Fraction(8, 10),
    3: Fraction(128, 130),
    4: Fraction(128, 130),
    5: Fraction(128, 130),
    6: Fraction(236, 256),
}
# Transaction-layer efficiency with a 256-byte max payload: Gen3-5 add a 4-byte framing
# token, 16-byte header (64-bit addressing) and 4-byte LCRC per TLP -> 256 / 280.
# Flit mode (Gen6) keeps the 16-byte header only -> 256 / 272.
PCIE_TLP_EFFICIENCY: dict[int, Fraction] = {
    1: Fraction(256, 280),
    2: Fraction(256, 280),
    3: Fraction(256, 280),
    4: Fraction(256, 280),
    5: Fraction(256, 280),
    6: Fraction(256, 272),
}


def gbit_to_gbyte(gbit_s: float) -> float:
    """Gb/s -> GB/s (divide by 8)."""
    return gbit_s / BITS_PER_BYTE


def gbyte_to_gbit(gbyte_s: float) -> float:
    """GB/s -> Gb/s (multiply by 8)."""
    return gbyte_s * BITS_PER_BYTE


def tflops_to_pflops(tflops: float) -> float:
    return tflops / TERA_PER_PETA


def w_to_kw(watts: float) -> float:
    return watts / W_PER_KW


def kw_to_mw(kw: float) -> float:
    return kw / KW_PER_MW


def kw_to_w(kw: float) -> float:
    return kw * W_PER_KW


def pflops_to_eflops(pflops: float) -> float:
    return pflops / PETA_PER_EXA


def gb_to_tb(gb: float) -> float:
    return gb / GB_PER_TB


def gib_to_gbyte(gib: float) -> float:
    """GiB (2^30 bytes, the size of a vendor's HBM 'GB') in GB (10^9 bytes).

    >>> round(gib_to_gbyte(80), 2)  # an "80 GB" H100
    85.9
    """
    return gib * BYTES_PER_GIB / BYTES_PER_GB


def bidi_to_per_direction(bidi: float) -> float:
    """Vendor 'bidirectional' headline figures are both directions summed."""
    return bidi / 2


def pcie_raw_gbyte_s(gen: int, lanes: int) -> float:
    """Raw PCIe bandwidth per direction after line coding, in GB/s.

    Gen5 x16: 32 GT/s x 16 x 128/130 / 8 = 63.02 GB/s.
    """
    _check_gen(gen)
    return float(PCIE_GT_S[gen] * lanes * PCIE_ENCODING[gen] / BITS_PER_BYTE)


def pcie_usable_gbyte_s(gen: int, lanes: int) -> float:
    """Usable PCIe data bandwidth per direction in GB/s.

    Raw bandwidth after line coding times the TLP efficiency for 256-byte payloads
    (see module constants). Gen5 x16: 63.02 x 256/280 = 57.6 GB/s (461 Gb/s);
    Gen6 x16: 128 x 236/256 x 256/272 = 111.1 GB/s.

    This is a planning ceiling: NCCL's own model (``width x speed / 80`` in
    ``src/graph/topo.cc``) is more conservative (48 GB/s for Gen5 x16).
    """
    _check_gen(gen)
    return float(
        PCIE_GT_S[gen] * lanes * PCIE_ENCODING[gen] * PCIE_TLP_EFFICIENCY[gen] / BITS_PER_BYTE
    )


def _check_gen(gen: int) -> None:
    if gen not in PCIE_GT_S:
        raise ValueError(f"unknown PCIe generation {gen}; known: {sorted(PCIE_GT_S)}")


MEGA_PER_GIGA = 1000


def gbit_to_mbit(gbit_s: float) -> float:
    """Gb/s to Mb/s (NCCL's ``net@speed`` unit): 400 -> 400000."""
    return gbit_s * MEGA_PER_GIGA


def gbyte_to_mbyte(gbyte_s: float) -> float:
    """GB/s to MB/s (NCCL's ``c2c@bw`` unit, per link): 450 -> 450000."""
    return gbyte_s * MEGA_PER_GIGA
