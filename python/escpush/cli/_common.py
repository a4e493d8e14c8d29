"""What every command of :mod:`escpush.cli` shares: exit statuses and errors, the help
layout, the option groups (output, API access, filter checks), option value types that
refuse bad values as usage errors, reading FILTER and secret arguments, the API client,
printing results and reporting failures.

Imports beyond :mod:`argparse`, :mod:`os` and :mod:`sys` happen inside the functions, so
that ``escpush --version`` stays fast (see benches/cli_startup_bench.py).
"""

from __future__ import annotations

import argparse
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, NoReturn, TypeAlias

    from .._escpush import Account, Client, Filter, Zone
    from .._problem import FilterProblem

    # Sub-command lists; their parsers are all `Parser`s at run time (argparse makes each
    # of the parent's class), which the stubs do not know.
    Commands: TypeAlias = argparse._SubParsersAction[Any]

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_USAGE = 2
EXIT_API = 3

EXIT_CODES = """exit status:
  0  success
  1  a check failed (filter validate/explain found problems, filter fmt --check found a change,
     datasets check found fields that differ)
  2  bad usage or input (arguments, a filter, a file, credentials, a dataset)
  3  an API or network error"""

ZONE_EXAMPLE = "023e105f4ecef8ad9ca31a8372d0c353"
FILTER_EXAMPLE = """'{"where":{"key":"EdgeResponseStatus","operator":"geq","value":500}}'"""


class CliError(Exception):
    """A failure to report on stderr with an exit status; ``problems`` are listed under it,
    and with ``--json`` the items of ``data`` join the error object (``logpush apply``'s
    ``plan``)."""

    def __init__(self, message: str, code: int = EXIT_USAGE, problems: Sequence[FilterProblem] = ()) -> None:
        super().__init__(message)
        self.code = code
        self.problems = list(problems)
        self.data: dict[str, object] = {}


class UsageError(Exception):
    """Bad arguments, found by argparse: reported by :func:`escpush.cli.main` as text with
    the usage line, or with ``--json`` as a JSON error object."""

    def __init__(self, parser: argparse.ArgumentParser, message: str) -> None:
        super().__init__(message)
        self.parser = parser


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are raised (:class:`UsageError`), not printed, so that
    ``main`` can print them as ``--json`` asks. Every command's parser is one (argparse makes
    sub-commands of their parent's class), so each gets, with nothing written per command:

    - ``-v/--verbose``: each API request on stderr (the ``escpush`` logger, see
      :mod:`escpush._logging`), wherever it stands on the line;
    - did-you-mean (core's rule) for a mistyped command, action or choice, and for an
      unknown option (among the options of the command it was given to);
    - ``CLOUDFLARE_ACCOUNT_ID`` as the account of a command that takes ``--zone`` or
      ``--account`` (:func:`api_options`) when it is given neither, if the command only
      reads; one that changes something (:func:`writes`) needs its scope named, since an
      account's ESC switch or jobs cover every zone of it.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.add_help:  # a command (option groups shared through `parents` have no help)
            self.add_argument(
                "-v",
                "--verbose",
                action="count",
                default=argparse.SUPPRESS,
                help="show each API request (method, URL, status, retries; no secrets) on stderr",
            )

    def error(self, message: str) -> NoReturn:
        raise UsageError(self, message)

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        choices = action.choices
        if choices is not None and value not in choices and isinstance(value, str):
            names = [str(c) for c in choices]
            hint = _did_you_mean(value, names)
            if hint:
                listed = ", ".join(map(repr, names))
                raise argparse.ArgumentError(action, f"invalid choice: {value!r}{hint} (choose from {listed})")
        super()._check_value(action, value)

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        # argparse gives a sub-command's leftovers to its parent, which can only name them:
        # here, in the command that got them, an unknown option is named with the nearest.
        unknown = [a for a in extras if a.startswith("-") and a != "-"]
        if unknown:
            options = [o for o in self._option_string_actions if o.startswith("--")]
            given = unknown[0].split("=", 1)[0]
            self.error(f"unrecognized arguments: {' '.join(extras)}{_did_you_mean(given, options)}")
        if getattr(parsed, "_needs_scope", False) and parsed.zone is None and parsed.account is None:
            from .._escpush import _ENV_ACCOUNT_ID

            account = os.environ.get(_ENV_ACCOUNT_ID, "").strip()
            if getattr(parsed, "_writes", False) and not getattr(parsed, "dry_run", False):
                # An account-wide change made because a tool (wrangler) left the variable set
                # is not one the user asked for: a write names its scope (a dry run sends
                # nothing, and reads as a read does).
                self.error(
                    "name the scope it changes: --zone ZONE_ID or --account ACCOUNT_ID (an account's setting "
                    f"covers every zone of it; {_ENV_ACCOUNT_ID} is the default account of commands that only "
                    "read)"
                )
            if not account:
                self.error(f"one of the arguments --zone --account is required (or set {_ENV_ACCOUNT_ID})")
            parsed.account = account
            parsed._account_from_env = True
        return parsed, extras


def _did_you_mean(given: str, names: Sequence[str]) -> str:
    """``; did you mean `X`?`` with the name nearest to ``given`` (core's rule), or nothing."""
    from .._escpush import _closest

    near = _closest(given, list(names))
    return f"; did you mean `{near}`?" if near else ""


# -- help layout ----------------------------------------------------------------------------


class Formatter(argparse.HelpFormatter):
    """Paragraphs are wrapped, but those with indented lines (examples, exit codes) are kept
    as written. The width is read here, as argparse would read it through shutil, which
    imports bz2, lzma and more (2 ms of start-up)."""

    def __init__(self, prog: str) -> None:
        try:
            columns = int(os.environ["COLUMNS"])
        except (KeyError, ValueError):
            try:
                columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
            except (AttributeError, ValueError, OSError):
                columns = 80
        super().__init__(prog, width=max(columns - 2, 40), max_help_position=min(24, max(columns - 22, 4)))

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        import textwrap

        paragraphs = []
        for paragraph in text.split("\n\n"):
            lines = paragraph.splitlines()
            if any(line.startswith(" ") for line in lines):
                paragraphs.append("\n".join(indent + line for line in lines))
            else:
                paragraphs.append(
                    textwrap.fill(
                        " ".join(paragraph.split()),
                        width,
                        initial_indent=indent,
                        subsequent_indent=indent,
                        break_on_hyphens=False,  # not inside --options
                    )
                )
        return "\n\n".join(paragraphs)


def command(
    commands: Commands,
    name: str,
    summary: str,
    description: str,
    examples: Sequence[str],
    parents: Sequence[argparse.ArgumentParser] = (),
) -> argparse.ArgumentParser:
    """A command whose ``--help`` ends with its examples and the exit status."""
    parser: argparse.ArgumentParser = commands.add_parser(
        name,
        help=summary,
        description=description,
        epilog="examples:\n" + "\n".join(f"  {e}" for e in examples) + "\n\n" + EXIT_CODES,
        parents=list(parents),
        formatter_class=Formatter,
    )
    return parser


def group(commands: Commands, name: str, summary: str, description: str, example: str) -> Commands:
    """A command with actions of its own (``esc status``, ``filter validate``, ...)."""
    parser = command(commands, name, summary, description, [example, f"escpush {name} ACTION --help"])
    return parser.add_subparsers(dest="action", metavar="ACTION", required=True)


# -- option value types: a bad value is a usage error naming the range ----------------------


def integer(low: int, high: int) -> Callable[[str], int]:
    """An option type: an integer from ``low`` to ``high``."""

    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"`{text}` is not an integer") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"`{text}` is out of range: give {low} to {high}")
        return value

    convert.__name__ = "integer"
    return convert


def client_setting(name: str, read: Callable[[str], float], what: str) -> Callable[[str], Any]:
    """An option type: a setting of the API client (``timeout``, ``max_retries``), read by
    ``read`` and checked by the client's own rule (escpush-http's builder), so that a value
    ``Client`` would refuse is a usage error naming the option."""

    def convert(text: str) -> Any:
        from .._escpush import _check_client_settings
        from ..errors import InvalidInput

        try:
            value = read(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"`{text}` is not {what}") from None
        try:
            settings: dict[str, Any] = {name: value}
            _check_client_settings(**settings)
        except InvalidInput as err:
            raise argparse.ArgumentTypeError(str(err)) from None
        return value

    convert.__name__ = name
    return convert


# Sizes and counts the Rust side holds in 64 bits (and JSON consumers as exact integers).
MAX_COUNT = 2**53 - 1


# -- option groups ---------------------------------------------------------------------------


def output_options() -> argparse.ArgumentParser:
    output = argparse.ArgumentParser(add_help=False, formatter_class=Formatter)
    output.add_argument("--json", action="store_true", help="print the result (and errors, on stderr) as JSON")
    return output


def api_options(target: bool = True) -> argparse.ArgumentParser:
    """Where the API is and who calls it, then (with ``target``) the zone or account, one of
    them required. A command that names its scopes otherwise adds its own options."""
    api = argparse.ArgumentParser(add_help=False, formatter_class=Formatter)
    if target:
        from .._escpush import _ENV_ACCOUNT_ID

        # One of them, or the account of CLOUDFLARE_ACCOUNT_ID (checked by `Parser`).
        scopes = api.add_mutually_exclusive_group()
        scopes.add_argument("--zone", metavar="ZONE_ID", help="act on this zone")
        scopes.add_argument(
            "--account",
            metavar="ACCOUNT_ID",
            help=f"act on this account (and so all its zones); default {_ENV_ACCOUNT_ID} when no --zone is "
            "given, for a command that only reads",
        )
        api.set_defaults(_needs_scope=True)
    creds = api.add_argument_group(
        "API access",
        "Each option falls back on its CLOUDFLARE_* variable; prefer the variables, since options "
        "show in the process list. Credentials are never printed.",
    )
    creds.add_argument("--api-token", metavar="TOKEN", help="API token (CLOUDFLARE_API_TOKEN)")
    creds.add_argument("--api-key", metavar="KEY", help="global API key (CLOUDFLARE_API_KEY), with --email")
    creds.add_argument("--email", metavar="EMAIL", help="the account's email (CLOUDFLARE_EMAIL)")
    creds.add_argument("--base-url", metavar="URL", help="API root (CLOUDFLARE_BASE_URL; default Cloudflare's v4)")
    # The defaults and ranges are the client's (escpush-http's builder), read, not restated.
    from .. import DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT, MAX_RETRIES

    creds.add_argument(
        "--timeout",
        type=client_setting("timeout", float, "a number of seconds"),
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"deadline of each API call, retries and their waits included (default {DEFAULT_TIMEOUT:g})",
    )
    creds.add_argument(
        "--retries",
        type=client_setting("max_retries", int, "an integer"),
        default=DEFAULT_MAX_RETRIES,
        metavar="N",
        help="retries of a call that is safe to repeat, after a 429, a 5xx or a network error "
        f"(0 to {MAX_RETRIES}; default {DEFAULT_MAX_RETRIES})",
    )
    return api


def endpoint(name: str) -> str:
    """``METHOD /{scope}/path`` of core's endpoint ``name`` (``ValidateOrigin``), for help texts."""
    from .._escpush import _ENDPOINTS

    return _ENDPOINTS[name]


def scope_choices() -> tuple[str, ...]:
    """The names of the scopes, zone first: the choices of every ``--scope`` (core's list)."""
    from .._escpush import _SCOPES

    return _SCOPES


def filter_options(rules: bool) -> argparse.ArgumentParser:
    """FILTER, and with ``rules`` the dataset and limits to check it against (the defaults are
    core's)."""
    from .. import DEFAULT_MAX_BYTES, DEFAULT_MAX_OPERATORS

    options = argparse.ArgumentParser(add_help=False, formatter_class=Formatter)
    options.add_argument(
        "filter",
        metavar="FILTER",
        help="the filter: a file, JSON text, the text form (`EdgeResponseStatus >= 500`), or - for stdin",
    )
    if rules:
        checks = options.add_argument_group("checks")
        checks.add_argument("--dataset", metavar="NAME", help="also check fields, types and values against it")
        checks.add_argument("--scope", choices=scope_choices(), help="the dataset's scope, if both have it")
        for flag, default, what in (
            ("--max-operators", DEFAULT_MAX_OPERATORS, "operator limit"),
            ("--max-bytes", DEFAULT_MAX_BYTES, "size limit, in bytes"),
        ):
            checks.add_argument(
                flag, type=integer(0, MAX_COUNT), default=default, metavar="N", help=f"{what} (default {default})"
            )
    return options


# -- input -----------------------------------------------------------------------------------


def read_text(arg: str, what: str) -> str:
    """A value given as a file name, or - for stdin; UTF-8 text, a byte-order mark at its
    start dropped (an editor may save one; Python's ``utf-8-sig``). Every file and stdin a
    person writes (filters, jobs, secrets, site files) is read here."""
    try:
        if arg == "-":
            return read_stdin(what)
        with open(arg, encoding="utf-8-sig") as f:
            return f.read()
    except OSError as err:
        raise CliError(f"cannot read the {what} `{arg}`: {err.strerror}") from None
    except UnicodeDecodeError:
        raise CliError(f"the {what} `{arg}` is not UTF-8 text") from None


def require_stdin(what: str) -> None:
    """Refuses - when standard input was closed as escpush started (``<&-``): Python then has
    no ``sys.stdin``, and descriptor 0 may since name another file."""
    if sys.stdin is None:
        raise CliError(f"standard input is closed: {what} cannot be read from -")


def read_stdin(what: str) -> str:
    """Standard input as text, a byte-order mark at its start dropped (as ``read_text``);
    bad UTF-8 is bad input, not a traceback."""
    require_stdin(f"the {what}")
    # Bytes, decoded here: a text stdin may decode with surrogate escapes (C locale) and
    # fail later, far from here.
    binary = getattr(sys.stdin, "buffer", None)
    try:
        return binary.read().decode("utf-8-sig") if binary is not None else sys.stdin.read().removeprefix("\ufeff")
    except UnicodeDecodeError:
        raise CliError(f"the {what} on standard input is not UTF-8 text") from None


def bom_note(text: str) -> str:
    """For the error of a reader that does not name it (tomllib): where ``text`` holds a
    byte-order mark, which only the start of a file may hold (``read_text`` drops that
    one). Lines are counted as TOML counts them."""
    at = text.find("\ufeff")
    if at < 0:
        return ""
    line = text.count("\n", 0, at) + 1
    column = at - text.rfind("\n", 0, at)
    return f"; it holds a byte-order mark (U+FEFF) at line {line}, column {column}, which only a file's start may hold"


def filter_text(arg: str) -> str:
    """A FILTER argument's text: stdin (-), JSON text as given, the text form given inline (an
    argument that is not an existing path and reads as a filter), or a file."""
    if arg != "-" and arg.lstrip().startswith(("{", '"')):
        return arg
    if arg != "-" and not os.path.exists(arg) and any(c.isspace() or c in "=<>!(" for c in arg):
        return arg
    return read_text(arg, "filter file" if arg != "-" else "filter")


def parse_filter(arg: str) -> Filter:
    """The filter of a FILTER argument, written as JSON (or its quoted form) or in the text form."""
    from .. import Filter

    return Filter.parse_any(filter_text(arg))


# -- the API -----------------------------------------------------------------------------------


def client(args: argparse.Namespace) -> Client:
    """A client from the options; each one left out falls back on its CLOUDFLARE_* variable
    (``Client.from_env``, the one place the environment is read)."""
    from .. import Client

    return Client.from_env(
        api_token=args.api_token,
        api_key=args.api_key,
        email=args.email,
        base_url=args.base_url,
        timeout=args.timeout,
        max_retries=args.retries,
    )


def scope(args: argparse.Namespace) -> Zone | Account:
    api = client(args)
    return api.zone(args.zone) if args.zone is not None else api.account(args.account)


def writes(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Marks a command that changes something on its scope: it needs ``--zone`` or
    ``--account``, never the account of ``CLOUDFLARE_ACCOUNT_ID`` (see :class:`Parser`)."""
    parser.set_defaults(_writes=True)
    return parser


def where(args: argparse.Namespace) -> str:
    """The scope a command acts on, as its text says it: ``zone ID``, ``account ID``, and
    ``account ID (CLOUDFLARE_ACCOUNT_ID)`` when the account came from that variable."""
    if args.zone is not None:
        return f"zone {args.zone}"
    if getattr(args, "_account_from_env", False):
        from .._escpush import _ENV_ACCOUNT_ID

        return f"account {args.account} ({_ENV_ACCOUNT_ID})"
    return f"account {args.account}"


# -- output and failures ------------------------------------------------------------------------


class ClosedOutputError(BrokenPipeError):
    """Standard output was closed as escpush started (``>&-``): what a command prints
    cannot be written. Reported by :func:`escpush.cli.main` as one line, status 2."""


class _ClosedOutput:
    """``sys.stdout`` while a command runs with standard output closed: a write raises
    :class:`ClosedOutputError` (Python's own ``None`` drops prints silently, and
    ``print(file=sys.stderr)`` falls back on it); a command that prints nothing is unaffected."""

    encoding = "utf-8"
    errors = "strict"

    def write(self, text: str) -> int:
        if not text:
            return 0
        raise ClosedOutputError("standard output is closed")

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


class _Diagnostics:
    """``sys.stderr`` while a command runs: diagnostics (progress, errors, usage) that cannot
    be written, as stderr is closed (``2>&-``) or its reader left (``2>&1 | head -1``), are
    dropped, and so is every later one; they never change what a command does or prints."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.encoding: str = getattr(stream, "encoding", None) or "utf-8"
        self.errors: str = getattr(stream, "errors", None) or "backslashreplace"

    def write(self, text: str) -> int:
        if self.stream is not None:
            try:
                self.stream.write(text)
            except (OSError, ValueError):  # a broken pipe, a closed file
                self.stream = None
        return len(text)

    def flush(self) -> None:
        if self.stream is not None:
            try:
                self.stream.flush()
            except (OSError, ValueError):
                self.stream = None

    def isatty(self) -> bool:
        try:
            return self.stream is not None and bool(self.stream.isatty())
        except (OSError, ValueError):
            return False

    def fileno(self) -> int:
        if self.stream is None:
            raise OSError("standard error is closed")
        return int(self.stream.fileno())


def standard_streams() -> Callable[[], None]:
    """Puts :class:`_ClosedOutput` and :class:`_Diagnostics` in place for one command;
    returns what puts the previous streams back."""
    saved = sys.stdout, sys.stderr
    if sys.stdout is None:
        sys.stdout = _ClosedOutput()
    sys.stderr = _Diagnostics(sys.stderr)

    def restore() -> None:
        if isinstance(sys.stderr, _Diagnostics) and sys.stderr.stream is None and saved[1] is not None:
            _close_quietly(saved[1])
        sys.stdout, sys.stderr = saved

    return restore


def _close_quietly(stream: Any) -> None:
    """A stderr whose reader left: what is still buffered goes nowhere, so that the
    interpreter's flush at exit prints no "Exception ignored"."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # not a real file (captured output)
        pass


def emit(args: argparse.Namespace, data: object, text: str) -> None:
    """The result: JSON with ``--json``, else the human text."""
    print(strict_json(data) if getattr(args, "json", False) else text)


def strict_json(data: object) -> str:
    """``data`` as JSON that Python's and JavaScript's parsers read (a parser that refuses a
    number out of range, as serde_json does, refuses ``1e999``): an infinite float (a log value of ``1e400``,
    in a breakdown's group key) is written as the number ``1e999`` (``-1e999``), which
    ``json.loads`` reads back as infinite and JavaScript as ``Infinity``, where ``json.dumps``
    writes the bare ``Infinity`` that strict parsers refuse; a number still, so never the
    same as the string ``"Infinity"``. A NaN, which no JSON log holds, is written ``null``."""
    import json
    import math

    try:
        return json.dumps(data, indent=2, allow_nan=False)
    except ValueError:
        pass
    import secrets  # only for an infinity: importing it cost each command more than its dump

    # Each infinity stands in as a string no value holds, then becomes the number.
    text = json.dumps(data, indent=2, allow_nan=True)
    mark = "escpush-infinity-" + secrets.token_hex(16)
    while mark in text:
        mark += "x"
    positive, negative = json.dumps(mark + "+"), json.dumps(mark + "-")

    def finite(value: object) -> object:
        if isinstance(value, float) and not math.isfinite(value):
            return None if math.isnan(value) else (mark + "+" if value > 0 else mark + "-")
        if isinstance(value, dict):
            return {k: finite(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [finite(v) for v in value]
        return value

    text = json.dumps(finite(data), indent=2, allow_nan=False)
    return text.replace(positive, "1e999").replace(negative, "-1e999")


def failure(err: BaseException) -> CliError:
    """The exit status and message of an exception a command raised."""
    from ..errors import ApiError, EscpushError, TransportError, _WithProblems

    if isinstance(err, CliError):
        return err
    if isinstance(err, _WithProblems):
        return CliError(str(err), EXIT_USAGE, err.errors())
    if isinstance(err, (ApiError, TransportError)):
        return CliError(str(err), EXIT_API)
    if isinstance(err, EscpushError):  # ScanError: an input could not be read
        return CliError(str(err), EXIT_USAGE)
    if isinstance(err, UnicodeEncodeError):
        # An argument that is not UTF-8 (the shell passes bytes; Python keeps the bad ones
        # as surrogates, which the native module cannot take).
        bad = err.object[err.start : err.end]
        try:
            shown = repr(bad.encode("utf-8", "surrogateescape"))
        except UnicodeEncodeError:
            shown = ascii(bad)
        return CliError(f"an argument is not UTF-8 text: it holds {shown}", EXIT_USAGE)
    raise err


def report(as_json: bool, failure: CliError) -> None:
    if as_json:
        import json

        error = {"message": str(failure), "exit_code": failure.code, "problems": failure.problems, **failure.data}
        print(json.dumps({"error": error}), file=sys.stderr)
        return
    from .._format import printable

    # An exception's text lists its problems; what it quotes (a file name, an option's
    # value, the API's message) is escaped, so that it does nothing to the terminal.
    print(f"escpush: {printable(str(failure))}", file=sys.stderr)
