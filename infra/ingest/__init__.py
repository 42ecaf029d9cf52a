"""Live-inventory ingest: pure parsers of tool dumps, the as-built model, and the diff.

Layer: beside analyses (may import models, topology and analysis; never reports or the
CLI). Every reader takes a path and returns frozen dataclasses; bad input raises
:class:`infra.ingest.base.InventoryError` (an :class:`infra.errors.InfraError`, exit 2)
naming the file.
"""
