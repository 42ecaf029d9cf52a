"""The parsed-catalog cache (issue 17): a hit returns the same catalog, any edit to a
catalog file or to the model code is a miss, and failures are never cached."""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess
import sys

import pytest

from conftest import CATALOGS, ROOT
from infra.errors import CatalogError
from infra.models import catalog_cache
from infra.models.catalog import _catalog_files, _load, load_catalog


@pytest.fixture()
def cache(tmp_path, monkeypatch):
    where = tmp_path / "cache"
    monkeypatch.setenv("INFRA_CATALOG_CACHE", str(where))
    _load.cache_clear()
    yield where
    _load.cache_clear()


def _copy_catalog(tmp_path):
    dst = tmp_path / "cat"
    shutil.copytree(CATALOGS, dst, ignore=shutil.ignore_patterns("prices", "rates"))
    return dst


def _must_not_build():
    raise AssertionError("the cache should have answered")


def test_a_second_load_is_read_from_the_cache_and_equal(cache, tmp_path):
    cat_dir = _copy_catalog(tmp_path)
    first = load_catalog(cat_dir)
    entries = list(cache.glob("*.pickle"))
    assert len(entries) == 1 and oct(entries[0].stat().st_mode & 0o777) == "0o644"
    again = catalog_cache.cached(_catalog_files((str(cat_dir),)), _must_not_build)
    assert again.slugs == first.slugs
    for part in first:
        assert again.get(part.slug) == part  # pydantic equality: every field
    assert again.files == first.files


def test_an_edited_part_file_is_a_new_key(cache, tmp_path):
    cat_dir = _copy_catalog(tmp_path)
    assert load_catalog(cat_dir).get("nvidia-b200-gb200").hbm_gib == 186.0
    f = next(cat_dir.rglob("nvidia-b200-gb200.yaml"))
    f.write_text(f.read_text().replace("hbm_gib: 186", "hbm_gib: 185"))
    _load.cache_clear()
    assert load_catalog(cat_dir).get("nvidia-b200-gb200").hbm_gib == 185.0
    assert len(list(cache.glob("*.pickle"))) == 2


def test_the_model_code_is_part_of_the_key(cache, tmp_path, monkeypatch):
    files = _catalog_files((str(CATALOGS),))
    key = catalog_cache.catalog_key(files)
    monkeypatch.setattr(catalog_cache, "FORMAT", b"another-format")
    assert catalog_cache.catalog_key(files) != key
    monkeypatch.undo()
    import pydantic

    monkeypatch.setattr(pydantic, "VERSION", "0.0.0")  # another pydantic wrote it
    assert catalog_cache.catalog_key(files) != key


def test_a_bad_catalog_is_reported_the_same_and_not_cached(cache, tmp_path):
    cat_dir = _copy_catalog(tmp_path)
    f = next(cat_dir.rglob("nvidia-b200-gb200.yaml"))
    f.write_text(f.read_text().replace("hbm_gib: 186", "hbm_gib: -186"))
    for _ in range(2):  # the second time must not come from a cache either
        _load.cache_clear()
        with pytest.raises(CatalogError) as err:
            load_catalog(cat_dir)
        assert "nvidia-b200-gb200.yaml" in str(err.value) and "hbm_gib" in str(err.value)
    assert not list(cache.glob("*.pickle"))


def test_a_damaged_or_foreign_entry_is_rebuilt(cache, tmp_path):
    cat_dir = _copy_catalog(tmp_path)
    load_catalog(cat_dir)
    (entry,) = cache.glob("*.pickle")
    entry.write_bytes(b"not a pickle")
    _load.cache_clear()
    assert load_catalog(cat_dir).get("nvidia-b200-gb200").hbm_gib == 186.0
    assert pickle.loads(entry.read_bytes()).get("nvidia-b200-gb200").hbm_gib == 186.0
    os.chmod(entry, 0o666)  # writable by others: not trusted, rebuilt and replaced
    built = []
    files = _catalog_files((str(cat_dir),))
    catalog_cache.cached(files, lambda: built.append(1) or "rebuilt")
    assert built == [1] and oct(entry.stat().st_mode & 0o777) == "0o644"


def test_off_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("INFRA_CATALOG_CACHE", "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    _load.cache_clear()
    try:
        assert len(load_catalog(CATALOGS)) > 50
    finally:
        _load.cache_clear()
    assert not (tmp_path / "xdg").exists()


def test_a_fresh_process_uses_the_cache(cache, tmp_path):
    """Two ``infra catalog list`` processes; the second finds the first's entry."""
    env = {**os.environ, "INFRA_CATALOG_CACHE": str(cache)}
    exe = [sys.executable, "-m", "infra.cli", "catalog", "list"]
    first = subprocess.run(exe, env=env, capture_output=True, text=True, cwd=ROOT)
    assert first.returncode == 0, first.stderr
    (entry,) = cache.glob("*.pickle")
    stamp = entry.stat().st_mtime_ns
    second = subprocess.run(exe, env=env, capture_output=True, text=True, cwd=ROOT)
    assert second.returncode == 0 and second.stdout == first.stdout
    assert entry.stat().st_mtime_ns == stamp  # read, not rewritten
