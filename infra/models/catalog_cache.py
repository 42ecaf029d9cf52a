"""A parsed-catalog cache keyed by the catalog files' contents and the model code.

Parsing and validating the ~80 shipped catalog files costs about half a second, more
than analysing a small design. A successful load is therefore kept as a pickle under
``$INFRA_CATALOG_CACHE`` (default ``$XDG_CACHE_HOME/infra/catalog``, else
``~/.cache/infra/catalog``; ``off`` disables it). The key is the SHA-256 of

- every catalog file's path and bytes, in load order (an edited, added or removed part
  file is a new key: nothing is ever stale),
- the source of the modules that validate them (``infra/models/*.py``, ``infra/units.py``),
  and the Python, pydantic and pydantic-core versions (a pickle of a model is only read
  back by the versions that wrote it).

A failed load is never cached: its error is raised exactly as without the cache. The
cache is only read from files owned by the current user and not writable by others
(a pickle runs code when loaded, like a ``.pyc``); a file that cannot be read or
unpickled is ignored and rewritten. Writes are atomic; at most :data:`KEEP` entries
are kept, the oldest pruned.

Examples
--------
>>> cache_dir({"INFRA_CATALOG_CACHE": "off"}) is None
True
>>> str(cache_dir({"INFRA_CATALOG_CACHE": "/tmp/c"}))
'/tmp/c'
"""

from __future__ import annotations

import hashlib
import os
import pickle
import stat
import sys
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

CACHE_ENV = "INFRA_CATALOG_CACHE"
KEEP = 16  # cache entries kept; the oldest beyond this are pruned
FORMAT = b"infra-catalog-cache-1"
_PKG = Path(__file__).resolve().parents[1]


OFF = ("", "off", "0", "no", "false", "none")


def user_cache_dir(env_var: str, name: str,
                   environ: Mapping[str, str] | None = None) -> Path | None:
    """``$env_var`` if set, else ``$XDG_CACHE_HOME/infra/<name>`` (``~/.cache``); None
    when the variable is set to ``off`` (or empty, ``0``, ``no``): the one rule for every
    cache infra keeps (parsed catalogs here, rendered diagrams in the reports)."""
    env = os.environ if environ is None else environ
    value = env.get(env_var)
    if value is not None:
        return None if value.strip().lower() in OFF else Path(value)
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "infra" / name


def cache_dir(environ: Mapping[str, str] | None = None) -> Path | None:
    """The catalog cache directory, or None when ``$INFRA_CATALOG_CACHE`` is ``off``."""
    return user_cache_dir(CACHE_ENV, "catalog", environ)


def _code_digest() -> bytes:
    import pydantic
    import pydantic_core

    versions = f"{sys.version}|{pydantic.VERSION}|{pydantic_core.__version__}"
    h = hashlib.sha256(FORMAT + versions.encode())
    for src in sorted([*(_PKG / "models").glob("*.py"), _PKG / "units.py", _PKG / "errors.py"]):
        h.update(src.name.encode() + b"\0" + src.read_bytes() + b"\0")
    return h.digest()


class Uncacheable(OSError):
    """A catalog entry the key does not read: not a regular file, or over the size limit
    (the load without the cache then reports it, as it would without a cache)."""


def catalog_key(files: list[Path]) -> str:
    """SHA-256 (hex) of the model code and every file's path and bytes, in order.

    Each file is checked before it is read (issue 31, E6): one that is not a regular
    file (a FIFO would block the read, ``/dev/zero`` never ends) or is over
    :data:`~infra.models.yamlio.MAX_FILE_BYTES` raises :class:`Uncacheable`, unread; a
    file is read with bounded memory."""
    from infra.models.yamlio import MAX_FILE_BYTES

    h = hashlib.sha256(_code_digest())
    for f in files:
        st = os.stat(f)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_FILE_BYTES:
            raise Uncacheable(f"{f}: not a regular file of at most {MAX_FILE_BYTES:,} bytes")
        with open(f, "rb") as fh:
            raw = fh.read(MAX_FILE_BYTES + 1)
        if len(raw) > MAX_FILE_BYTES:  # grew since the stat
            raise Uncacheable(f"{f}: over {MAX_FILE_BYTES:,} bytes")
        h.update(str(f).encode() + b"\0")
        h.update(raw + b"\0")
    return h.hexdigest()


def _trusted(path: Path) -> bool:
    st = path.stat()
    getuid = getattr(os, "getuid", None)
    own = getuid is None or st.st_uid == getuid()
    return own and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def cached(files: list[Path], build: Callable[[], Any]) -> Any:
    """``build()``'s result for these catalog ``files``, from the cache when it holds it.

    Parameters
    ----------
    files : list of Path
        The catalog files in load order (their bytes and paths make the key).
    build : callable
        Loads the catalog; called on a miss (its exceptions propagate, nothing cached).

    Returns
    -------
    object
        What ``build()`` returned, now or on an earlier run with the same key.
    """
    where = cache_dir()
    if where is None:
        return build()
    try:
        entry = where / f"{catalog_key(files)}.pickle"
    except OSError:  # vanished, not a regular file or too big: the normal load reports it
        return build()
    try:
        if entry.is_file() and _trusted(entry):
            with open(entry, "rb") as fh:
                return pickle.load(fh)
    except Exception:  # noqa: BLE001 - a damaged or foreign entry is rebuilt
        pass
    value = build()
    _store(where, entry, value)
    return value


def _store(where: Path, entry: Path, value: Any) -> None:
    """Write ``value`` atomically; a cache that cannot be written is skipped silently."""
    tmp = None
    try:
        where.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=where, prefix=".tmp-", suffix=".pickle")
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.chmod(tmp, 0o644)
        os.replace(tmp, entry)
        tmp = None
        old = sorted(where.glob("*.pickle"), key=lambda p: p.stat().st_mtime, reverse=True)
        for p in old[KEEP:]:
            p.unlink(missing_ok=True)
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        pass
    finally:
        if tmp:
            Path(tmp).unlink(missing_ok=True)
