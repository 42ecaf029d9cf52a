"""Print the terminal summary on a second core while the report files are written.

Rendering a summary with ``rich`` and writing a workbook are independent and both take
a few tenths of a second; run one after the other they add up. :func:`beside` prints
in a forked child while the parent writes, so a run takes the longer of the two, not
the sum. Where a fork is not safe or not possible (no ``os.fork``, threads running, or
standard output that is not a real file, as under a test runner capturing it) the two
run one after the other, summary first: the output is the same either way.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class SummaryWorkerError(RuntimeError):
    """The forked summary printer failed (a bug: it only formats)."""


def _can_fork() -> bool:
    if not hasattr(os, "fork") or threading.active_count() > 1:
        return False
    try:
        sys.stdout.fileno()
        sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is an OSError
        return False
    return True


def beside(show: Callable[[], None], work: Callable[[], T]) -> T:
    """Run ``show`` (printing only) in a forked child while ``work`` runs here.

    Parameters
    ----------
    show : callable
        Prints to standard output; computes nothing the parent needs.
    work : callable
        The work whose result is returned (writing the reports).

    Returns
    -------
    object
        ``work()``'s result, once ``show`` has finished too (its output comes first).

    Raises
    ------
    SummaryWorkerError
        When ``show`` failed in the child (after ``work`` has finished).

    Examples
    --------
    >>> beside(lambda: None, lambda: 42)
    42
    """
    if not _can_fork():
        show()
        return work()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child (covered by the subprocess tests)
        code = 0
        try:
            show()
            sys.stdout.flush()
        except BrokenPipeError:  # the reader went away (| head): nothing left to show
            pass
        except BaseException as exc:  # noqa: BLE001 - reported by the parent's exit path
            print(f"error: internal error while printing the summary: "
                  f"{type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
            code = 1
        os._exit(code)
    try:
        result = work()
    finally:
        _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status):
        raise SummaryWorkerError("the terminal summary could not be printed (see above); "
                                 "the reports were written")
    return result
