"""``escpush datasets check``: the live field lists of a scope's datasets against escpush's
embedded schemas (``Logpush.check_fields``), so a team knows when its escpush is stale."""

from __future__ import annotations

from ._common import EXIT_CHECK_FAILED, EXIT_OK, api_options, command, emit, group, output_options, scope, where

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from ._common import Commands


def add(commands: Commands, summary: str) -> None:
    datasets = group(
        commands,
        "datasets",
        summary,
        "Log-push datasets as the API serves them.",
        "escpush datasets check --zone ZONE_ID",
    )
    check = command(
        datasets,
        "check",
        "compare the live field lists with escpush's schemas",
        "Read the live field list of each dataset of the zone or account (or of those named) and report "
        "the fields the API has that escpush's embedded schema lacks (escpush is stale: upgrade it) and "
        "the reverse (fields the API dropped). Exit status 1 when any differ.",
        ["escpush datasets check --zone ZONE_ID", "escpush datasets check --account ACCOUNT_ID gateway_dns --json"],
        [api_options(), output_options()],
    )
    check.add_argument("datasets", nargs="*", metavar="DATASET", help="the datasets (default: every one of the scope)")
    check.set_defaults(run=run_check)


def run_check(args: argparse.Namespace) -> int:
    drift = scope(args).logpush.check_fields(args.datasets or None)
    if not drift:
        emit(args, drift, f"the live fields of {where(args)} match escpush's schemas")
        return EXIT_OK
    lines = []
    for name, sides in drift.items():
        lines.append(f"{name}:")
        lines.extend(f"  + {f} (the API has it; escpush's schema lacks it)" for f in sides["only_live"])
        lines.extend(f"  - {f} (escpush's schema has it; the API no longer lists it)" for f in sides["only_embedded"])
    emit(args, drift, "\n".join(lines))
    return EXIT_CHECK_FAILED
