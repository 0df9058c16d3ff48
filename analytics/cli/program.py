"""The program: the typer app every command registers on, its command groups, and `main`,
which runs it. `OneLineErrors` makes what the command line itself refuses (an unknown option, a
value out of range) one `error: …` line and exit 2, as `failures.reported` does for what a
command fails at."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import typer
from typer.core import TyperGroup, TyperOption

from analytics.cli.failures import closed_output
from analytics.exit_codes import EXIT_CODES, UNEXPECTED, exit_codes_text
from analytics.storage import use_system_allocator


class OneLineErrors(TyperGroup):
    """The commands' group: a usage error is one `error: …` line and exit 2, like every other
    error, instead of the usage box (`--help` still prints the help)."""

    def main(self, args: Sequence[str] | None = None, *extra: Any, **options: Any) -> Any:
        options["standalone_mode"] = False
        try:
            code = super().main(args, *extra, **options)
            sys.stdout.flush()  # a reader that went away is found here, not at exit
        except BrokenPipeError:
            code = closed_output()
        except typer.TyperException as exc:  # the public base of the parser's errors
            message = " ".join(exc.format_message().replace("Value error, ", "").split())
            typer.echo(f"error: {message}", err=True)
            sys.exit(exc.exit_code)
        except typer.Abort:
            typer.echo("error: aborted", err=True)
            sys.exit(UNEXPECTED.code)
        sys.exit(code if isinstance(code, int) else 0)

    # The context and the command are classes of Typer's own copy of click, which it keeps
    # private: the two overrides name them Any rather than import them.
    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        """A command whose flags show no value placeholder in its help (typer would print
        ``<bool>`` after ``--demo``, as if it took a value)."""
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            _bare_flags([*command.params, command.get_help_option(ctx)])
        return command

    def get_help_option(self, ctx: Any) -> TyperOption | None:
        option = super().get_help_option(ctx)
        _bare_flags([option])
        return option


def _bare_flags(params: Sequence[object]) -> None:
    """Flags take no value: no placeholder after them in help."""
    for param in params:
        if isinstance(param, TyperOption) and param.is_flag:
            param.metavar = ""


app = typer.Typer(
    cls=OneLineErrors,
    help="Usage exports and look-ups for the Language Service.",
    epilog=exit_codes_text(EXIT_CODES),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def command_group(parent: typer.Typer, name: str, help: str) -> typer.Typer:
    """A group of commands under `parent` (`keys rotation …`): its errors one line each, as
    every command's, and its help shown when it is called alone."""
    group = typer.Typer(cls=OneLineErrors, help=help, no_args_is_help=True)
    parent.add_typer(group, name=name)
    return group


def main() -> None:
    """The program (`usage-dashboard`, `python -m analytics`): the commands, with Arrow's
    buffers from the C library's allocator, as every program of ours starts."""
    use_system_allocator()
    app()
