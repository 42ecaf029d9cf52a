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
    out = {"design.schema.json": Design.model_json_schema()}
    for kind, model in sorted(KIND_MODELS.items()):
        out[f"catalog-{kind}.schema.json"] = model.model_json_schema()
    return out


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
