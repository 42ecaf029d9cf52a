"""Run scenarios through ``concurrent.futures``: in-process, a local process pool, or a
Dask cluster (``distributed.Client.get_executor()``), all the same way.

- Scenarios go out in batches of consecutive scenarios (one task each), so per-task
  overhead is paid once per batch and scenarios that differ only in cost inputs share a
  design analysis inside the worker.
- The :class:`~infra.sweeps.scenario.SweepContext` (base design, grid, catalog and price
  paths) is shipped once per worker: as the pool's initializer argument locally, and
  scattered to every worker (``broadcast=True``) on Dask.
- Rows are merged in scenario order, whatever order the batches complete in, so reruns
  are byte-identical.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from typing import Any

from infra.sweeps.grid import Scenario
from infra.sweeps.paths import SweepError
from infra.sweeps.scenario import SweepContext, run_batch

_WORKER_CTX: list[SweepContext] = []  # set once per pool worker by _init


def _init(ctx: SweepContext) -> None:
    _WORKER_CTX[:] = [ctx]


def _run_local(batch: list[Scenario]) -> list[dict[str, Any]]:
    return run_batch(_WORKER_CTX[0], batch)


def batches(items: list[Scenario], size: int) -> list[list[Scenario]]:
    """Consecutive slices of ``size`` (the last may be shorter).

    >>> [len(b) for b in batches(list(range(10)), 4)]
    [4, 4, 2]
    """
    if size < 1:
        raise SweepError(f"batch size must be >= 1, got {size}", hint="e.g. --batch-size 16")
    return [items[i:i + size] for i in range(0, len(items), size)]


def default_batch_size(n: int, workers: int) -> int:
    """About four batches per worker (load balance) and at most 64 scenarios a batch."""
    return max(1, min(64, -(-n // max(1, 4 * workers))))


@contextmanager
def _dask_executor(address: str | None, workers: int):
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise SweepError("Dask is not installed", hint="pip install -e '.[dask]'") from None
    cluster = None
    try:
        if address:
            client = Client(address, timeout="10s")
        else:
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                   dashboard_address=None)
            client = Client(cluster)
    except OSError as exc:
        raise SweepError(f"cannot reach the Dask scheduler {address!r}: {exc}",
                         hint="check --scheduler tcp://HOST:PORT") from None
    except (ValueError, TypeError) as exc:  # e.g. "unknown address scheme 'http'"
        raise SweepError(f"--scheduler {address!r} is not a Dask scheduler address ({exc})",
                         hint="give tcp://HOST:PORT (or tls://, ws://, inproc://)") from None
    try:
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def run_all(ctx: SweepContext, items: list[Scenario], *, workers: int = 1,
            scheduler: str | None = None, dask: bool = False, batch_size: int | None = None,
            progress: Callable[[int], None] | None = None) -> list[dict[str, Any]]:
    """Rows for ``items`` in scenario order.

    Parameters
    ----------
    workers : int
        Local processes (1: in this process, no pool). On a Dask LocalCluster, its workers.
    scheduler : str, optional
        ``tcp://HOST:PORT`` of a running Dask scheduler.
    dask : bool
        Use Dask (a LocalCluster of ``workers`` processes when ``scheduler`` is unset).
    batch_size : int, optional
        Scenarios per task (default :func:`default_batch_size`).
    progress : callable, optional
        Called with the number of scenarios each time a batch completes.
    """
    if workers < 1:
        raise SweepError(f"workers must be >= 1, got {workers}", hint="e.g. --workers 2")
    size = batch_size or default_batch_size(len(items), workers)
    parts = batches(items, size)
    if scheduler or dask:
        with _dask_executor(scheduler, workers) as client:
            shipped = client.scatter(ctx, broadcast=True)
            with client.get_executor() as ex:
                return _gather(ex, [(run_batch, shipped, b) for b in parts], progress)
    if workers == 1:
        rows: list[dict[str, Any]] = []
        for b in parts:
            rows += run_batch(ctx, b)
            if progress:
                progress(len(b))
        return rows
    with ProcessPoolExecutor(max_workers=workers, initializer=_init, initargs=(ctx,),
                             mp_context=_mp_context()) as ex:
        return _gather(ex, [(_run_local, b) for b in parts], progress)


def _gather(ex: Executor, calls: Iterable[tuple], progress) -> list[dict[str, Any]]:
    futures = {ex.submit(*c): i for i, c in enumerate(calls)}
    done: dict[int, list[dict[str, Any]]] = {}
    for f in as_completed(futures):
        done[futures[f]] = rows = f.result()
        if progress:
            progress(len(rows))
    return [row for i in sorted(done) for row in done[i]]


def _mp_context():
    """``forkserver`` where available (no fork of a threaded parent), else the default."""
    import multiprocessing as mp

    if sys.platform != "win32" and "forkserver" in mp.get_all_start_methods():
        return mp.get_context("forkserver")
    return None


def cpu_workers() -> int:
    """Workers for ``--workers auto``: the CPUs this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)
