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
_PLAIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.()-]*$")


def shipped_designs(directory: Path = DESIGNS_DIR) -> list[str]:
    """Stems of the shipped designs, e.g. ``gb200_nvl72``."""
    return sorted(p.stem for p in directory.glob("*.yaml"))


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


def new_design(name: str, template: str, out: Path | str, *,
               directory: Path = DESIGNS_DIR) -> Path:
    """Write a starter design ``out`` named ``name``, copied from ``template``.

    Parameters
    ----------
    name : str
        The new design's ``name:``.
    template : str
        A shipped design's stem (``gb200_nvl72``) or a path to a design file.
    out : Path or str
        File to write; never overwritten.

    Returns
    -------
    Path
        ``out``. The copy keeps the template's comments, loads with the shipped catalog
        and starts with a line naming its template.

    Raises
    ------
    DesignError
        Unknown template, or ``out`` already exists.
    """
    out = Path(out)
    src = _source(template, directory)
    if out.exists():
        raise DesignError("file already exists; not overwritten", file=str(out),
                          hint="choose another NAME or --output, or delete the file first")
    text = src.read_text(encoding="utf-8")
    line = f"name: {name if _PLAIN.match(name) else json.dumps(name)}"  # JSON is YAML
    text, n = _NAME_LINE.subn(line.replace("\\", "\\\\"), text, count=1)
    if n == 0:
        text = line + "\n" + text
    text = f"# Started from {src.name} by `infra new`; edit freely.\n" + text
    return _write_new(out, text)


def _write_new(out: Path, text: str) -> Path:
    """Write ``text`` to a temporary file and link it to ``out``: atomic, and fails
    rather than overwrite if ``out`` appeared meanwhile."""
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        try:
            os.link(tmp, out)
        except FileExistsError:
            raise DesignError("file already exists; not overwritten", file=str(out),
                              hint="choose another NAME or --output") from None
    finally:
        os.unlink(tmp)
    return out


__all__ = ["new_design", "shipped_designs"]
