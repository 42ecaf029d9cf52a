"""Alembic migrations of the history database (``infra history upgrade``)."""
