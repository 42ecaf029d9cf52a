"""Atomic, reproducible file writes: a failed run never leaves a half-written report.

- The report is written to a hidden temporary file beside its target
  (``.NAME.<pid>.<random>.tmp``) and renamed into place (atomic on POSIX).
- The file gets the permissions of a normally created file (``0666 & ~umask``, so
  0644 under umask 022), not ``mkstemp``'s 0600.
- Temporary files left by a killed run (their process is gone, or an old-style name
  older than an hour) are removed the next time the same report is written.
- Only a regular file is ever replaced: a target that is a symbolic link, a directory, a
  device node (``/dev/null``), a FIFO or a socket is refused (``InfraError``, exit 2,
  naming the path), so ``-o /dev/null`` run as root never replaces the machine's
  ``/dev/null``. Standard output is reached only through an explicit ``-``, which the
  commands handle before they get here. With ``root=`` (the output directory), the
  directories between it and the file must not be symbolic links: a report never lands
  outside the output directory the user named.
- ``.xlsx`` files (zip archives) are made byte-reproducible: every member gets the
  same timestamp and the workbook's created/modified properties are pinned, to
  ``SOURCE_DATE_EPOCH`` when set (reproducible-builds.org), else 2000-01-01.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import stat
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

STALE_SECONDS = 3600  # a temporary file without a known owner is stale after an hour
_FIXED_EPOCH = 946684800  # 2000-01-01T00:00:00Z


def reproducible_time() -> dt.datetime:
    """``SOURCE_DATE_EPOCH`` (UTC) when set and valid, else 2000-01-01T00:00:00Z.

    Examples
    --------
    >>> os.environ.pop("SOURCE_DATE_EPOCH", None) and None
    >>> reproducible_time().isoformat()
    '2000-01-01T00:00:00+00:00'
    """
    raw = os.environ.get("SOURCE_DATE_EPOCH", "")
    try:
        epoch = int(raw)
        return dt.datetime.fromtimestamp(max(epoch, 315532800), dt.timezone.utc)  # zip >= 1980
    except (ValueError, OverflowError, OSError):
        return dt.datetime.fromtimestamp(_FIXED_EPOCH, dt.timezone.utc)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _cleanup_stale(path: Path) -> None:
    pattern = re.compile(rf"^\.{re.escape(path.name)}\.(?:(\d+)\.)?[^.]+\.tmp$")
    try:
        names = os.listdir(path.parent)
    except OSError:
        return
    now = time.time()
    for name in names:
        m = pattern.match(name)
        if not m:
            continue
        stale_file = path.parent / name
        try:
            if m.group(1):
                pid = int(m.group(1))
                if pid == os.getpid() or _alive(pid):
                    continue
            elif now - stale_file.stat().st_mtime < STALE_SECONDS:
                continue
            stale_file.unlink()
        except OSError:
            continue


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True
    return True


def os_reason(path: Path, exc: OSError) -> str:
    """Why writing ``path`` failed, in words: a file in the way of its directory is named."""
    import errno

    if exc.errno in (errno.EEXIST, errno.ENOTDIR):
        for parent in Path(path).parents:
            if os.path.lexists(parent):
                if not parent.is_dir():
                    return f"{parent} is not a directory"
                break
    return exc.strerror or str(exc)


def _cannot_write(path: Path, why: str):
    from infra.errors import InfraError

    return InfraError(f"cannot write {path}: {why}",
                      hint="choose an output directory you can write to (-o DIR)")


def check_target(path: Path) -> None:
    """Refuse an output ``path`` that exists and is not a regular file.

    A symbolic link (even one to a regular file: the write would land where the link
    points), a directory, a device node, a FIFO or a socket is refused with the reason.

    Examples
    --------
    >>> check_target(Path("/dev/null"))
    Traceback (most recent call last):
    ...
    infra.errors.InfraError: cannot write /dev/null: it is a character device, not a regular file; refusing to replace it (write to a regular file path, or use '-' for standard output where the command offers it)
    """
    path = Path(path)
    st = _lstat(path, path)
    if st is None:
        return
    mode = st.st_mode
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise _cannot_write(path, "it is a directory")
    if stat.S_ISLNK(mode):
        raise _refuse(path, "it is a symbolic link; refusing to write through it")
    kind = ("a character device" if stat.S_ISCHR(mode) else
            "a block device" if stat.S_ISBLK(mode) else
            "a FIFO" if stat.S_ISFIFO(mode) else
            "a socket" if stat.S_ISSOCK(mode) else "not a file")
    raise _refuse(path, f"it is {kind}, not a regular file; refusing to replace it")


def _lstat(p: Path, written: Path):
    """``os.lstat(p)``, None where nothing is there yet; another failure is one that
    stops writing ``written``."""
    try:
        return os.lstat(p)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise _cannot_write(written, exc.strerror or str(exc)) from None


def _refuse(path: Path, why: str, hint: str | None = None):
    from infra.errors import InfraError

    return InfraError(f"cannot write {path}: {why}",
                      hint=hint or "write to a regular file path, or use '-' for standard "
                                   "output where the command offers it")


def check_inside(path: Path, root: Path) -> None:
    """The directories from ``root`` down to ``path``'s parent are real directories
    (or do not exist yet), never symbolic links that could lead out of ``root``."""
    try:
        rel = Path(os.path.relpath(path.parent, root))
    except ValueError:
        rel = None
    if rel is None or rel.parts[:1] == ("..",) or rel.is_absolute():
        from infra.errors import InfraError

        raise InfraError(f"cannot write {path}: it is outside the output directory {root}")
    here = Path(root)
    for part in rel.parts:
        if part == ".":
            continue
        here = here / part
        st = _lstat(here, path)
        if st is None:
            return
        if stat.S_ISLNK(st.st_mode):
            raise _refuse(here, f"it is a symbolic link inside the output directory {root}; "
                                f"refusing to follow it (a report stays inside the directory)",
                          hint="remove the link, or choose another output directory (-o DIR)")
        if not stat.S_ISDIR(st.st_mode):
            raise _cannot_write(path, f"{here} is not a directory")


def check_targets(paths, root: Path | None = None) -> None:
    """Check every output of a run before the first is written (issue 31, F1): each
    ``path`` is refused as :func:`write_atomic` would refuse it (not a regular file,
    outside ``root`` or through a symbolic link in it), and so is one whose nearest
    existing ancestor is not a directory. A run that cannot write one of its reports
    writes none of them."""
    for path in map(Path, paths):
        if root is not None:
            check_inside(path, Path(root))
        check_target(path)
        for parent in path.parents:
            st = _lstat(parent, path)
            if st is None:
                continue
            if not stat.S_ISDIR(st.st_mode) and not (stat.S_ISLNK(st.st_mode) and parent.is_dir()):
                raise _cannot_write(path, f"{parent} is not a directory")
            break


def write_atomic(path: Path, write: Callable[[Path], None], *,
                 root: Path | None = None) -> Path:
    """Call ``write(tmp)`` on a temporary file beside ``path``, then rename it into place.

    The rename is atomic on POSIX; on any exception the temporary file is removed and
    ``path`` is left as it was. Only a regular file is replaced (:func:`check_target`);
    with ``root``, ``path`` must lie inside it without passing a symbolic link.

    Raises
    ------
    InfraError
        The directory cannot be created or written, ``path`` exists and is not a regular
        file (a directory, symbolic link, device, FIFO or socket), or ``path`` would leave
        ``root``.
    """
    path = Path(path)
    if root is not None:
        check_inside(path, Path(root))
    check_target(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _cleanup_stale(path)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp",
                                        dir=path.parent)
    except OSError as exc:
        raise _cannot_write(path, os_reason(path, exc)) from None
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        write(tmp)
        if path.suffix.lower() == ".xlsx":
            make_zip_reproducible(tmp)
        os.chmod(tmp, 0o666 & ~_umask())
        check_target(path)  # again, just before the rename: the window stays short
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        why = "it is a directory" if path.is_dir() else (exc.strerror or str(exc))
        raise _cannot_write(path, why) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def write_text_atomic(path: Path, text: str, *, root: Path | None = None) -> Path:
    return write_atomic(path, lambda p: p.write_text(text, encoding="utf-8"), root=root)


STORED_SUFFIXES = (".png", ".jpeg", ".jpg", ".gif")


def save_workbook(wb, path: Path) -> None:
    """Save an openpyxl workbook for :func:`write_atomic`, reproducibly in one pass.

    Every member gets the fixed time and the core properties are pinned as it is
    written (:class:`ReproducibleZip`), PNGs stored (they are compressed already), so
    :func:`make_zip_reproducible` finds nothing to rewrite. Streamed table sheets
    (:mod:`infra.reports.xlsx_stream`) get their rows spliced in.
    """
    from datetime import datetime, timezone

    from infra.reports.cellsafe import defuse
    from infra.reports.xlsx_stream import StreamingExcelWriter

    defuse(wb)  # text from the inputs never becomes a formula (CSV/formula injection)
    with ReproducibleZip(path, "w", zipfile.ZIP_DEFLATED, allowZip64=True) as archive:
        wb.properties.modified = datetime.now(timezone.utc).replace(tzinfo=None)  # as openpyxl
        StreamingExcelWriter(wb, archive).write_data()


_CORE_TIMES = re.compile(rb"(<dcterms:(created|modified)[^>]*>)[^<]*(</dcterms:\2>)")
CORE = "docProps/core.xml"


class ReproducibleZip(zipfile.ZipFile):
    """A zip whose members are written with fixed times and pinned core times.

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "a.zip"
    >>> with ReproducibleZip(p, "w") as z:
    ...     z.writestr("docProps/core.xml", "<dcterms:created x='1'>2031-01-01</dcterms:created>")
    >>> with zipfile.ZipFile(p) as z:
    ...     z.read("docProps/core.xml"), z.infolist()[0].date_time
    (b"<dcterms:created x='1'>2000-01-01T00:00:00Z</dcterms:created>", (2000, 1, 1, 0, 0, 0))
    """

    def writestr(self, zinfo_or_arcname, data, compress_type=None, compresslevel=None):
        name = getattr(zinfo_or_arcname, "filename", zinfo_or_arcname)
        if isinstance(data, str):
            data = data.encode("utf-8")
        when = reproducible_time()
        if name == CORE:
            stamp = when.strftime("%Y-%m-%dT%H:%M:%SZ").encode()
            data = _CORE_TIMES.sub(lambda m: m.group(1) + stamp + m.group(3), data)
        super().writestr(_fixed_info(name, when.timetuple()[:6]), data)

    def write(self, filename, arcname=None, compress_type=None, compresslevel=None):
        self.writestr(arcname or Path(filename).name, Path(filename).read_bytes())


def _fixed_info(name: str, date_time: tuple) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=date_time)
    # images are compressed already: deflating them again costs time, saves ~1 %
    info.compress_type = (zipfile.ZIP_STORED if name.lower().endswith(STORED_SUFFIXES)
                          else zipfile.ZIP_DEFLATED)
    info.external_attr = 0o644 << 16
    return info


def make_zip_reproducible(path: Path) -> None:
    """Rewrite a zip (an xlsx) in place with fixed member times and pinned core times;
    one written by :class:`ReproducibleZip` is left as it is.

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "a.zip"
    >>> with zipfile.ZipFile(p, "w") as z:
    ...     z.writestr("docProps/core.xml", "<dcterms:created x='1'>2031-01-01</dcterms:created>")
    >>> make_zip_reproducible(p)
    >>> with zipfile.ZipFile(p) as z:
    ...     z.read("docProps/core.xml"), z.infolist()[0].date_time
    (b"<dcterms:created x='1'>2000-01-01T00:00:00Z</dcterms:created>", (2000, 1, 1, 0, 0, 0))
    """
    if _is_reproducible(path):
        return
    with zipfile.ZipFile(path) as src:
        members = [(info, src.read(info)) for info in src.infolist()]
    with ReproducibleZip(path, "w") as dst:
        for info, data in members:
            dst.writestr(info.filename, data)


def _is_reproducible(path: Path) -> bool:
    """Every member as :func:`_fixed_info` makes it, and the core times pinned."""
    when = reproducible_time()
    date_time = when.timetuple()[:6]
    with zipfile.ZipFile(path) as z:
        for info in z.infolist():
            want = _fixed_info(info.filename, date_time)
            if (info.date_time, info.compress_type, info.external_attr) != (
                    want.date_time, want.compress_type, want.external_attr):
                return False
        if CORE in z.namelist():
            stamp = when.strftime("%Y-%m-%dT%H:%M:%SZ").encode()
            return all(m.group(0) == m.group(1) + stamp + m.group(3)
                       for m in _CORE_TIMES.finditer(z.read(CORE)))
    return True
