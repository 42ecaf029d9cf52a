"""History store: Alembic schema, snapshots, change records, point-in-time queries.

Every test runs on SQLite and on PostgreSQL (``history_support.db_url``).
"""

from __future__ import annotations

import json
import shutil

import pytest
from sqlalchemy import create_engine, func, select

from conftest import DESIGNS
from history_support import copy_inventory, db_url, swap_gpu  # noqa: F401 (fixture)
from infra import history
from infra.cli.main import cli
from infra.history.db import HistoryError, normalize_url
from infra.history.schema import changes, placements, snapshots

DESIGN = DESIGNS / "dgx_h100_su.yaml"
OLD = "GPU-000103a1-5c3e-4b7d-9f10-000001000003"  # r001n01, module 3 in the fixture
NEW = "GPU-ffff03a1-5c3e-4b7d-9f10-0000010000ff"


def counts(url: str) -> dict[str, int]:
    eng = create_engine(normalize_url(url))
    with eng.connect() as c:
        out = {t.name: c.execute(select(func.count()).select_from(t)).scalar_one()
               for t in (snapshots, placements, changes)}
    eng.dispose()
    return out


def test_upgrade_builds_the_schema_the_code_describes(db_url):
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from infra.history.schema import metadata

    before, after = history.upgrade(db_url)
    assert (before, after) == (None, "0001")
    assert history.upgrade(db_url) == ("0001", "0001")  # a second run does nothing
    eng = create_engine(normalize_url(db_url))
    with eng.connect() as c:
        diffs = compare_metadata(MigrationContext.configure(c), metadata)
    eng.dispose()
    assert diffs == []


def test_gpu_swap_between_two_snapshots_is_one_swap_record(db_url, tmp_path):
    inv1 = copy_inventory("hgx-h100", tmp_path / "a")
    inv2 = copy_inventory("hgx-h100", tmp_path / "b")
    swap_gpu(inv2, "r001n01", OLD, NEW, "1652329999999")
    r1 = history.record(inv1, design=DESIGN, at="2025-03-01T06:00:00Z", db=db_url)
    n1 = r1.components
    assert r1.counts == {"install": n1}
    r2 = history.record(inv2, design=DESIGN, at="2025-03-08T06:00:00Z", db=db_url)
    assert dict(r2.counts) == {"swap": 1}
    (s,) = r2.sample
    assert (s["change"], s["host"], s["slot"], s["before"], s["after"]) == \
        ("swap", "r001n01", "gpu module 3", OLD, NEW)
    before = history.at("2025-03-05", host="r001n01", kind="gpu", db=db_url)
    after = history.at("2025-03-09", host="r001n01", kind="gpu", db=db_url)
    m3 = lambda res: next(r["asset"] for r in res.rows if r["slot"] == "gpu module 3")  # noqa: E731
    assert (m3(before), m3(after)) == (OLD, NEW)
    assert len(before.rows) == len(after.rows) == 8
    assert history.at("2025-02-01", db=db_url).rows == []  # before the first snapshot
    life = history.asset(OLD, db=db_url)
    assert [p["until"] for p in life.placements] == ["2025-03-08T06:00:00Z"]
    assert [c["detail"] for c in life.changes] == [
        "installed at r001n01 gpu module 3", f"swapped out for {NEW}"]


def test_recording_the_same_state_twice_adds_nothing(db_url):
    inv = DESIGNS.parent / "tests/fixtures/inventory/hgx-h100"
    history.record(inv, design=DESIGN, at="2025-03-01T06:00:00Z", db=db_url)
    first = counts(db_url)
    r = history.record(inv, design=DESIGN, at="2025-03-02T06:00:00Z", db=db_url)
    r_again = history.record(inv, design=DESIGN, at="2025-03-02T06:00:00Z", db=db_url)
    assert r.unchanged and r_again.unchanged
    assert counts(db_url) == first
    assert first["snapshots"] == 1 and first["changes"] == first["placements"]
    eng = create_engine(normalize_url(db_url))
    with eng.connect() as c:
        seen = c.execute(select(snapshots.c.seen_until_ts)).scalar_one()
    eng.dispose()
    assert seen == 1740895200  # 2025-03-02T06:00Z = 1,740,873,600 + 6 x 3,600


def test_parts_are_placed_on_the_design_and_counted(db_url):
    inv = DESIGNS.parent / "tests/fixtures/inventory/hgx-h100"
    r = history.record(inv, design=DESIGN, at="2025-03-01", db=db_url)
    hosts = history.at("2025-03-01", kind="host", db=db_url).rows
    # design dgx_h100_su: 4 DGX per rack, r00Xn0Y -> rack su0/r(X-1)
    assert {(h["asset"], h["rack"]) for h in hosts} >= {("r001n01", "su0/r0"), ("r002n04", "su0/r1")}
    gpus = history.at("2025-03-01", kind="gpu", db=db_url).rows
    assert len(gpus) == 8 * 8 - 1  # the fixture seeds module 6 of r001n03 as missing
    nics = history.at("2025-03-01", kind="nic", db=db_url).rows
    # 8 compute ConnectX-7 per DGX, by GUID in ibnetdiscover; r002n04's topo -m also
    # lists its 4 other mlx5 devices (no GUID: named host/device): 64 + 4
    assert len([n for n in nics if "attr.guid" in n]) == 64
    assert len(nics) == 68
    links = history.at("2025-03-01", kind="link", db=db_url).rows
    hca = [x for x in links if x["host"]]
    assert len(hca) == 64
    host = next(h for h in hosts if h["asset"] == "r001n01")
    parts = json.loads(host["attr.parts"])
    assert parts["gpu"] == 8 and parts["cpu"] == 2
    assert r.components == len(history.at("2025-03-01", db=db_url).rows)


def test_removed_host_needs_complete_and_moves_are_moves(db_url, tmp_path):
    inv1 = copy_inventory("hgx-h100", tmp_path / "a")
    history.record(inv1, design=DESIGN, at="2025-03-01T00:00:00Z", db=db_url)
    inv2 = copy_inventory("hgx-h100", tmp_path / "b")
    shutil.rmtree(inv2 / "r002n04")
    (inv2 / "ibnetdiscover.txt").unlink()  # a capture of the hosts only
    r = history.record(inv2, design=DESIGN, at="2025-03-02T00:00:00Z", db=db_url)
    assert r.unchanged  # r002n04 not in the capture: left as it was
    r = history.record(inv2, design=DESIGN, at="2025-03-03T00:00:00Z", db=db_url, complete=True)
    # r002n04: 1 host + 8 GPUs + 12 adapters (8 by GUID from the first capture's fabric,
    # 4 more from its topo -m) = 21; the other hosts' adapters stay (no fabric dump now)
    assert dict(r.counts) == {"remove": 21}
    inv3 = copy_inventory("hgx-h100", tmp_path / "c")
    shutil.rmtree(inv3 / "r002n04")
    (inv3 / "ibnetdiscover.txt").unlink()
    a = "GPU-000101a1-5c3e-4b7d-9f10-000001000001"  # r001n01 module 1
    b = "GPU-000501a1-5c3e-4b7d-9f10-000005000001"  # r002n01 module 1
    text1 = (inv3 / "r001n01/nvidia-smi-q.xml").read_text()
    text2 = (inv3 / "r002n01/nvidia-smi-q.xml").read_text()
    assert a in text1 and b in text2
    (inv3 / "r001n01/nvidia-smi-q.xml").write_text(text1.replace(a, b))
    (inv3 / "r002n01/nvidia-smi-q.xml").write_text(text2.replace(b, a))
    for h, x, y in (("r001n01", a, b), ("r002n01", b, a)):
        p = inv3 / h / "nvlink-s.txt"
        if p.exists():
            p.write_text(p.read_text().replace(x, y))
    r = history.record(inv3, design=DESIGN, at="2025-03-04T00:00:00Z", db=db_url)
    assert dict(r.counts) == {"move": 2}


def test_out_of_order_capture_is_refused(db_url, tmp_path):
    inv1 = copy_inventory("hgx-h100", tmp_path / "a")
    history.record(inv1, design=DESIGN, at="2025-03-08T00:00:00Z", db=db_url)
    swap_gpu(inv1, "r001n01", OLD, NEW, "1652329999999")
    with pytest.raises(HistoryError, match="older than the last snapshot"):
        history.record(inv1, design=DESIGN, at="2025-03-01T00:00:00Z", db=db_url)
    assert counts(db_url)["snapshots"] == 1


def test_cli_record_at_asset_and_errors(db_url, tmp_path):
    from click.testing import CliRunner

    run = CliRunner().invoke
    inv = DESIGNS.parent / "tests/fixtures/inventory/hgx-h100"
    res = run(cli, ["history", "record", str(inv), "--design", str(DESIGN), "--db", db_url,
                    "--at", "2025-03-01T06:00:00Z"])
    assert res.exit_code == 0, res.output
    assert "snapshot 1" in res.output and "install" in res.output
    res = run(cli, ["history", "at", "2025-03-01", "--host", "r001n02", "--db", db_url,
                    "--format", "json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["at"] == "2025-03-01T23:59:59Z"
    assert {p["host"] for p in data["parts"]} == {"r001n02"}
    res = run(cli, ["history", "at", "2025-03-01", "--rack", "su0/r1", "--kind", "host",
                    "--db", db_url, "--format", "csv"])
    assert res.output.splitlines()[0] == "kind,host,slot,asset,since,rack"
    assert len(res.output.splitlines()) == 1 + 4
    res = run(cli, ["history", "at", "yesterday", "--db", db_url])
    assert res.exit_code == 2 and "not an ISO 8601" in res.output
    res = run(cli, ["history", "asset", "no-such-part", "--db", db_url])
    assert res.exit_code == 2 and "no part 'no-such-part'" in res.output


def test_missing_database_and_bad_url_exit_2(tmp_path):
    from click.testing import CliRunner

    run = CliRunner().invoke
    missing = tmp_path / "none.db"
    res = run(cli, ["history", "at", "2025-03-01", "--db", f"sqlite:///{missing}"])
    assert res.exit_code == 2 and "no history database here" in res.output
    assert not missing.exists()
    res = run(cli, ["history", "at", "2025-03-01", "--db", "nosuchdb://x/y"])
    assert res.exit_code == 2 and "database URL" in res.output
    empty = tmp_path / "empty.db"
    create_engine(f"sqlite:///{empty}").connect().close()
    empty.write_bytes(b"")
    res = run(cli, ["history", "at", "2025-03-01", "--db", str(empty)])
    assert res.exit_code == 2 and "infra history upgrade" in res.output
