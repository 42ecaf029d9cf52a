"""Opening the history database: URLs, the schema revision, Alembic upgrades, times.

URLs: ``sqlite:///PATH`` (or a plain file path), ``postgresql://user@host/db`` (driven by
psycopg 3: ``pip install 'infra[postgres]'``). Default: ``$INFRA_DB``, else ``infra.db``
beside the design for commands that take one, else in the working directory.

Examples
--------
>>> normalize_url("fleet.db")
'sqlite:///fleet.db'
>>> normalize_url("postgresql://ops@db.example/infra")
'postgresql+psycopg://ops@db.example/infra'
>>> to_ts("2025-03-01T12:00:00Z"), iso(to_ts("2025-03-01"))
(1740830400, '2025-03-01T00:00:00Z')
>>> iso(to_ts("2025-03-01", end_of_day=True))
'2025-03-01T23:59:59Z'
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import os
import re
from collections.abc import Iterator
from pathlib import Path

from infra.errors import InfraError

ENV_VAR = "INFRA_DB"
DEFAULT_FILE = "infra.db"
MIGRATIONS = Path(__file__).resolve().parent / "migrations"


class HistoryError(InfraError):
    """The history database cannot be opened or used, or its input is malformed."""


def normalize_url(url: str) -> str:
    """A SQLAlchemy URL: plain paths become SQLite, ``postgresql://`` uses psycopg 3."""
    url = url.strip()
    if "://" not in url:
        return f"sqlite:///{url}"
    if url.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


def default_url(design: Path | str | None = None) -> str:
    """``$INFRA_DB``, else ``infra.db`` beside ``design``, else in the working directory."""
    if os.environ.get(ENV_VAR):
        return os.environ[ENV_VAR]
    where = Path(design).resolve().parent if design else Path.cwd()
    return f"sqlite:///{where / DEFAULT_FILE}"


def safe_url(url: str) -> str:
    """``url`` with any password hidden (for messages and reports)."""
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", url)


def engine_for(url: str, *, create: bool = False):
    """An engine for ``url``. A SQLite file that does not exist is an error unless
    ``create`` (a read must never leave an empty database behind)."""
    from sqlalchemy import create_engine, event
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError

    full = normalize_url(url)
    if full.startswith("sqlite:///") and not create:
        path = full.removeprefix("sqlite:///").split("?", 1)[0]
        if path and path != ":memory:" and not Path(path).exists():
            raise HistoryError("no history database here", file=path,
                               hint="record a snapshot first (`infra history record`), or "
                                    f"give the URL of an existing database (--db, ${ENV_VAR})")
    if full.startswith("sqlite:///"):
        parent = Path(full.removeprefix("sqlite:///").split("?", 1)[0]).parent
        if create and not parent.is_dir():
            raise HistoryError("the directory for the database does not exist",
                               file=str(parent), hint="create it or pass another --db")
    try:
        eng = create_engine(full)
    except NoSuchModuleError as exc:
        raise HistoryError(f"unknown database URL scheme: {exc}", file=safe_url(url),
                           hint="use sqlite:///PATH or postgresql://USER@HOST/DB") from None
    except ArgumentError as exc:
        raise HistoryError(f"malformed database URL: {exc}", file=safe_url(url),
                           hint="use sqlite:///PATH or postgresql://USER@HOST/DB") from None
    except ModuleNotFoundError as exc:
        raise HistoryError(f"the database driver is not installed ({exc.name})",
                           file=safe_url(url),
                           hint="pip install 'infra[postgres]' for PostgreSQL") from None
    if eng.dialect.name == "sqlite":
        @event.listens_for(eng, "connect")
        def _pragmas(dbapi_conn, _record):  # noqa: ANN001
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.close()
    return eng


def _alembic_config(conn):
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["connection"] = conn
    return cfg


def head_revision() -> str:
    from alembic.script import ScriptDirectory

    cfg = _alembic_config(None)
    return ScriptDirectory.from_config(cfg).get_current_head()


def current_revision(conn) -> str | None:
    from alembic.runtime.migration import MigrationContext

    return MigrationContext.configure(conn).get_current_revision()


def upgrade(url: str) -> tuple[str | None, str]:
    """Run every pending migration on ``url`` (creating a SQLite file); returns the
    revision before and after."""
    from alembic import command

    eng = engine_for(url, create=True)
    with _operational(url):
        with eng.begin() as conn:
            before = current_revision(conn)
            command.upgrade(_alembic_config(conn), "head")
            after = current_revision(conn)
    eng.dispose()
    return before, after


@contextlib.contextmanager
def _operational(url: str) -> Iterator[None]:
    """Connection failures (server down, wrong password, locked file) as HistoryError."""
    from sqlalchemy.exc import OperationalError, ProgrammingError

    try:
        yield
    except (OperationalError, ProgrammingError) as exc:
        detail = str(getattr(exc, "orig", exc)).strip().splitlines()[0][:300]
        raise HistoryError(f"database error: {detail}", file=safe_url(url),
                           hint="check the URL, that the server is running and that "
                                "`infra history upgrade` was run") from None


@contextlib.contextmanager
def connect(url: str, *, write: bool = False) -> Iterator:
    """A connection in one transaction (committed at the end, rolled back on error).

    ``write``: a new or empty database is created at the head revision first. A database
    behind the head revision is refused (``infra history upgrade`` migrates it)."""
    if write and _is_new(url):
        upgrade(url)
    eng = engine_for(url)
    head = head_revision()
    try:
        with _operational(url):
            with eng.begin() as conn:
                rev = current_revision(conn)
                if rev is None:
                    raise HistoryError("not an infra history database (no schema revision)",
                                       file=safe_url(url),
                                       hint="run `infra history upgrade --db URL` to create it")
                if rev != head:
                    raise HistoryError(f"schema revision {rev}, this infra needs {head}",
                                       file=safe_url(url),
                                       hint="run `infra history upgrade --db URL` (back it up first)")
                yield conn
    finally:
        eng.dispose()


def _is_new(url: str) -> bool:
    from sqlalchemy import inspect

    full = normalize_url(url)
    if full.startswith("sqlite:///"):
        path = Path(full.removeprefix("sqlite:///").split("?", 1)[0])
        if not path.exists() or path.stat().st_size == 0:
            return True
    eng = engine_for(url, create=True)
    try:
        with _operational(url), eng.connect() as conn:
            return not inspect(conn).get_table_names()
    finally:
        eng.dispose()


# ----------------------------------------------------------------------------- times
def to_ts(text: str | dt.datetime, *, end_of_day: bool = False, what: str = "time") -> int:
    """ISO 8601 -> UTC epoch seconds. No zone means UTC; a bare date means its start
    (or its last second with ``end_of_day``)."""
    if isinstance(text, dt.datetime):
        d = text
    else:
        s = str(text).strip()
        try:
            d = dt.datetime.fromisoformat(s.replace("z", "Z"))
        except ValueError:
            raise HistoryError(f"{what} {s[:40]!r} is not an ISO 8601 date or time",
                               hint="write e.g. 2025-03-01 or 2025-03-01T14:30:00Z") from None
        if end_of_day and re.fullmatch(r"\d{4}-\d{2}-\d{2}", s):
            d = d + dt.timedelta(days=1, seconds=-1)
    if d.tzinfo is None:
        d = d.replace(tzinfo=dt.timezone.utc)
    return int(d.timestamp())


@functools.lru_cache(maxsize=4096)  # a fleet's rows share a few snapshot times
def iso(ts: int | None) -> str | None:
    """UTC epoch seconds -> ``2025-03-01T00:00:00Z``."""
    if ts is None:
        return None
    return dt.datetime.fromtimestamp(ts, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def now_ts() -> int:
    return int(dt.datetime.now(dt.timezone.utc).timestamp())
