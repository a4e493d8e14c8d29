"""The ``escpush`` command line (also ``python -m escpush``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import __version__


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="escpush",
        description="Cloudflare ESC deprecation controls and log-push job filters.",
    )
    parser.add_argument("--version", action="version", version=f"escpush {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.add_parser(
        "demo",
        help="walk through the main jobs against the embedded emulator",
        description="Build a filter, validate it, print it and what is wrong with a broken one.",
    )
    emulator = commands.add_parser(
        "emulator",
        help="run the ESC API emulator on 127.0.0.1 until interrupted",
        description=(
            "Serve the ESC API (v4 envelope) on 127.0.0.1 for curl or other SDKs, until Ctrl-C. "
            "It accepts X-Auth-Key/X-Auth-Email or Authorization: Bearer with the credentials given here; "
            "the defaults are fixed, emulator-only values: --api-key emulator-api-key, "
            "--email user@example.com, --api-token emulator-api-token."
        ),
    )
    emulator.add_argument("--port", type=int, default=8787, help="port on 127.0.0.1 (0: a free one; default 8787)")
    emulator.add_argument("--api-key", default="emulator-api-key", help="the X-Auth-Key to accept")
    emulator.add_argument("--email", default="user@example.com", help="the X-Auth-Email to accept")
    emulator.add_argument("--api-token", default="emulator-api-token", help="the bearer token to accept")

    esc = commands.add_parser(
        "esc",
        help="read, disable or re-enable ESC on a zone or an account",
        description="Credentials from CLOUDFLARE_API_TOKEN, or CLOUDFLARE_API_KEY and CLOUDFLARE_EMAIL; "
        "CLOUDFLARE_BASE_URL overrides the API root.",
    )
    esc.add_argument("action", choices=["status", "disable", "enable"])
    target = esc.add_mutually_exclusive_group(required=True)
    target.add_argument("--zone", metavar="ZONE_ID")
    target.add_argument("--account", metavar="ACCOUNT_ID")

    filters = commands.add_parser("filter", help="work with log-push job filters").add_subparsers(
        dest="filter_command", metavar="ACTION", required=True
    )
    scan = filters.add_parser(
        "scan",
        help="run a filter over NDJSON log files and count (or keep) the lines it matches",
        description=(
            "Run a log-push filter over NDJSON log files (plain or gzip), on every core, and print how many "
            "lines match. Blank lines are skipped; lines that are not a JSON object are counted as malformed."
        ),
    )
    scan.add_argument("filter", metavar="FILTER", help="the filter: a file, JSON text, or - for stdin")
    scan.add_argument("logs", metavar="LOGS", nargs="+", help="NDJSON files (.gz too), or - for stdin")
    mode = scan.add_mutually_exclusive_group()
    mode.add_argument("--count", action="store_true", help="print only the number of matching lines")
    mode.add_argument("--output", metavar="FILE", help="write the matching lines to FILE, in input order")
    scan.add_argument("--strict", action="store_true", help="stop with an error at the first malformed line")
    scan.add_argument("--threads", type=int, default=None, metavar="N", help="worker threads (default: one per core)")
    return parser


def _run_emulator(args: argparse.Namespace) -> int:
    import time

    from .testing import Emulator

    with Emulator(args.port, api_key=args.api_key, email=args.email, api_token=args.api_token) as emu:
        print(f"escpush emulator on {emu.base_url}", flush=True)
        print("credentials: the --api-key/--email/--api-token values (defaults in --help); Ctrl-C stops", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
    return 0


def _run_esc(args: argparse.Namespace) -> int:
    from . import Client, EscpushError

    try:
        client = Client.from_env()
        scope = client.zone(args.zone) if args.zone is not None else client.account(args.account)
        if args.action == "disable":
            scope.esc.disable()
        elif args.action == "enable":
            scope.esc.enable()
        status = scope.esc.status()
    except EscpushError as err:
        print(f"escpush: {err}", file=sys.stderr)
        return 1
    secret = f", secret set ({len(status.secret)} characters)" if status.secret is not None else ""
    print(f"{'zone' if args.zone is not None else 'account'} {scope.id}: ESC {status.state}{secret}")
    return 0


def _read_filter(arg: str) -> str:
    """The filter's text: from stdin (-), JSON text as given, or a file."""
    if arg == "-":
        return sys.stdin.read()
    if arg.lstrip().startswith(("{", '"')):
        return arg
    try:
        with open(arg, encoding="utf-8") as f:
            return f.read()
    except OSError as err:
        raise ValueError(
            f"cannot read the filter file `{arg}` ({err.strerror}); FILTER is a file, JSON text or -"
        ) from None
    except UnicodeDecodeError:
        raise ValueError(f"the filter file `{arg}` is not UTF-8 text") from None


def _human_bytes(n: float) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} TB"  # pragma: no cover


class _ProgressBar:
    """A one-line progress report on stderr, drawn only on a terminal and after a second."""

    def __init__(self, logs: Sequence[str]) -> None:
        import os
        import time

        self.start = time.monotonic()
        self.shown = False
        # A percentage only when every input's size is its NDJSON size (plain files).
        sizes = [os.path.getsize(p) if p != "-" and not p.endswith(".gz") and os.path.isfile(p) else None for p in logs]
        self.total = None if None in sizes else sum(s for s in sizes if s is not None)

    def __call__(self, done: int, lines: int) -> None:
        import time

        elapsed = time.monotonic() - self.start
        if elapsed < 1.0:
            return
        rate = _human_bytes(done / elapsed) + "/s"
        text = f"{_human_bytes(done)}, {lines:,} lines, {rate}"
        if self.total:
            share = min(done / self.total, 1.0)
            bar = "#" * int(share * 30)
            text = f"[{bar:<30}] {share:4.0%} {text}"
        sys.stderr.write(f"\r{text}\x1b[K")
        sys.stderr.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def _run_filter_scan(args: argparse.Namespace) -> int:
    from . import EscpushError, Filter

    if args.filter == "-" and "-" in args.logs:
        print("escpush: FILTER and LOGS cannot both be - (stdin)", file=sys.stderr)
        return 2
    try:
        f = Filter.parse(_read_filter(args.filter))
    except (ValueError, EscpushError) as err:  # FilterError is a ValueError too
        print(f"escpush: {err}", file=sys.stderr)
        return 2
    progress = _ProgressBar(args.logs) if sys.stderr.isatty() else None
    try:
        if args.output is not None:
            result = f.select(args.logs, args.output, strict=args.strict, threads=args.threads, progress=progress)
        else:
            result = f.scan(args.logs, strict=args.strict, threads=args.threads, progress=progress)
    except EscpushError as err:
        print(f"escpush: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("escpush: interrupted", file=sys.stderr)
        return 130
    finally:
        if progress is not None:
            progress.close()
    if args.count:
        print(result.matched)
        return 0
    share = f" ({result.matched / result.total:.2%})" if result.total else ""
    rate = f", {_human_bytes(result.bytes / result.seconds)}/s" if result.seconds > 0 else ""
    print(
        f"{result.matched:,} of {result.total:,} lines match{share}; "
        f"{_human_bytes(result.bytes)} in {result.seconds:.2f} s{rate}"
    )
    if result.malformed:
        source, line, reason = result.first_malformed or ("?", 0, "?")
        lines = "line" if result.malformed == 1 else "lines"
        print(f"{result.malformed:,} malformed {lines}; the first: {source} line {line}: {reason}")
    if args.output is not None:
        print(f"matching lines written to {args.output}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "demo":
        from ._demo import run

        return run()
    if args.command == "emulator":
        return _run_emulator(args)
    if args.command == "esc":
        return _run_esc(args)
    if args.command == "filter":
        return _run_filter_scan(args)
    parser.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
