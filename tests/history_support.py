"""Fixtures for the history store's tests: one database per test, on SQLite and on
PostgreSQL.

PostgreSQL comes from ``INFRA_TEST_PG_URL`` (``.ci/run`` starts a throwaway cluster and
sets it). Unset: the PostgreSQL cases are skipped on a developer's machine, but FAIL in
CI (``CI`` set), so a CI that lost its database cannot pass silently. Each test gets a
database of its own, created from that URL's server and dropped afterwards.
"""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path

import pytest

from conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "inventory"
PG_ENV = "INFRA_TEST_PG_URL"


def _pg_database(base: str):
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    from infra.history.db import normalize_url

    url = make_url(normalize_url(base))
    name = f"infra_t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f'CREATE DATABASE "{name}"'))
    test_url = url.set(database=name).render_as_string(hide_password=False)

    def drop():
        with admin.connect() as c:
            c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()

    return test_url, drop


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    """A fresh, empty database URL (SQLite file or PostgreSQL database)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'history.db'}"
        return
    base = os.environ.get(PG_ENV)
    if not base:
        if os.environ.get("CI"):
            pytest.fail(f"{PG_ENV} is not set in CI: .ci/run must start PostgreSQL")
        pytest.skip(f"{PG_ENV} not set (run .ci/run, or point it at a PostgreSQL server)")
    url, drop = _pg_database(base)
    try:
        yield url
    finally:
        drop()


def copy_inventory(name: str, dest: Path) -> Path:
    """A writable copy of a shipped inventory fixture set."""
    out = dest / name
    shutil.copytree(FIXTURES / name, out)
    return out


def swap_gpu(inv: Path, host: str, old_uuid: str, new_uuid: str, new_serial: str) -> None:
    """Replace one GPU's UUID and serial in ``host``'s nvidia-smi dump (a field swap)."""
    smi = inv / host / "nvidia-smi-q.xml"
    text = smi.read_text()
    start = text.index(f"<uuid>{old_uuid}</uuid>")
    block_start = text.rindex("<gpu id=", 0, start)
    block_end = text.index("</gpu>", start)
    block = text[block_start:block_end]
    serial_at = block.index("<serial>")
    old_serial = block[serial_at + 8:block.index("</serial>")]
    block = block.replace(f"<uuid>{old_uuid}</uuid>", f"<uuid>{new_uuid}</uuid>")
    block = block.replace(f"<serial>{old_serial}</serial>", f"<serial>{new_serial}</serial>")
    smi.write_text(text[:block_start] + block + text[block_end:])
    for name in ("nvlink-s.txt",):  # nvlink -s names GPUs by UUID too
        p = inv / host / name
        if p.exists():
            p.write_text(p.read_text().replace(old_uuid, new_uuid))
