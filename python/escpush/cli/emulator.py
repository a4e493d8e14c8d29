"""``escpush emulator`` and ``escpush demo``: the two commands that run the embedded API
emulator on 127.0.0.1, one serving other clients until Ctrl-C, one walking through the main
jobs against it."""

from __future__ import annotations

from ._common import EXIT_OK, CliError, command, integer

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from ._common import Commands


def add_emulator(commands: Commands, summary: str) -> None:
    emulator = command(
        commands,
        "emulator",
        summary,
        "Serve the ESC and log-push API (v4 envelope) on 127.0.0.1 for curl, other SDKs or scripts, until "
        "Ctrl-C. It accepts X-Auth-Key/X-Auth-Email or Authorization: Bearer with the credentials given "
        "here; the defaults are fixed, emulator-only values.",
        [
            "escpush emulator --port 8787",
            "CLOUDFLARE_BASE_URL=http://127.0.0.1:8787/client/v4 CLOUDFLARE_API_TOKEN=emulator-api-token \\\n"
            "    escpush esc status --zone z1",
        ],
    )
    emulator.add_argument(
        "--port", type=integer(0, 65535), default=8787, help="port on 127.0.0.1 (0: a free one; default 8787)"
    )
    emulator.add_argument("--api-key", default="emulator-api-key", help="X-Auth-Key to accept (default %(default)s)")
    emulator.add_argument("--email", default="user@example.com", help="X-Auth-Email to accept (default %(default)s)")
    emulator.add_argument(
        "--api-token", default="emulator-api-token", help="bearer token to accept (default %(default)s)"
    )
    emulator.set_defaults(run=run_emulator)


def add_demo(commands: Commands, summary: str) -> None:
    demo = command(
        commands,
        "demo",
        summary,
        "Build and check a filter, run the ESC test order and create a log-push job, all against an "
        "emulator started on 127.0.0.1 for the run. Nothing leaves the machine.",
        ["escpush demo"],
    )
    demo.set_defaults(run=run_demo)


def run_demo(args: argparse.Namespace) -> int:
    from .._demo import run

    return run()


def run_emulator(args: argparse.Namespace) -> int:
    import time

    from ..testing import Emulator

    try:
        emu = Emulator(args.port, api_key=args.api_key, email=args.email, api_token=args.api_token)
    except OSError as err:
        raise CliError(f"cannot serve on 127.0.0.1 port {args.port}: {err.strerror or err}") from None
    with emu:
        print(f"escpush emulator on {emu.base_url}", flush=True)
        print("credentials: the --api-key/--email/--api-token values (defaults in --help); Ctrl-C stops", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
    return EXIT_OK
