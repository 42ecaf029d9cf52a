"""Every field of the design and catalog formats carries a description (editors show it
on hover)."""

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


def test_tray_wiring_and_source_fields_have_descriptions():
    """The catalog fields a user writes a tray with: components, links, assignments, and
    the sources every entry carries (the rest of the catalog is not yet covered)."""
    from infra.models.catalog import KIND_MODELS

    tray = undescribed(KIND_MODELS["compute_tray"].model_json_schema())
    wiring = [m for m in tray if m.split(".")[0] in
              ("TrayComponent", "TrayLink", "NicAssignment", "Source")
              or m in ("ComputeTray.components", "ComputeTray.links",
                       "ComputeTray.nic_assignments", "ComputeTray.form", "ComputeTray.u_height")]
    assert wiring == []
    for kind, model in KIND_MODELS.items():
        missing = undescribed(model.model_json_schema())
        sourced = [m for m in missing if m.split(".")[0] == model.__name__ and m.split(".")[1] in
                   ("sources", "figure_sources", "choices", "notes", "slug", "vendor", "name")]
        assert sourced == [], kind


def test_every_catalog_field_has_a_description():
    """Every property of every catalog kind's schema (nested models included)."""
    from infra.models.catalog import KIND_MODELS

    missing = {kind: undescribed(model.model_json_schema()) for kind, model in KIND_MODELS.items()}
    assert {k: v for k, v in missing.items() if v} == {}


def test_committed_catalog_schemas_carry_descriptions():
    import json

    from infra.models.catalog import KIND_MODELS
    from infra.models.schema import SCHEMA_DIR

    for kind in KIND_MODELS:
        schema = json.loads((SCHEMA_DIR / f"catalog-{kind}.schema.json").read_text(encoding="utf-8"))
        assert undescribed(schema) == [], kind
    gpu = json.loads((SCHEMA_DIR / "catalog-gpu.schema.json").read_text(encoding="utf-8"))
    assert "GB/s, per direction" in gpu["$defs"]["ScaleUpPorts"]["properties"]["link_gbyte_s"]["description"]
    nic = json.loads((SCHEMA_DIR / "catalog-nic.schema.json").read_text(encoding="utf-8"))
    assert "integrated" in nic["properties"]["role"]["description"]
