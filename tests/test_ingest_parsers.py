"""Ingest readers on hand-written dumps in the real tools' shapes (tests/fixtures/inventory)
and on bad input: truncated XML, binary files, the wrong tool's output -> exit 2, file named."""

from __future__ import annotations

import pytest

from conftest import ROOT
from infra.ingest.base import InventoryError
from infra.ingest.ibnet import parse_guid_map, parse_ibnet
from infra.ingest.inventory import load_inventory
from infra.ingest.nccl import parse_nccl_topo
from infra.ingest.smi_text import parse_nvlink, parse_topo
from infra.ingest.smi_xml import parse_smi_xml

FIX = ROOT / "tests/fixtures/inventory"
H100 = FIX / "hgx-h100"
GB200 = FIX / "gb200-nvl72"


def test_smi_v13_gb200_identity_and_fabric():
    log = parse_smi_xml(GB200 / "r01-t15/nvidia-smi-q.xml")
    assert log.driver_version == "580.173.02" and log.attached_gpus == 4
    # module ids follow the capture's 2, 1, 4, 3, not the device order
    assert [g.module_id for g in log.gpus] == [2, 1, 4, 3]
    g = log.gpus[0]
    assert (g.pci_device_id, g.pcie_gen, g.pcie_max_gen, g.pcie_width) == ("0x2941", 5, 5, 16)
    assert (g.tray_index, g.chassis_serial, g.clique_id) == (15, "1821225000417", 2)  # trays 10-18
    assert g.serial == log.gpus[1].serial  # two GPUs of one superchip share a serial
    lost = log.gpus[3]  # module 3: fabric still in progress, N/A status and clique
    assert (lost.fabric_state, lost.fabric_status, lost.clique_id) == ("In Progress", None, None)


def test_smi_v13_hopper_na_fields_read_as_absent():
    g = parse_smi_xml(H100 / "r02-t01/nvidia-smi-q.xml").gpus[0]
    assert g.board_part_number is None  # N/A
    assert (g.chassis_serial, g.tray_index, g.slot_number) == (None, None, None)
    assert g.cluster_uuid == "00000000-0000-0000-0000-000000000000" and g.clique_id == 0


def test_smi_v12_renamed_module_element():
    """Driver 535: <gpu_module_id> at the top, no <platformInfo>; fabric state/status only."""
    log = parse_smi_xml(H100 / "r02-t02/nvidia-smi-q.xml")
    assert log.driver_version == "535.54.03"
    assert [g.module_id for g in log.gpus] == [2, 4, 3, 1, 6, 8, 7, 5]
    assert log.gpus[0].cluster_uuid is None and log.gpus[0].fabric_state == "Completed"


def test_topo_matrix_header_and_legend():
    t = parse_topo(H100 / "r01-t01/topo-m.txt")
    assert t.gpus == tuple(f"GPU{i}" for i in range(8))
    assert t.nics[:2] == ("mlx5_0", "mlx5_1") and len(t.nics) == 12
    assert t.nvlinks("GPU0", "GPU5") == 18
    assert t.nearest_nic("GPU1") == ("mlx5_3", "PIX")
    assert t.cpu_affinity["GPU0"] == "0-55,112-167" and t.numa_affinity["GPU5"] == "1"


def test_topo_gb200_shape_all_sys():
    t = parse_topo(GB200 / "r01-t01/topo-m.txt")
    assert t.nearest_nic("GPU0")[1] == "SYS"
    assert t.numa_affinity["GPU2"] == "1,19-25,27-33"


def test_topo_old_format_nic_names_in_header(tmp_path):
    p = tmp_path / "topo.txt"
    p.write_text("\tGPU0\tGPU1\tmlx5_0\tCPU Affinity\n"
                 "GPU0\t X \tNV12\tPXB\t0-63\nGPU1\tNV12\t X \tPXB\t0-63\n"
                 "mlx5_0\tPXB\tPXB\t X \n")
    t = parse_topo(p)
    assert t.nics == ("mlx5_0",) and t.nearest_nic("GPU1") == ("mlx5_0", "PXB")


def test_nvlink_inactive_links():
    gpus = parse_nvlink(H100 / "r02-t03/nvlink-s.txt")
    by_module = {g.uuid: g for g in gpus}
    bad = [g for g in gpus if g.inactive]
    assert len(bad) == 1 and (bad[0].active, bad[0].inactive) == (16, 2)
    assert len(by_module) == 8 and gpus[0].links[0] == (0, 26.562)


def test_nccl_dump_h100_nvswitch_rows():
    topo = parse_nccl_topo(H100 / "r01-t01/nccl-topo.xml")
    # 4 + 5 + 5 + 4 links to the four NVSwitches (SimAI #128 shape): 18 per GPU
    assert [g.nvswitch_links for g in topo.gpus] == [18] * 8
    assert topo.gpus[0].pcie_gen == 5 and topo.gpus[0].pcie_width == 16
    assert [n.name for n in topo.nets][:3] == ["mlx5_0", "mlx5_1", "mlx5_2"]
    assert topo.nets[0].speed_gbit_s == 400.0  # speed="400000" is Mb/s


def test_nccl_dump_gb200_c2c():
    topo = parse_nccl_topo(GB200 / "r01-t07/nccl-topo.xml")
    # c2c bw x count / 1000 = 45000 x 10 / 1000 = 450 GB/s (NCCL's model)
    assert topo.gpus[0].c2c_gbyte_s == 450.0
    assert len(topo.hosts) == 1


def test_ibnetdiscover_switches_adapters_and_traps():
    gmap = parse_guid_map(H100 / "guid-map.txt")
    fab = parse_ibnet(H100 / "ibnetdiscover.txt", gmap)
    assert len(fab.switches) == 9  # 8 rail leaves + 1 spine
    assert fab.skipped_aggregation_nodes == 8  # port 65 SHARP node of each leaf
    hosts = {a.host for a in fab.adapters.values()}
    assert len(hosts) == 8 and None not in hosts
    mapped = [a for a in fab.adapters.values() if a.mapped_by == "guid-map"]
    assert [(a.host, a.hca) for a in mapped] == [("r02-t04", "mlx5_7")]
    assert sum(1 for l in fab.links if l.peer_kind == "H") == 64
    assert sum(1 for l in fab.links if l.peer_kind == "S") == 16  # leaf-spine, each once
    slow = [l for l in fab.links if l.gbit_s != 400.0]
    assert [(l.width, l.speed, l.gbit_s) for l in slow] == [(2, "NDR", 200.0)]


def test_default_description_without_map_is_unmapped():
    fab = parse_ibnet(H100 / "ibnetdiscover.txt")
    unmapped = [a for a in fab.adapters.values() if a.host is None]
    assert [a.description for a in unmapped] == ["MT4129 ConnectX7   Mellanox Technologies"]


def test_inventory_joins_on_uuid_not_order():
    inv = load_inventory(H100)
    node = inv.node("r02-t03")
    bad = [g for g in node.gpus if g.nvlinks_active != 18]
    assert [(g.module_id, g.nvlinks_active) for g in bad] == [(6, 16)]
    # mixed HCA naming (HCA-1..8) still ranks by number
    ranks = sorted((p.hca, p.hca_rank) for p in inv.ports if p.host == "r02-t02")
    assert ranks[0] == ("HCA-1", 0) and ranks[-1] == ("HCA-8", 7)


BAD = [
    ("nvidia-smi-q.xml", "truncated", "malformed or truncated XML"),
    ("nvidia-smi-q.xml", "binary", "binary file"),
    ("nvidia-smi-q.xml", "nccl", "looks like `NCCL_TOPO_DUMP_FILE"),
    ("nvidia-smi-q.xml", "text", "not XML"),
    ("nvidia-smi-q.xml", "entity", "forbidden constructs"),
    ("nccl-topo.xml", "smi", "looks like `nvidia-smi -q -x` output"),
    ("topo-m.txt", "nvlink", "not `nvidia-smi topo -m` output"),
    ("nvlink-s.txt", "topo", "not `nvidia-smi nvlink -s` output"),
    ("nvlink-s.txt", "binary", "binary file"),
]


def _bad_content(kind: str) -> bytes:
    good = (H100 / "r01-t01/nvidia-smi-q.xml").read_bytes()
    return {
        "truncated": good[: len(good) // 2],
        "binary": b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4,
        "nccl": (H100 / "r01-t01/nccl-topo.xml").read_bytes(),
        "smi": good,
        "text": (H100 / "r01-t01/topo-m.txt").read_bytes(),
        "entity": b'<!DOCTYPE x [<!ENTITY a "aaaa">]><nvidia_smi_log>&a;</nvidia_smi_log>',
        "topo": (H100 / "r01-t01/topo-m.txt").read_bytes(),
        "nvlink": (H100 / "r01-t01/nvlink-s.txt").read_bytes(),
    }[kind]


@pytest.mark.parametrize("name,kind,message", BAD)
def test_malformed_dump_exits_2_naming_the_file(tmp_path, run_cli, name, kind, message):
    inv = tmp_path / "inv"
    node = inv / "r01-t01"
    node.mkdir(parents=True)
    (node / "nvidia-smi-q.xml").write_bytes((H100 / "r01-t01/nvidia-smi-q.xml").read_bytes())
    (node / name).write_bytes(_bad_content(kind))
    res = run_cli("diff", str(ROOT / "designs/dgx_h100_su.yaml"), "--inventory", str(inv))
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    assert str(node / name) in res.output and message in res.output, res.output


def test_wrong_tool_ibnetdiscover_and_missing_smi(tmp_path):
    (tmp_path / "ibnetdiscover.txt").write_text("ibwarn: [1234] mad_rpc_open_port: can't open UMAD port\n")
    with pytest.raises(InventoryError, match="not ibnetdiscover output"):
        load_inventory(tmp_path)
    (tmp_path / "r01-t01").mkdir()
    with pytest.raises(InventoryError, match="without nvidia-smi-q.xml"):
        load_inventory(tmp_path)
    with pytest.raises(InventoryError, match="inventory directory not found"):
        load_inventory(tmp_path / "nope")
