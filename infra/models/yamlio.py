"""Read YAML files fast, and find the line of a YAML path when an error needs it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from infra.errors import InfraError

try:  # libyaml is 5-10x faster when present
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on the PyYAML build
    _Loader = yaml.SafeLoader


def read_yaml(path: Path, error_cls: type[InfraError] = InfraError) -> Any:
    """Parse ``path``; missing files and syntax errors become ``error_cls``."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error_cls("file not found", file=str(path), hint="check the path") from None
    except (IsADirectoryError, PermissionError, UnicodeDecodeError) as exc:
        raise error_cls(f"cannot read file: {exc}", file=str(path)) from None
    try:
        return yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise error_cls(
            f"malformed YAML: {problem}",
            file=str(path),
            line=line,
            hint="fix the indentation or quoting on that line",
        ) from None


def line_of(path: Path, yaml_path: tuple[str | int, ...]) -> int | None:
    """1-based line of the deepest node of ``yaml_path`` that exists in ``path``."""
    try:
        node = yaml.compose(path.read_text(encoding="utf-8"), Loader=yaml.SafeLoader)
    except (OSError, yaml.YAMLError):
        return None
    line = node.start_mark.line + 1 if node is not None else None
    for key in yaml_path:
        if isinstance(node, yaml.MappingNode):
            found = None
            for k, v in node.value:
                if k.value == str(key):
                    found = (k, v)
                    break
            if found is None:
                return line
            line = found[0].start_mark.line + 1
            node = found[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int):
            if key >= len(node.value):
                return line
            node = node.value[key]
            line = node.start_mark.line + 1
        else:
            return line
    return line
