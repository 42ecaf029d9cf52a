"""JSON Schemas of the design and catalog formats (for editor autocompletion).

``python -m infra.models.schema`` rewrites ``schemas/*.json``; a test fails when the
committed files are stale.
"""

from __future__ import annotations

import json
from pathlib import Path

from infra.models.catalog import KIND_MODELS
from infra.models.design import Design

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "schemas"


def schemas() -> dict[str, dict]:
    """File name -> JSON Schema."""
    out = {"design.schema.json": state_bounds(Design.model_json_schema())}
    for kind, model in sorted(KIND_MODELS.items()):
        out[f"catalog-{kind}.schema.json"] = state_bounds(model.model_json_schema())
    return out


def state_bounds(schema: dict) -> dict:
    """Append each physical upper bound and why (:data:`~infra.models.base.PHYSICAL_MAX`)
    to its property's description, so an editor's hover says it (in place; returned).

    Examples
    --------
    >>> s = {"properties": {"max_kw": {"description": "The envelope, kW.",
    ...                                "maximum": 10000000.0, "type": "number"}}}
    >>> state_bounds(s)["properties"]["max_kw"]["description"][:40]
    'The envelope, kW. At most 10,000,000 (10'
    """
    from infra.models.base import physical_bound

    def bound_of(prop: dict) -> tuple[float, type] | None:
        for branch in [prop, *prop.get("anyOf", [])]:
            if "maximum" in branch:
                return branch["maximum"], int if branch.get("type") == "integer" else float
        return None

    for model in [schema, *schema.get("$defs", {}).values()]:
        for name, prop in model.get("properties", {}).items():
            found = bound_of(prop)
            rule = found and physical_bound(name, found[1])
            if rule and rule[0] == found[0] and "At most" not in prop.get("description", ""):
                text = f"At most {found[0]:,.10g} ({rule[1]})."
                prop["description"] = f"{prop.get('description', '').rstrip()} {text}".strip()
    return schema


def render(schema: dict) -> str:
    return json.dumps(schema, indent=1, sort_keys=True) + "\n"


def write_schemas(directory: Path = SCHEMA_DIR) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, schema in schemas().items():
        path = directory / name
        path.write_text(render(schema), encoding="utf-8")
        paths.append(path)
    return paths


if __name__ == "__main__":  # pragma: no cover
    for p in write_schemas():
        print(p)
