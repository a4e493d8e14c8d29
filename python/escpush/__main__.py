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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "demo":
        from ._demo import run

        return run()
    parser.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
