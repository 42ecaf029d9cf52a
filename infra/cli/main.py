"""``infra`` command line: parses arguments and calls library functions.

Heavy imports (pydantic, openpyxl) happen inside commands so ``infra --help`` is fast.
"""

from __future__ import annotations

import sys

import click

EXIT_USER_ERROR = 2
# A bug: its own code, never 1, which is a result (a design-rule finding, infra diff's failed
# bring-up gate) a CI gate acts on (issue 31, N1)
EXIT_INTERNAL_ERROR = 3


class InfraGroup(click.Group):
    """The one error path: every exception that reaches the CLI ends here.

    - :class:`infra.errors.InfraError` (bad input, infeasible design): one ``error:``
      line, exit code 2.
    - Anything else is a bug: one line naming the input and "please report", exit 3
      (exit 1 is a finding: a broken design rule, a failed bring-up gate).
    - ``--debug`` shows the traceback of either.
    """

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.Abort, SystemExit):
            raise
        except Exception as exc:  # noqa: BLE001 - the catch-all is this method's job
            if (ctx.obj or {}).get("debug"):
                raise
            from infra.errors import InfraError, current_input, describe_value

            if isinstance(exc, InfraError):
                click.echo(f"error: {exc}", err=True)
                sys.exit(EXIT_USER_ERROR)
            where = current_input(exc) or " ".join(sys.argv[1:3]) or "the command"
            detail = describe_value(str(exc), 200, bare=True)
            click.echo(f"error: internal error while processing {where}: {type(exc).__name__}: "
                       f"{detail} (please report this at the project's issue tracker with the "
                       "input; rerun with --debug for the traceback)", err=True)
            sys.exit(EXIT_INTERNAL_ERROR)


@click.group(cls=InfraGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show tracebacks for errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Cluster hardware inventory and AI-datacenter design toolkit."""
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug


def _register() -> None:
    from infra.cli import (catalog_cmd, collectives_cmd, compare_cmd, design_cmd, export_cmd,
                           failures_cmd, history_cmd, ingest_cmd, sweep_cmd, topology_cmd,
                           synthesize_cmd, train_cmd)

    cli.add_command(design_cmd.design)
    cli.add_command(design_cmd.validate)
    cli.add_command(design_cmd.new)
    cli.add_command(catalog_cmd.catalog)
    cli.add_command(topology_cmd.topology)
    cli.add_command(compare_cmd.compare)
    cli.add_command(collectives_cmd.collectives)
    cli.add_command(train_cmd.train)
    cli.add_command(synthesize_cmd.synthesize)
    cli.add_command(failures_cmd.failures)
    cli.add_command(export_cmd.export)
    cli.add_command(ingest_cmd.diff)
    cli.add_command(ingest_cmd.ingest)
    cli.add_command(sweep_cmd.sweep)
    cli.add_command(sweep_cmd.diff_designs)
    cli.add_command(history_cmd.history)


_register()


def main() -> None:  # console-script entry point
    short_lived_gc()
    cli(obj={})


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
