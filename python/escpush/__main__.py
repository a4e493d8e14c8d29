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
    parser.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
