"""The catalog of hardware *types*: one YAML file per part under ``catalogs/``.

Examples
--------
>>> from infra.models.catalog import load_catalog
>>> cat = load_catalog()
>>> cat.get("nvidia-b200-gb200").hbm_gib
186.0
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ValidationError

from infra.errors import CatalogError, InfraError, describe_value, did_you_mean
from infra.models.parts import (
    Cable,
    Cpu,
    Gpu,
    NetworkSwitch,
    Nic,
    NvlinkSwitchChip,
    NvlinkSwitchTray,
    Optic,
    Part,
    PcieSwitch,
    Superchip,
)
from infra.models.ml_parts import ModelArch, TrainingFramework
from infra.models.perf_parts import CollectiveModel
from infra.models.storage_parts import StorageSystem
from infra.models.systems import (
    ComputeTray,
    CoolingUnit,
    GenericUnit,
    Pdu,
    PowerShelf,
    Rack,
)
from infra.models.catalog_types import Catalog  # re-exported: the type lives apart from the loader
from infra.models.expand import check_catalog_references
from infra.models.yamlio import line_of, read_yaml

KIND_MODELS: dict[str, type[Part]] = {
    m.model_fields["kind"].default: m
    for m in (
        Gpu,
        Cpu,
        Superchip,
        Nic,
        PcieSwitch,
        NvlinkSwitchChip,
        NvlinkSwitchTray,
        NetworkSwitch,
        Optic,
        Cable,
        ComputeTray,
        Rack,
        PowerShelf,
        Pdu,
        CoolingUnit,
        GenericUnit,
        CollectiveModel,
        ModelArch,
        TrainingFramework,
        StorageSystem,
    )
}

DEFAULT_CATALOG_DIR = Path(__file__).resolve().parents[2] / "catalogs"
SKIP_DIRS = {"prices", "rates"}


def catalog_dirs(directory: Path | str | Iterable[Path | str] | None = None) -> tuple[str, ...]:
    """The catalog directories to load, in order.

    ``directory`` may be one path, a string of paths joined by ``os.pathsep`` (as
    ``$INFRA_CATALOG`` holds them) or a sequence of paths (``--catalog`` given several
    times); None or empty: ``$INFRA_CATALOG`` if set, else the repository's ``catalogs/``.

    Examples
    --------
    >>> catalog_dirs(["a", "b"])
    ('a', 'b')
    >>> catalog_dirs("a" + os.pathsep + "b")
    ('a', 'b')
    """
    if directory is None or (not isinstance(directory, (str, Path)) and not directory):
        directory = os.environ.get("INFRA_CATALOG") or str(DEFAULT_CATALOG_DIR)
    items = [directory] if isinstance(directory, (str, Path)) else list(directory)
    return tuple(str(Path(d)) for item in items for d in str(item).split(os.pathsep) if d)


def catalog_dir() -> Path:
    """The first catalog directory (``$INFRA_CATALOG``'s first entry if set, else the
    repository's ``catalogs/``): where the default prices and rates live."""
    return Path(catalog_dirs()[0])


def validation_error(
    exc: ValidationError, file: Path, error_cls: type[InfraError], prefix: tuple = ()
) -> InfraError:
    """Turn pydantic's error into one message with the YAML path and line."""
    err = exc.errors()[0]
    loc = prefix + tuple(p for p in err["loc"] if not _is_union_tag(p))
    msg = _plain(err["msg"])
    if err["type"] == "extra_forbidden":
        msg = f"unknown key {describe_value(str(loc[-1]), 40)}"
        hint = "remove it or fix its spelling; unknown keys are not allowed"
    elif err["type"] == "missing":
        hint = "add this required key"
    else:
        hint = f"got {describe_value(err.get('input'))}"
        why = _bound_why(err, loc)
        if why:
            hint += f"; the bound is physical: {why}"
    more = len(exc.errors()) - 1
    if more:
        msg += f" (and {more} more error{'s' if more > 1 else ''})"
    return error_cls(msg, file=str(file), path=loc, line=line_of(file, loc), hint=hint)


def _bound_why(err: dict, loc: tuple) -> str | None:
    """Why a field's upper bound is what it is (:data:`~infra.models.base.PHYSICAL_MAX`),
    when the error is that bound's."""
    from infra.models.base import physical_bound

    if err["type"] != "less_than_equal" or not loc or not isinstance(loc[-1], str):
        return None
    limit = (err.get("ctx") or {}).get("le")
    kind = int if isinstance(limit, int) else float
    found = physical_bound(loc[-1], kind)
    return found[1] if found and found[0] == limit else None


def _plain(msg: str) -> str:
    """pydantic's wording without Python class names ("instance of RackLayout")."""
    return re.sub(r"(?:a valid dictionary or )?instance of [A-Z]\w*", "a mapping", msg)


def _is_union_tag(part: object) -> bool:
    return isinstance(part, str) and (part.startswith("function-") or "[" in part)


def parse_entry(data: object, file: Path, *, check_name: bool = True) -> Part:
    """Validate one catalog entry read from ``file``; ``check_name``: its slug must be the
    file's stem (every file of a catalog directory; not an override file)."""
    if not isinstance(data, dict):
        raise CatalogError("a catalog file must be a YAML mapping", file=str(file), line=1)
    kind = data.get("kind")
    model = KIND_MODELS.get(kind) if isinstance(kind, str) else None
    if model is None:
        raise CatalogError(
            f"unknown kind {kind!r}",
            file=str(file),
            path=("kind",),
            line=line_of(file, ("kind",)),
            hint=did_you_mean(str(kind), KIND_MODELS),
        )
    try:
        entry = model.model_validate(data)
    except ValidationError as exc:
        raise validation_error(exc, file, CatalogError) from None
    if check_name and entry.slug != file.stem:
        raise CatalogError(
            f"slug {entry.slug!r} does not match the file name {file.name!r}",
            file=str(file),
            path=("slug",),
            line=line_of(file, ("slug",)),
            hint=f"rename the file to {entry.slug}.yaml or change the slug",
        )
    return entry


def _catalog_files(directories: tuple[str, ...]) -> list[Path]:
    files = []
    for directory in directories:
        root = Path(directory)
        if not root.is_dir():
            raise CatalogError("catalog directory not found", file=directory,
                               hint="set INFRA_CATALOG or pass --catalog")
        files += [f for f in sorted(root.rglob("*.yaml"))
                  if not SKIP_DIRS & set(f.relative_to(root).parts[:-1])]
    return files


@lru_cache(maxsize=4)
def _load(directories: tuple[str, ...]) -> Catalog:
    from infra.models.catalog_cache import cached

    files = _catalog_files(directories)
    return cached(files, lambda: _build(files, directories))


def _build(paths: list[Path], directories: tuple[str, ...]) -> Catalog:
    entries: dict[str, Part] = {}
    files: dict[str, Path] = {}
    for file in paths:
        entry = parse_entry(read_yaml(file, CatalogError), file)
        if entry.slug in entries:
            raise CatalogError(
                f"slug {entry.slug!r} is defined twice: in {files[entry.slug]} and in {file}",
                file=str(file), path=("slug",), line=line_of(file, ("slug",)),
                hint="give your part its own slug (and file name) rather than shadowing "
                     "a shipped one, or drop one of the two files")
        entries[entry.slug] = entry
        files[entry.slug] = file
    if not entries:
        raise CatalogError("catalog directory has no catalog files (*.yaml parts)",
                           file=os.pathsep.join(directories),
                           hint="point --catalog or INFRA_CATALOG at a catalog")
    catalog = Catalog(entries, files)
    check_catalog_references(catalog)
    return catalog


def load_catalog(directory: Path | str | Iterable[Path | str] | None = None) -> Catalog:
    """Load and cross-check every catalog file of one or several directories (cached).

    Cached in process, and across runs by :mod:`infra.models.catalog_cache` (keyed by
    the files' contents; ``INFRA_CATALOG_CACHE=off`` disables it).

    Several directories (see :func:`catalog_dirs`) are loaded together: a user's own
    parts beside the shipped ones. A slug defined in two files is a
    :class:`~infra.errors.CatalogError` naming both.
    """
    return _load(catalog_dirs(directory))


def load_override(path: Path | str, kind: str, catalog: Catalog | None = None) -> Part:
    """One catalog entry of ``kind`` from a file outside the catalog directories, to replace
    the entry of the same slug (a site's calibrated collective model, which
    ``infra diff --calibrate`` writes as ``<slug>.calibrated.yaml``: any file name).

    Raises
    ------
    CatalogError
        With the file and line: unreadable or malformed file, another kind, and (given
        ``catalog``) a slug the catalog does not have as ``kind``.
    """
    file = Path(path)
    data = read_yaml(file, CatalogError)
    if isinstance(data, dict) and data.get("kind") != kind:
        raise CatalogError(
            f"{data.get('kind')!r}, expected {kind}",
            file=str(file), path=("kind",), line=line_of(file, ("kind",)) or 1,
            hint=f"an override file holds one catalog entry of kind {kind} with the slug of the "
                 "entry it replaces",
        )
    entry = parse_entry(data, file, check_name=False)
    if catalog is not None and (entry.slug not in catalog
                                or catalog.get(entry.slug).kind != kind):
        raise CatalogError(
            f"{kind} {entry.slug!r} is not in the catalog: an override replaces the entry of "
            "the same slug",
            file=str(file), path=("slug",), line=line_of(file, ("slug",)),
            hint=did_you_mean(entry.slug, [e.slug for e in catalog.of_kind(kind)])
            + "; `infra catalog list` shows all",
        )
    return entry


def with_overrides(catalog: Catalog, paths: Iterable[Path | str], kind: str
                   ) -> tuple[Catalog, tuple[Part, ...]]:
    """``catalog`` with the entries of ``paths`` (see :func:`load_override`) in place of the
    entries of the same slug, and those entries; the files of the replaced slugs become
    the override files. Two files overriding one slug are a :class:`CatalogError`."""
    entries: dict[str, Part] = {}
    files: dict[str, Path] = {}
    for path in paths:
        entry = load_override(path, kind, catalog)
        if entry.slug in entries:
            raise CatalogError(
                f"{kind} {entry.slug!r} is overridden twice: by {files[entry.slug]} and by {path}",
                file=str(path), path=("slug",), line=line_of(Path(path), ("slug",)),
                hint="pass one file per slug")
        entries[entry.slug] = entry
        files[entry.slug] = Path(path)
    if not entries:
        return catalog, ()
    out = catalog.with_parts(entries.values())
    out.files = {**catalog.files, **files}
    return out, tuple(entries.values())


def entry_as_dict(entry: BaseModel) -> dict:
    return entry.model_dump(mode="json", exclude_none=True)
