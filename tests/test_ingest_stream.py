"""Streaming ingest and diff (issue 33): one host at a time gives the same result as the
whole inventory loaded in memory, and a host is read only when its turn comes."""

from __future__ import annotations

import shutil

import pytest

from conftest import ROOT
from infra.ingest.base import InventoryError
from infra.ingest.diff import diff_directory, diff_inventory
from infra.ingest.inventory import iter_nodes, load_inventory
from infra.ingest.to_design import starting_design, starting_design_dir
from infra.models.resolve import load_design

FIX = ROOT / "tests/fixtures/inventory"


@pytest.mark.parametrize("design,inv", [("dgx_h100_su", "hgx-h100"),
                                        ("gb200_nvl72", "gb200-nvl72"),
                                        ("gb200_nvl72", "gb200-nvl72-clean")])
def test_streamed_diff_equals_loaded_diff(catalog, design, inv):
    rd = load_design(ROOT / f"designs/{design}.yaml", catalog)
    streamed = diff_directory(rd, FIX / inv).as_dict()
    loaded = diff_inventory(rd, load_inventory(FIX / inv)).as_dict()
    assert streamed == loaded
    assert bool(streamed["findings"]) == ("clean" not in inv)  # the seeded faults are found


@pytest.mark.parametrize("inv", ["hgx-h100-clean", "gb200-nvl72-clean"])
def test_streamed_draft_equals_loaded_draft(catalog, inv):
    a = starting_design_dir(FIX / inv, catalog)
    b = starting_design(load_inventory(FIX / inv), catalog)
    assert (a.data, a.notes) == (b.data, b.notes)


def test_hosts_are_read_in_turn(tmp_path):
    inv = tmp_path / "inv"
    shutil.copytree(FIX / "hgx-h100-clean", inv)
    (inv / "r999n99").mkdir()  # sorted last: a host directory without nvidia-smi output
    nodes = iter_nodes(inv)
    first = next(nodes)
    assert first.host == "r001n01" and len(first.gpus) == 8
    with pytest.raises(InventoryError, match="without nvidia-smi-q.xml"):
        list(nodes)


def test_ingest_of_a_fabric_dump_alone_says_there_is_no_host(tmp_path, run_cli):
    shutil.copy(FIX / "hgx-h100-clean/ibnetdiscover.txt", tmp_path / "ibnetdiscover.txt")
    res = run_cli("ingest", str(tmp_path), "--to-design", str(tmp_path / "d.yaml"))
    assert res.exit_code == 2 and "no host directory with GPU dumps" in res.output
