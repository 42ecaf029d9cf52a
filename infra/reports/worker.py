"""Report workers: processes forked before the analysis, warmed up while it runs.

Printing the terminal summary needs ``rich`` and writing a workbook needs ``openpyxl``:
together about 0.2 s of imports, more than the whole analysis of a two-rack design. A
:class:`Worker` is forked when a command starts, imports what its job needs on the second
core while the parent imports and analyses, then runs the job it is sent: the analysis'
tables arrive pickled (a few ms for a design of a few racks), the job runs, its result
or its exception comes back. A run then takes the analysis plus the longer of the jobs,
not the analysis, the imports and the jobs one after another.

Where a fork is not safe or not possible (no ``os.fork``, threads running, or standard
output that is not a real file, as under a test runner capturing it), :func:`start`
returns ``None`` and the caller does the job itself, in turn: the output is the same.
"""

from __future__ import annotations

import os
import pickle
import struct
import sys
import threading
from collections.abc import Callable
from typing import Any

_HEAD = struct.Struct("<Q")
_INBOX = None  # in a worker: the stream its jobs and their later values arrive on


class WorkerError(RuntimeError):
    """A worker died, or its job failed with an exception that could not be sent back."""


def can_fork() -> bool:
    """Whether a worker can be forked here: ``os.fork``, one thread, real stdout/stderr."""
    if not hasattr(os, "fork") or threading.active_count() > 1:
        return False
    try:
        sys.stdout.fileno()
        sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is an OSError
        return False
    return True


def start(preload: Callable[[], None] | None = None) -> Worker | None:
    """Fork a worker that runs ``preload`` (imports), then waits for jobs.

    Parameters
    ----------
    preload : callable, optional
        Run once in the worker at once, e.g. imports its jobs need. A failure here is
        not fatal: the job that follows imports what it needs itself.

    Returns
    -------
    Worker or None
        ``None`` where a fork is not possible (see :func:`can_fork`): do the job in turn.

    Examples
    --------
    >>> import operator
    >>> w = start()
    >>> if w is None:  # under a test runner capturing stdout: in turn
    ...     print(operator.add(2, 3))
    ... else:
    ...     w.submit(operator.add, 2, 3); print(w.result()); w.close()
    5
    """
    if not can_fork():
        return None
    sys.stdout.flush()
    sys.stderr.flush()
    jobs_r, jobs_w = os.pipe()
    res_r, res_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the worker (covered by the subprocess tests)
        try:  # whatever happens (Ctrl-C included), never return into the parent's code
            os.close(jobs_w)
            os.close(res_r)
            _serve(jobs_r, res_w, preload)
        finally:
            os._exit(1)
    os.close(jobs_r)
    os.close(res_w)
    return Worker(pid, os.fdopen(jobs_w, "wb"), os.fdopen(res_r, "rb"))


class Worker:
    """A forked worker: :meth:`submit` a job, :meth:`send` it later values, :meth:`result`."""

    def __init__(self, pid: int, jobs, results) -> None:
        self.pid, self._jobs, self._results = pid, jobs, results

    def submit(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        """Start ``fn(*args, **kwargs)`` in the worker (``fn``: a module-level function)."""
        self.send((fn, args, kwargs))

    def send(self, value: Any) -> None:
        """Send a value the running job reads with :meth:`Later.get`."""
        _write(self._jobs, value)

    def result(self) -> Any:
        """The job's return value; its exception is raised here."""
        try:
            status, value = _read(self._results)
        except (EOFError, OSError) as exc:
            raise WorkerError(f"a report worker died ({type(exc).__name__})") from None
        except Exception as exc:  # noqa: BLE001 - a result that does not unpickle here
            raise WorkerError(f"a report worker's result could not be read: {exc}") from None
        if status == "err":
            raise value
        return value

    def close(self) -> None:
        """No more jobs: the worker exits; wait for it."""
        if self.pid is None:
            return
        pid, self.pid = self.pid, None
        for stream in (self._jobs, self._results):
            try:
                stream.close()
            except OSError:  # the worker is gone already (a broken pipe)
                pass
        os.waitpid(pid, 0)

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Later:
    """A value a worker's job receives after it started (e.g. diagrams rendered meanwhile).

    ``bool()`` is known when the job is sent; :meth:`get` (or iterating) waits for the
    parent's :meth:`Worker.send`.
    """

    def __init__(self, truthy: bool) -> None:
        self.truthy = truthy
        self._value: Any = None
        self._got = False

    def __bool__(self) -> bool:
        return self.truthy

    def get(self) -> Any:
        if not self._got:
            if _INBOX is None:
                raise WorkerError("Later.get() outside a report worker")
            self._value, self._got = _read(_INBOX), True
        return self._value

    def __iter__(self):
        return iter(self.get())

    def __len__(self) -> int:
        return len(self.get())


def _serve(jobs_r: int, res_w: int, preload) -> None:  # pragma: no cover - in the worker
    global _INBOX
    try:
        if preload is not None:
            preload()
    except Exception:  # noqa: BLE001 - the job imports what it needs itself
        pass
    _INBOX = jobs = os.fdopen(jobs_r, "rb")
    results = os.fdopen(res_w, "wb")
    code = 0
    while True:
        try:
            fn, args, kwargs = _read(jobs)
        except (EOFError, OSError):  # the parent is done (or gone)
            break
        try:
            out = ("ok", fn(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - sent back, raised by the parent
            out = ("err", exc)
        try:
            body = pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL)
            if out[0] == "err":
                pickle.loads(body)  # an exception the parent could not rebuild
        except Exception as exc:  # noqa: BLE001 - sent as its text instead
            body = pickle.dumps(("err", WorkerError(
                f"{type(out[1]).__name__}: {out[1]} (not sendable: {exc})")))
        try:
            _frame(results, body)
        except OSError:  # the parent is gone (a broken pipe)
            code = 1
            break
    os._exit(code)


def _write(stream, value: Any) -> None:
    _frame(stream, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))


def _frame(stream, body: bytes) -> None:
    stream.write(_HEAD.pack(len(body)))
    stream.write(body)
    stream.flush()


def _read(stream) -> Any:
    head = stream.read(_HEAD.size)
    if len(head) < _HEAD.size:
        raise EOFError("no more messages")
    size = _HEAD.unpack(head)[0]
    body = stream.read(size)
    if len(body) < size:
        raise EOFError("a message was cut short")
    return pickle.loads(body)
