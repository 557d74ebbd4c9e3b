"""How every command fails: one line on standard error,
``tallydb: <Exception>: <message>``, and an exit code that says what kind of
failure it was.

=====  ==========================================================================
exit   meaning
=====  ==========================================================================
0      done
1      the store refused the request (a DynamoDB error, such as
       ResourceNotFoundException, or the toolkit's, such as CounterLimitError),
       ``get`` found no item, or a question was answered no
2      the command line is wrong (UsageError: a missing argument, a key that
       is not JSON)
3      the store could not be reached or opened (TransportError: no server at
       the endpoint; StoreInUseError: the data directory is held by another
       process; PortInUseError: ``serve``'s port is taken)
=====  ==========================================================================
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any, NoReturn

import click

__all__ = [
    "EXIT_REFUSED",
    "EXIT_UNAVAILABLE",
    "EXIT_USAGE",
    "CommandError",
    "Group",
    "error_line",
    "fail",
]

EXIT_REFUSED = 1
EXIT_USAGE = 2
EXIT_UNAVAILABLE = 3


def error_line(kind: str, message: str) -> str:
    """The one line every failure is: ``tallydb: <kind>: <message>``.

    A message of several lines (botocore's ``Parameter validation failed:``
    and one line per fault) is joined into one: its first line, then the
    rest separated by ``; ``."""
    first, *rest = message.strip().splitlines() or [""]
    if rest:
        first = f"{first} {'; '.join(line.strip() for line in rest if line.strip())}"
    return f"tallydb: {kind}: {first}"


class CommandError(Exception):
    """A command's failure: the exception's name (``kind``), its message,
    and the exit code of its kind (see the module)."""

    def __init__(self, kind: str, message: str, code: int = EXIT_REFUSED) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.code = code


def fail(kind: str, message: str, exit_code: int = EXIT_REFUSED) -> NoReturn:
    """Stop the command with one error line."""
    raise CommandError(kind, message, exit_code)


def _usage_line(error: click.UsageError) -> str:
    message = error.format_message()
    if error.ctx is not None:
        message += f" (see: {error.ctx.command_path} --help)"
    return error_line("UsageError", message)


class Group(click.Group):
    """The ``tallydb`` group: click's own failures (usage errors, an answer
    of no) print in the same one-line shape as the commands' own."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, **extra)
        try:
            code = super().main(args, prog_name, complete_var, False, **extra)
        except click.exceptions.NoArgsIsHelpError as error:  # a group alone: its help
            error.show()
            sys.exit(EXIT_USAGE)
        except click.UsageError as error:
            click.echo(_usage_line(error), err=True)
            sys.exit(EXIT_USAGE)
        except CommandError as error:
            click.echo(error_line(error.kind, error.message), err=True)
            sys.exit(error.code)
        except click.ClickException as error:  # click's own (a file it cannot open)
            click.echo(error_line(type(error).__name__, error.format_message()), err=True)
            sys.exit(error.exit_code)
        except (click.Abort, EOFError, KeyboardInterrupt):
            click.echo(error_line("Aborted", "nothing was changed"), err=True)
            sys.exit(EXIT_REFUSED)
        except OSError as error:  # a closed pipe (`tallydb scan t | head`), say
            if isinstance(error, BrokenPipeError):
                sys.exit(0)
            click.echo(error_line(type(error).__name__, str(error)), err=True)
            sys.exit(EXIT_REFUSED)
        sys.exit(code if isinstance(code, int) else 0)  # --help and --version give 0
