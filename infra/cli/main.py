"""``infra`` command line: parses arguments and calls library functions.

Heavy imports (pydantic, openpyxl) happen inside commands so ``infra --help`` is fast.
"""

from __future__ import annotations

import sys

import click

EXIT_USER_ERROR = 2


class InfraGroup(click.Group):
    """Catches :class:`infra.errors.InfraError` once: one message, exit code 2."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except Exception as exc:  # noqa: BLE001 - re-raised unless it is ours
            from infra.errors import InfraError

            if isinstance(exc, InfraError) and not ctx.obj.get("debug"):
                click.echo(f"error: {exc}", err=True)
                sys.exit(EXIT_USER_ERROR)
            raise


@click.group(cls=InfraGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show tracebacks for errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Cluster hardware inventory and AI-datacenter design toolkit."""
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug


def _register() -> None:
    from infra.cli import catalog_cmd, compare_cmd, design_cmd, failures_cmd, ingest_cmd, topology_cmd

    cli.add_command(design_cmd.design)
    cli.add_command(design_cmd.validate)
    cli.add_command(catalog_cmd.catalog)
    cli.add_command(topology_cmd.topology)
    cli.add_command(compare_cmd.compare)
    cli.add_command(failures_cmd.failures)
    cli.add_command(ingest_cmd.diff)
    cli.add_command(ingest_cmd.ingest)


_register()


def main() -> None:  # console-script entry point
    cli(obj={})
