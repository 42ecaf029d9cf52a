"""Every field of the design format carries a description (editors show it on hover)."""

from __future__ import annotations

from infra.models.design import Design


def undescribed(schema: dict) -> list[str]:
    """``Model.field`` for every schema property without a description.

    Examples
    --------
    >>> undescribed({"title": "M", "properties": {"a": {"type": "string"}}})
    ['M.a']
    """
    missing = [f"{schema.get('title', '?')}.{k}" for k, v in schema.get("properties", {}).items()
               if not v.get("description")]
    for name, sub in schema.get("$defs", {}).items():
        missing += [f"{name}.{k}" for k, v in sub.get("properties", {}).items()
                    if not v.get("description")]
    return missing


def test_every_design_field_has_a_description():
    assert undescribed(Design.model_json_schema()) == []


def test_committed_design_schema_carries_descriptions():
    import json

    from infra.models.schema import SCHEMA_DIR

    schema = json.loads((SCHEMA_DIR / "design.schema.json").read_text(encoding="utf-8"))
    assert undescribed(schema) == []
    assert "switches_per_rack" in json.dumps(schema["$defs"]["TierSpec"])
