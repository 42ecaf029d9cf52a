"""What the ``infra`` process and its commands share: the exit codes and the garbage
collector's settings for a process that runs one command.

A leaf module (it imports nothing of infra): :mod:`infra.cli.main` registers the commands,
and the commands import these from here, not from ``main`` (issue 32, item 4: no import
cycle between ``main`` and the command modules).
"""

from __future__ import annotations

EXIT_USER_ERROR = 2
# A bug: its own code, never 1, which is a result (a design-rule finding, infra diff's failed
# bring-up gate) a CI gate acts on (issue 31, N1)
EXIT_INTERNAL_ERROR = 3

_SHORT_LIVED = False  # set by short_lived_gc(): this process runs one command and exits


def freeze_long_lived() -> None:
    """In a one-command process, freeze what exists now (objects that live to the end,
    e.g. the analyses before their reports are written); elsewhere (a test runner,
    a notebook calling the command) do nothing."""
    if _SHORT_LIVED:
        import gc

        gc.freeze()


def short_lived_gc() -> None:
    """Garbage collection tuned for a process that runs one command and exits.

    A command builds a few hundred thousand long-lived objects (catalog, design, analysis,
    tables) and frees almost nothing in cycles, yet the collector's passes over them took
    about 9% of a 1,000-layout design's analysis, and the interpreter's last collection at
    exit about 0.1 s of every run. Here the objects that exist after the imports are
    frozen (never scanned again), the youngest generation is collected every 50,000
    allocations instead of 700, and everything is frozen at exit, so the final collection
    has nothing to traverse. Memory freed by reference counting is freed as before; only
    cyclic garbage waits longer. A library user (``import infra``) keeps Python's settings;
    the heaviest library calls only defer the collector while they run
    (:func:`infra.models.gcpause.gc_deferred`).
    """
    import atexit
    import gc

    global _SHORT_LIVED
    _SHORT_LIVED = True
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)
    atexit.register(gc.freeze)  # registered first, so it runs after every other handler
