"""``escpush logpush pricing``: Logpush's pricing table as escpush computes with it (core's
``Pricing``: the rows, their source and date), with an Enterprise contract's overrides. This
module reads arguments and prints."""

from __future__ import annotations

import argparse

from ._common import EXIT_OK, CliError, command, emit, output_options

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .._escpush import Pricing
    from ._common import Commands


def add(logpush: Commands) -> None:
    pricing = command(
        logpush,
        "pricing",
        "print Logpush's pricing table (rates, included amounts, source)",
        "Print the rates and included amounts escpush prices a job with: Logpush's published table "
        "(cloudflare-docs logs/logpush/pricing.mdx), its date, and the units (a GB is 10^9 bytes, a month 30 "
        "days). An Enterprise contract's prices differ: --override NAME=VALUE sets a rate (dollars per GB, "
        "or per million requests for workers) or an included amount (GB, or millions of requests).",
        [
            "escpush logpush pricing",
            "escpush logpush pricing --json",
            "escpush logpush pricing --override external_rate=0.08 --override external_included=0",
        ],
        [output_options()],
    )
    pricing.add_argument(
        "--override",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a rate or included amount of your contract: internal_rate, internal_included, external_rate, "
        "external_included, transform_rate, transform_included, workers_rate, workers_included (repeatable)",
    )
    pricing.set_defaults(run=run_pricing)


def pricing_from(overrides: list[str]) -> Pricing:
    """The published table with ``NAME=VALUE`` overrides, each checked by core."""
    from .._escpush import Pricing

    pricing = Pricing()
    for given in overrides:
        name, sep, value = given.partition("=")
        if not sep:
            raise CliError(f"--override takes NAME=VALUE, like external_rate=0.08 (got `{given}`)")
        try:
            number = float(value)
        except ValueError:
            raise CliError(f"--override {name}: `{value}` is not a number") from None
        pricing = pricing.with_override(name.strip(), number)
    return pricing


def _text(table: dict[str, Any]) -> str:
    source = table["source"]
    head = (
        f"Logpush pricing ({source['page']} at {source['commit'][:8]}, effective {source['effective']}, "
        f"read {source['read']})"
    )
    if not table["published"]:
        head += ", with your overrides"
    rows = [("component", "included a month", "rate", "applies to")]
    for r in table["rows"]:
        per = "GB" if r["unit"] == "GB" else "million"
        rows.append((r["component"], f"{r['included']:g} {r['unit']}", f"{r['rate_shown']} per {per}", r["applies_to"]))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = [head, ""]
    lines += [f"{a:<{widths[0]}}  {b:<{widths[1]}}  {c:<{widths[2]}}  {d}" for a, b, c, d in rows]
    lines += [
        "",
        f"A GB is {table['bytes_per_gb']:,} bytes; a month is {table['days_per_month']} days. Included amounts "
        "are per account, each month; each component is computed on its own: max(0, usage - included) x rate.",
    ]
    return "\n".join(lines)


def run_pricing(args: argparse.Namespace) -> int:
    table = pricing_from(args.override).to_dict()
    emit(args, table, _text(table))
    return EXIT_OK
