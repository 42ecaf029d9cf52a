"""Progress bars for long work: a ``rich`` bar on a terminal, nothing on a pipe."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def progress_bar(label: str, enabled: bool | None = None
                 ) -> Iterator[tuple[Callable[[int], None], Callable[[int], None]]]:
    """Yield ``(start(total), advance(n))`` callbacks.

    ``enabled=None`` shows the bar only when stderr is a terminal; the bar goes to
    stderr so piped stdout stays clean.
    """
    show = sys.stderr.isatty() if enabled is None else enabled
    if not show:
        yield (lambda total: None), (lambda n: None)
        return
    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                               TimeRemainingColumn)

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeRemainingColumn(), console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=None)
        yield (lambda total: bar.update(task, total=total)), (lambda n: bar.advance(task, n))
