"""Hostile dumps (fuzz-report-3 C1, C2, E4): huge integers, deep nesting, entity
declarations and oversized files are refused with the file and line, or read; never an
internal error."""

from __future__ import annotations

import os
import shutil

import pytest

from conftest import ROOT
from infra.ingest.base import MAX_DUMP_BYTES, InventoryError, read_text
from infra.ingest.ibnet import parse_ibnet_text
from infra.ingest.nccl import parse_nccl_topo
from infra.ingest.smi_text import parse_nvlink_text
from infra.ingest.smi_xml import parse_smi_xml

CLEAN = ROOT / "tests/fixtures/inventory/hgx-h100-clean"
HUGE = "9" * 5000  # over Python's 4,300-digit int() limit


def _copy(tmp_path):
    inv = tmp_path / "inv"
    shutil.copytree(CLEAN, inv)
    return inv


def test_c1_huge_module_id_reads_as_absent(tmp_path):
    inv = _copy(tmp_path)
    p = inv / "r001n01/nvidia-smi-q.xml"
    text = p.read_text()
    p.write_text(text.replace("<module_id>1</module_id>", f"<module_id>{HUGE}</module_id>", 1))
    ids = [g.module_id for g in parse_smi_xml(p).gpus]
    assert None in ids and len(ids) == 8


def test_c1_huge_link_number_in_nvlink_s_names_the_line():
    text = f"GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1)\n\t Link {HUGE}: 26.562 GB/s\n"
    with pytest.raises(InventoryError, match="a link number has 5,000 digits") as err:
        parse_nvlink_text(text, "nvlink-s.txt")
    assert err.value.line == 2


def test_c1_huge_rate_is_not_a_reading():
    text = f"GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1)\n\t Link 0: {HUGE}.5 GB/s\n"
    (g,) = parse_nvlink_text(text, "nvlink-s.txt")
    assert g.links == ()  # the line is not a link line: no infinite rate


@pytest.mark.parametrize("line,what", [
    (f'Switch {HUGE} "S-2c00"  # "MF0;leaf-a:MQM9700/U1" enhanced port 0 lid 1 lmc 0',
     "a port count"),
    (f'[{HUGE}] "H-e0a1"[1](e0a1)  # "node1 mlx5_0" lid 5 4xNDR', "a port number"),
])
def test_c1_huge_ibnetdiscover_numbers(line, what):
    head = 'Switch 3 "S-2c00"  # "MF0;leaf-a:MQM9700/U1" enhanced port 0 lid 1 lmc 0\n'
    text = (head + line + "\n") if line.startswith("[") else (line + "\n")
    with pytest.raises(InventoryError, match=what):
        parse_ibnet_text(text, "ib.txt")


def test_c1_huge_lane_count_is_no_rate():
    text = ('Switch 3 "S-2c00"  # "MF0;leaf-a:MQM9700/U1" enhanced port 0 lid 1 lmc 0\n'
            f'[1] "H-e0a1"[1](e0a1)  # "node1 mlx5_0" lid 5 {HUGE}xNDR\n')
    link = parse_ibnet_text(text, "ib.txt").links[0]
    assert (link.width, link.gbit_s) == (None, None)


def test_c1_huge_nccl_attributes_read_as_absent(tmp_path):
    inv = _copy(tmp_path)
    p = inv / "r001n01/nccl-topo.xml"
    text = p.read_text()
    assert 'count="' in text and 'speed="' in text
    p.write_text(text.replace('count="', f'count="{HUGE}', 1).replace('speed="', f'speed="{HUGE}', 1))
    topo = parse_nccl_topo(p)
    assert len(topo.gpus) == 8


@pytest.mark.parametrize("depth", [990, 20000])
def test_c2_deeply_nested_pci_is_read(tmp_path, depth):
    inv = _copy(tmp_path)
    p = inv / "r001n01/nccl-topo.xml"
    text = p.read_text()
    at = text.index(">", text.index("<cpu")) + 1
    nest = '<pci busid="0000:01:00.0">' * depth + "</pci>" * depth
    p.write_text(text[:at] + nest + text[at:])
    topo = parse_nccl_topo(p)
    assert len(topo.gpus) == 8  # the nesting holds no GPU; the 8 real ones are still found


def test_c2_gpu_at_the_bottom_of_deep_nesting_keeps_its_pci(tmp_path):
    p = tmp_path / "nccl-topo.xml"
    depth = 5000
    p.write_text('<system version="1"><cpu host_hash="0x1">'
                 + '<pci busid="0000:01:00.0" link_width="8">' * depth
                 + '<gpu dev="0" sm="90"/>' + "</pci>" * depth + "</cpu></system>")
    (g,) = parse_nccl_topo(p).gpus
    assert (g.dev, g.pcie_width, g.bus_id) == (0, 8, "0000:01:00.0")


def test_entity_declaration_refused_with_line(tmp_path):
    p = tmp_path / "nvidia-smi-q.xml"
    p.write_text('<?xml version="1.0"?>\n<!DOCTYPE x [\n<!ENTITY a "aaaa">]>\n'
                 '<nvidia_smi_log>&a;</nvidia_smi_log>')
    with pytest.raises(InventoryError, match=r"entity declaration, line 3\): refused"):
        parse_smi_xml(p)


def test_external_entity_is_never_fetched(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET")
    p = tmp_path / "nvidia-smi-q.xml"
    p.write_text(f'<!DOCTYPE nvidia_smi_log SYSTEM "file://{secret}">\n'
                 "<nvidia_smi_log><driver_version>&x;</driver_version></nvidia_smi_log>")
    with pytest.raises(InventoryError) as err:
        parse_smi_xml(p)
    assert "TOPSECRET" not in str(err.value)


def test_e4_sparse_oversized_dump_refused_before_reading(tmp_path):
    p = tmp_path / "topo-m.txt"
    with open(p, "wb") as fh:
        fh.truncate(MAX_DUMP_BYTES + 1)  # sparse: nothing is written, nothing may be read
    with pytest.raises(InventoryError, match="is too large"):
        read_text(p, "nvidia-smi topo -m")
    assert os.stat(p).st_size == MAX_DUMP_BYTES + 1


def test_a_superscript_digit_reads_as_absent_not_an_internal_error(tmp_path):
    """'²' is a digit to str.isdigit but no number to int(): the reading is absent (was
    a ValueError, exit 3)."""
    inv = _copy(tmp_path)
    p = inv / "r001n01/nvidia-smi-q.xml"
    p.write_text(p.read_text().replace("<module_id>1</module_id>", "<module_id>\u00b2</module_id>", 1))
    ids = [g.module_id for g in parse_smi_xml(p).gpus]
    assert None in ids and len(ids) == 8
