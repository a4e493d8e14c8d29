"""The ``escpush`` command line (also ``python -m escpush``): :func:`main` and
:func:`build_parser`.

One module per command group: :mod:`.esc`, :mod:`.filter`, :mod:`.logpush`, and
:mod:`.emulator` (``emulator`` and ``demo``); what they share (exit statuses, option groups
and types, input, the client, error reports) is in :mod:`._common`. Only the module of the
command being run is imported, and each imports what it uses when it runs, so
``escpush --version`` and ``escpush filter validate`` do not pay for the HTTP client, the
emulator or the scanner.

Exit status: 0 success, 1 a check failed, 2 bad usage or input, 3 an API or network error.
A stdout closed early (``escpush ... | head``) or from the start (``>&-``) is bad output,
not a crash: one line on stderr says so, and the status is 2. A closed stdin is bad input
for ``-``. Diagnostics that cannot be written (stderr closed, or its reader gone) are
dropped: they never change what a command does. SIGTERM or SIGHUP during a command that puts
something back (``esc assess``, ``esc secret --save``, ``filter scan --output``, ``logpush
apply`` between writes) ends it
once that is done, with the status 128 + the signal's number, as Ctrl-C does with 130.
A usage error with ``--json`` is printed as a JSON error object, like any other failure.
Credentials come from ``CLOUDFLARE_API_TOKEN`` (or ``CLOUDFLARE_API_KEY`` with
``CLOUDFLARE_EMAIL``) or the options, and are never printed; ``CLOUDFLARE_ACCOUNT_ID`` is the
account of a command that only reads given neither ``--zone`` nor ``--account`` (a command
that changes something needs one of them named). Every command takes
``-v/--verbose`` (each API request on stderr, as ``CLOUDFLARE_LOG=debug`` shows it), and a
mistyped command, choice or option is answered with the nearest name.
"""

from __future__ import annotations

import sys

from .. import __version__
from .._docs import SITE_URL
from ..errors import Terminated
from ._common import (
    EXIT_API,
    EXIT_CHECK_FAILED,
    EXIT_CODES,
    EXIT_OK,
    EXIT_USAGE,
    ZONE_EXAMPLE,
    CliError,
    ClosedOutputError,
    Formatter,
    Parser,
    UsageError,
    failure,
    report,
    standard_streams,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Sequence

    from ._common import Commands

__all__ = ["EXIT_API", "EXIT_CHECK_FAILED", "EXIT_OK", "EXIT_USAGE", "build_parser", "main"]

# Each command: its summary (shown in the listing without importing its module), and the
# module and function that add it in full.
_COMMANDS = {
    "demo": ("walk through the main jobs against the embedded emulator", "emulator", "add_demo"),
    "emulator": ("serve the API emulator on 127.0.0.1 until interrupted", "emulator", "add_emulator"),
    "esc": ("read, disable, re-enable or test-disable ESC on a zone or an account", "esc", "add"),
    "filter": ("check, format, explain and preview log-push job filters", "filter", "add"),
    "logpush": ("create, read, update, delete, ensure and apply log-push jobs", "logpush", "add"),
    "datasets": ("compare the live dataset fields with escpush's schemas", "datasets", "add"),
}


def _builder(name: str) -> Callable[[Commands, str], None]:
    _, module, function = _COMMANDS[name]
    # The built-in __import__ rather than importlib, which start-up does without.
    loaded = __import__(f"{__name__}.{module}", fromlist=[function])
    add: Callable[[Commands, str], None] = getattr(loaded, function)
    return add


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The command tree; with ``argv``, only the command it names (if any) is built in full
    (building the whole tree costs about 5 ms)."""
    parser = Parser(
        prog="escpush",
        description="Script Cloudflare's ESC deprecation controls and build, check and preview log-push filters.",
        epilog="examples:\n"
        "  escpush filter validate my-filter.json --dataset http_requests\n"
        f"  escpush esc status --zone {ZONE_EXAMPLE}\n"
        "  escpush COMMAND --help\n\n" + EXIT_CODES + f"\n\ndocumentation: {SITE_URL}",
        formatter_class=Formatter,
    )
    parser.add_argument("--version", action="version", version=f"escpush {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    wanted = None if argv is None else next((a for a in argv if not a.startswith("-")), "")
    for name, (summary, _, _) in _COMMANDS.items():
        if wanted is None or wanted == name:
            _builder(name)(commands, summary)
        else:
            commands.add_parser(name, help=summary, formatter_class=Formatter)
    return parser


def _usage_error(err: UsageError, as_json: bool) -> None:
    if as_json:
        report(True, CliError(str(err), EXIT_USAGE))
    else:
        from .._format import printable

        err.parser.print_usage(sys.stderr)
        print(f"{err.parser.prog}: error: {printable(str(err))}", file=sys.stderr)


def _undecodable(argv: list[str]) -> CliError | None:
    """An argument that is not UTF-8 (the shell passes bytes; Python keeps the bad ones as
    surrogates), found before anything reads it."""
    for arg in argv:
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError as err:
            return failure(err)
    return None


def _run(argv: list[str], as_json: bool) -> int:
    bad = _undecodable(argv)
    if bad is not None:
        report(as_json, bad)
        return bad.code
    parser = build_parser(argv)
    try:
        args = parser.parse_args(argv)
    except UsageError as err:
        _usage_error(err, as_json)
        raise SystemExit(EXIT_USAGE) from None
    if getattr(args, "run", None) is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    quiet_again = None
    if getattr(args, "verbose", 0):
        from .._logging import verbose

        quiet_again = verbose()
    try:
        code = int(args.run(args))
        sys.stdout.flush()  # a closed stdout shows here, not at exit
        return code
    except Terminated as stop:  # SIGTERM or SIGHUP, once what the command changed is back
        return _stopped(as_json, f"terminated by {stop}", stop.code, stop)
    except KeyboardInterrupt as stop:
        return _stopped(as_json, "interrupted", 130, stop)
    except BrokenPipeError:
        raise
    except Exception as err:  # each is mapped to its exit status, or re-raised
        reported = failure(err)
        report(getattr(args, "json", False), reported)
        return reported.code
    finally:
        if quiet_again is not None:
            quiet_again()


def _stopped(as_json: bool, message: str, code: int, stop: BaseException) -> int:
    """Reports a command stopped by Ctrl-C or a signal (with ``--json``, one error object that
    carries what it had done: ``logpush apply``'s ``plan``); gives the exit status."""
    stopped = CliError(message, code)
    plan = getattr(stop, "plan", None)
    if plan is not None:
        stopped.data = {"plan": plan}
    report(as_json, stopped)
    return code


def _silence_stdout() -> None:
    """After a closed stdout: send what is still buffered nowhere, so that the interpreter's
    flush at exit does not complain."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # not a real file (captured output)
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Runs one command; returns its exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    restore_streams = standard_streams()
    try:
        return _run(argv, as_json="--json" in argv)
    except ClosedOutputError:
        report("--json" in argv, CliError("standard output is closed: nothing could be written", EXIT_USAGE))
        return EXIT_USAGE
    except BrokenPipeError:
        _silence_stdout()
        print("escpush: the output was closed before everything was written (broken pipe)", file=sys.stderr)
        return EXIT_USAGE
    finally:
        restore_streams()
