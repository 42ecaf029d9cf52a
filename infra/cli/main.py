"""``infra`` command line: parses arguments and calls library functions.

Heavy imports (pydantic, openpyxl) happen inside commands so ``infra --help`` is fast.
"""

from __future__ import annotations

import sys

import click

# exit codes and the one-command process's GC settings live in a leaf module that the
# commands import too (they are re-exported here: infra.cli.main.short_lived_gc, ...)
from infra.cli.runtime import (EXIT_INTERNAL_ERROR, EXIT_USER_ERROR, freeze_long_lived,
                               short_lived_gc)

__all__ = ["EXIT_INTERNAL_ERROR", "EXIT_USER_ERROR", "cli", "freeze_long_lived", "main",
           "short_lived_gc"]


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
