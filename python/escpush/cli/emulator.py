"""``escpush emulator`` and ``escpush demo``: the two commands that run the embedded API
emulator on 127.0.0.1, one serving other clients until Ctrl-C, one walking through the main
jobs against it."""

from __future__ import annotations

from ._common import EXIT_OK, CliError, command, integer

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from ..testing import Emulator
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
    edge = emulator.add_argument_group(
        "edge mode",
        "Also serve the site of a zone, each on its own port, whose responses ESC alters unless ESC is off for "
        "the request (the zone or its account disabled, or the cookie disable_esc equal to their secret): the "
        "target of `escpush esc assess`.",
    )
    edge.add_argument(
        "--site",
        action="append",
        default=[],
        metavar="ZONE[:ACCOUNT]",
        help="serve the demo site of ZONE (in ACCOUNT): / and /new, and /old which ESC redirects; repeat for more",
    )
    edge.add_argument(
        "--site-config",
        action="append",
        default=[],
        metavar="FILE",
        help="serve the site a JSON file describes (zone, account, delay, pages, esc; see "
        "escpush.testing.Emulator.serve_site); repeat for more",
    )
    edge.add_argument(
        "--site-delay",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="with --site: how long a change of ESC takes to reach the site (default 0)",
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
        _serve_sites(emu, args)
        print(f"escpush emulator on {emu.base_url}", flush=True)
        for zone, url in emu.sites().items():
            print(f"site of zone {zone} on {url}", flush=True)
        print("credentials: the --api-key/--email/--api-token values (defaults in --help); Ctrl-C stops", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
    return EXIT_OK


def _serve_sites(emu: Emulator, args: argparse.Namespace) -> None:
    """The sites of --site and --site-config; a bad one is a usage error naming it."""
    import json

    from .._escpush import _load_json
    from ..errors import InvalidInput
    from ._common import read_text

    for spec in args.site:
        zone, _, account = spec.partition(":")
        emu.serve_site(zone, account=account or None, delay=args.site_delay)
    for path in args.site_config:
        try:
            config = _load_json(read_text(path, "site file"))
        except InvalidInput as err:  # a key given twice, NaN, too deep: with line and column
            raise CliError(f"the site file `{path}` is {err}") from None
        if not isinstance(config, dict) or not isinstance(config.get("zone"), str):
            raise CliError(f"the site file `{path}` must be an object with a `zone`")
        emu._server.serve_site(json.dumps(config))
