"""Hostile catalogs and designs (issue 31: E6, E7, C8, C9, D8): checked before the work,
every one an exit 2 naming the file, YAML path and fix; never a hang, gigabytes or an
internal error."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from click.testing import CliRunner
from conftest import CATALOGS, DESIGNS

from infra.cli.main import cli
from infra.models.catalog_cache import Uncacheable, catalog_key


@pytest.fixture()
def cat(tmp_path, monkeypatch):
    """A copy of the shipped catalog; the parsed-catalog cache is off unless a test sets it."""
    import shutil

    from infra.models import catalog as catalog_mod

    monkeypatch.setenv("INFRA_CATALOG_CACHE", "off")
    dst = tmp_path / "cat"
    shutil.copytree(CATALOGS, dst)
    catalog_mod._load.cache_clear()
    yield dst
    catalog_mod._load.cache_clear()


def edit(path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


def validate(cat, design: str = "gb200_nvl72.yaml"):
    return CliRunner().invoke(cli, ["validate", "--catalog", str(cat), str(DESIGNS / design)],
                              obj={})


def refused(res, *fragments) -> str:
    assert res.exit_code == 2, res.output
    assert "internal error" not in res.output and "Traceback" not in res.output
    for f in fragments:
        assert f in res.output, (f, res.output)
    return res.output


# ----------------------------------------------------------------------------- E6

def test_the_cache_key_never_reads_a_file_it_would_refuse(cat):
    # E6: catalog_key read every entry whole first: a 2 GB file cost 4.2 GB, /dev/zero
    # ran out of memory, a FIFO blocked. Here a sparse 17 MiB file (over the 16 MiB
    # limit) must be refused unread: a sparse file reads as zeros at no disk cost.
    big = cat / "gpus" / "zz.yaml"
    with open(big, "wb") as fh:
        fh.truncate(17 * 2**20)
    files = sorted(cat.rglob("*.yaml"))
    with pytest.raises(Uncacheable, match="not a regular file of at most 16,777,216 bytes"):
        catalog_key(files)
    big.unlink()
    os.mkfifo(big)
    with pytest.raises(Uncacheable):
        catalog_key(files)
    big.unlink()
    assert len(catalog_key(sorted(cat.rglob("*.yaml")))) == 64  # the shipped files: a key


def test_a_fifo_in_a_catalog_is_an_error_with_the_cache_on(cat, tmp_path):
    # E6: with the cache on (the default), this hung until killed
    os.mkfifo(cat / "gpus" / "zz.yaml")
    env = {**os.environ, "INFRA_CATALOG_CACHE": str(tmp_path / "cache")}
    r = subprocess.run([sys.executable, "-m", "infra", "validate", "--catalog", str(cat),
                        str(DESIGNS / "gb200_nvl72.yaml")], env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2, r.stderr
    assert "zz.yaml" in r.stderr and "not a regular file" in r.stderr


# ----------------------------------------------------------------------------- E7

def test_counts_inside_parts_are_bounded_before_expansion(cat):
    # E7: gpus.count 10^9 in a superchip took 17.6 s and 5.9 GB, then MemoryError; a tray
    # component's count of 10^9 hung validate. A part holds at most 1,000 of one type.
    sc = cat / "superchips" / "nvidia-gb200.yaml"
    edit(sc, "gpus: {type: nvidia-b200-gb200, count: 2}",
         "gpus: {type: nvidia-b200-gb200, count: 1000000000}")
    refused(validate(cat), "nvidia-gb200.yaml", "gpus.count", "1000")
    edit(sc, "count: 1000000000}", "count: 2}")
    tray = cat / "trays" / "nvidia-hgx-b200.yaml"
    edit(tray, "{id: pcisw, type: broadcom-pex89144, count: 4,",
         "{id: pcisw, type: broadcom-pex89144, count: 1000000000,")
    refused(validate(cat, "dgx_b200_su.yaml"), "nvidia-hgx-b200.yaml", "components[3].count")


def test_a_tray_that_expands_past_10000_parts_is_refused_before_it_is_built(cat):
    # 1,000 superchips of 1 CPU + 1,000 GPUs: 1,000 x (1 + 1 + 1,000) = 1,002,000 parts,
    # plus the tray's 6 other components (NICs, DPU...): 1,002,006
    edit(cat / "superchips" / "nvidia-gb200.yaml", "count: 2}", "count: 1000}")
    tray = next(p for p in (cat / "trays").glob("*.yaml")
                if "type: nvidia-gb200," in p.read_text())
    text = tray.read_text()
    line = next(ln for ln in text.splitlines() if "type: nvidia-gb200," in ln)
    new = line.replace("count: 2", "count: 1000")
    assert new != line, line
    tray.write_text(text.replace(line, new))
    refused(validate(cat), tray.name, "expands to 1,002,006 parts, over the 10,000")


# ----------------------------------------------------------------------------- C8, C9

def test_a_port_speed_near_zero_is_refused(tmp_path):
    # C8: port_gbit_s: 1.0e-308 broke out a 400G switch into 4e310 ports:
    # OverflowError (internal error) in the fat-tree sizing
    text = (DESIGNS / "mi325x_cluster.yaml").read_text()
    p = tmp_path / "d.yaml"
    p.write_text(text.replace("port_gbit_s: 400", "port_gbit_s: 1.0e-308", 1))
    res = CliRunner().invoke(cli, ["validate", str(p)], obj={})
    refused(res, "d.yaml", "port_gbit_s", "greater than or equal to 1")


def test_a_nic_where_a_pcie_switch_belongs_is_a_catalog_error(cat):
    # C9: components[3] a BlueField-3 DPU instead of the PEX89144 switch: NodeNotFound
    # 'pcisw0 is not in G' (internal error) when the tray's flows were traced
    tray = cat / "trays" / "nvidia-hgx-b200.yaml"
    edit(tray, "type: broadcom-pex89144", "type: nvidia-bluefield-3-b3240")
    refused(validate(cat, "dgx_b200_su.yaml"), "nvidia-hgx-b200.yaml", "links[",
            "a NIC is an end of the PCIe tree", "components[3].type")


# ----------------------------------------------------------------------------- D8

def test_a_nic_interface_assigned_twice_is_refused(cat):
    # D8: the same {interface: nic1, to: ...} twice was accepted (and a second GPU for
    # one interface silently replaced the first)
    tray = cat / "trays" / "nvidia-hgx-b200.yaml"
    edit(tray, "  - {interface: nic1, to: gpu1}\n",
         "  - {interface: nic1, to: gpu1}\n  - {interface: nic1, to: gpu1}\n")
    refused(validate(cat, "dgx_b200_su.yaml"), "nvidia-hgx-b200.yaml", "nic_assignments[2]",
            "nic1:", "assigned twice")


def test_cpuid_family_and_boolean_lanes_are_refused(cat):
    # D8: family: -1 and lanes: true were accepted (true == 1 passed the lanes Literal)
    cpu = cat / "cpus" / "amd-epyc-9654.yaml"
    edit(cpu, "family: 25,", "family: -1,")
    refused(validate(cat, "mi325x_cluster.yaml"), "amd-epyc-9654.yaml", "cpuid.family")
    edit(cpu, "family: -1,", "family: 25,")
    tray = cat / "trays" / "aws-gb200-compute-tray.yaml"
    edit(tray, "{a: sc0.gpu0, b: pcisw0, lanes: 16}", "{a: sc0.gpu0, b: pcisw0, lanes: true}")
    refused(validate(cat, "aws_nvl36x2.yaml"), "aws-gb200-compute-tray.yaml", "lanes",
            "not a boolean")
