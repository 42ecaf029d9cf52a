"""Alembic environment: runs on the connection :func:`infra.history.db.upgrade` passes
(no ``alembic.ini``, no URL in a file). For a new revision during development::

    alembic -c /dev/null -x url=sqlite:///dev.db revision -m "..."  # or write it by hand
"""

from __future__ import annotations

from alembic import context

from infra.history.schema import metadata



def run(config) -> None:
    connection = config.attributes.get("connection")
    if connection is None:  # pragma: no cover - only through the alembic command line
        from sqlalchemy import create_engine

        url = context.get_x_argument(as_dictionary=True).get("url", "sqlite:///infra.db")
        connection = create_engine(url).connect()
    context.configure(connection=connection, target_metadata=metadata,
                      render_as_batch=connection.dialect.name == "sqlite")
    with context.begin_transaction():
        context.run_migrations()


try:
    _config = context.config
except AttributeError:  # imported outside Alembic (test collection): nothing to run
    _config = None
if _config is not None:
    run(_config)
