"""Starter designs: copy a shipped design under a new name (``infra new``).

Examples
--------
>>> import tempfile
>>> out = Path(tempfile.mkdtemp()) / "my_nvl72.yaml"
>>> new_design("my_nvl72", "gb200_nvl72", out).name
'my_nvl72.yaml'
>>> out.read_text().count("name: my_nvl72")
1
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path

from infra.errors import DesignError, did_you_mean

DESIGNS_DIR = Path(__file__).resolve().parents[2] / "designs"
_NAME_LINE = re.compile(r"^name:.*$", re.M)
_SLUG = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")


def shipped_designs(directory: Path = DESIGNS_DIR) -> list[str]:
    """Stems of the shipped designs, e.g. ``gb200_nvl72``."""
    return sorted(p.stem for p in directory.glob("*.yaml"))


def template_file(template: str, directory: Path = DESIGNS_DIR) -> Path:
    """The design file ``template`` names: a path to a ``.yaml`` file or a shipped stem."""
    return _source(template, directory)


def _source(template: str, directory: Path) -> Path:
    path = Path(template)
    if path.suffix in (".yaml", ".yml") and path.is_file():
        return path
    shipped = directory / f"{template}.yaml"
    if shipped.is_file():
        return shipped
    names = shipped_designs(directory)
    raise DesignError(f"no shipped design {template!r} ({did_you_mean(template, names)})",
                      hint=f"use one of: {', '.join(names)}, or a path to a design file")


NAME_RULE = ("a design name: a letter or digit, then letters, digits, '_', '-' or '.', "
             "at most 100 characters (e.g. my_nvl72)")


def check_name(name: str) -> str:
    """``name`` if it is a design name ``infra new`` accepts (it is also the file stem).

    Examples
    --------
    >>> check_name("my_nvl72")
    'my_nvl72'
    >>> check_name("../x")
    Traceback (most recent call last):
    ...
    infra.errors.DesignError: NAME: '../x' is not a design name (a design name: a letter or digit, then letters, digits, '_', '-' or '.', at most 100 characters (e.g. my_nvl72); write to another place with -o FILE)
    """
    from infra.errors import describe_value

    if not _SLUG.fullmatch(name or ""):
        raise DesignError(f"{describe_value(name)} is not a design name", path="NAME",
                          hint=f"{NAME_RULE}; write to another place with -o FILE")
    if name.lower().endswith((".yaml", ".yml")):
        raise DesignError(f"{name!r} is a file name, not a design name", path="NAME",
                          hint=f"drop the suffix: infra new {name.rsplit('.', 1)[0]} "
                               "(the file is NAME.yaml; -o FILE for another)")
    return name


def default_output(name: str) -> Path:
    """Where ``infra new NAME`` writes without ``-o``: ``designs/NAME.yaml``."""
    return Path("designs") / f"{check_name(name)}.yaml"


def starter_text(name: str, template: str, *, directory: Path = DESIGNS_DIR
                 ) -> tuple[str, Path]:
    """The starter design's text and its template file.

    The name line is written so that YAML reads it back as this string (``yes``,
    ``null``, ``1.5`` are quoted), and the copy is read back to check that only the name
    changed. ``infra new`` validates the template first (:func:`template_file`), so the
    starter validates too.
    """
    import yaml

    from infra.models.yamlio import read_yaml

    check_name(name)
    src = _source(template, directory)
    data = read_yaml(src, DesignError)
    if not isinstance(data, dict) or "build" not in data:
        raise DesignError("is not a design (a YAML mapping with 'name:', 'racks:', 'build:')",
                          file=str(src),
                          hint="--from takes a shipped design's stem or a design file")
    text = src.read_text(encoding="utf-8")
    try:
        plain = yaml.safe_load(name) == name
    except yaml.YAMLError:
        plain = False
    line = f"name: {name if plain else json.dumps(name)}"  # JSON is YAML
    text, n = _NAME_LINE.subn(lambda _: line, text, count=1)
    if n == 0:
        text = line + "\n" + text
    text = f"# Started from {src.name} by `infra new`; edit freely.\n" + text
    try:
        copy = yaml.safe_load(text)
    except yaml.YAMLError:
        copy = None
    if (not isinstance(copy, dict) or copy.get("name") != name
            or {k: v for k, v in copy.items() if k != "name"}
            != {k: v for k, v in data.items() if k != "name"}):
        raise DesignError("cannot set the design name in this template: its 'name:' is not "
                          "a one-line key at the top level", file=str(src),
                          hint="write 'name: ...' on one line at the top of the file")
    return text, src


def new_design(name: str, template: str, out: Path | str | None = None, *,
               directory: Path = DESIGNS_DIR) -> Path:
    """Write a starter design ``out`` named ``name``, copied from ``template``.

    Parameters
    ----------
    name : str
        The new design's ``name:``: a design name (:func:`check_name`), never a path.
    template : str
        A shipped design's stem (``gb200_nvl72``) or a path to a design file.
    out : Path or str, optional
        File to write (default ``designs/NAME.yaml``); never overwritten, and never
        anything but a new regular file (not through a symbolic link, not a device).

    Returns
    -------
    Path
        ``out``. The copy keeps the template's comments and starts with a line naming
        its template; only its name differs from the template (which ``infra new``
        validates first).

    Raises
    ------
    DesignError
        Not a design name, unknown or invalid template, or ``out`` already exists.
    InfraError
        ``out`` cannot be written.
    """
    out = Path(out) if out is not None else default_output(name)
    text, _ = starter_text(name, template, directory=directory)
    return _write_new(out, text)


def _write_new(out: Path, text: str) -> Path:
    """Write ``text`` to a temporary file and link it to ``out``: atomic, and fails
    rather than overwrite if ``out`` appeared meanwhile (a link, even a dangling one,
    counts as there)."""
    from infra.errors import InfraError

    def cannot(why: str) -> InfraError:
        return InfraError(f"cannot write {out}: {why}",
                          hint="choose another -o FILE in a directory you can write to")

    if os.path.lexists(out):
        if not out.is_symlink() and out.is_file():
            raise DesignError("file already exists; not overwritten", file=str(out),
                              hint="choose another NAME or --output, or delete the file first")
        from infra.reports.atomic import check_target

        check_target(out)  # a directory, link, device, FIFO: refused with what it is
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent)
    except OSError as exc:
        from infra.reports.atomic import os_reason

        raise cannot(os_reason(out, exc)) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, 0o666 & ~_umask())
        try:
            os.link(tmp, out)
        except FileExistsError:
            raise DesignError("file already exists; not overwritten", file=str(out),
                              hint="choose another NAME or --output") from None
        except OSError as exc:
            raise cannot(exc.strerror or str(exc)) from None
    except OSError as exc:
        raise cannot(exc.strerror or str(exc)) from None
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass
    return out


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


__all__ = ["check_name", "default_output", "new_design", "shipped_designs", "starter_text",
           "template_file"]
