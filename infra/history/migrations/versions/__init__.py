"""Alembic revisions, one file each (``0001_initial.py`` ...)."""
