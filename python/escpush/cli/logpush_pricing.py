"""``escpush logpush pricing``: Logpush's pricing table as escpush computes with it (core's
``Pricing``: the rows, their source and date), with an Enterprise contract's overrides; and
the cost options a command that measures a sample adds (:func:`add_cost_options`,
:func:`cost_of`: ``--requests-per-day``, ``--scale``, ``--destination-class``,
``--subtract-allowance``, ``--override``). This module reads arguments and prints; the rules
are core's."""

from __future__ import annotations

import argparse

from ._common import EXIT_OK, CliError, command, emit, output_options

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .._escpush import Cost, PreviewResult, Pricing
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
    _add_override(pricing)
    pricing.set_defaults(run=run_pricing)


def _add_override(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    parser.add_argument(
        "--override",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a rate or included amount of your contract: internal_rate, internal_included, external_rate, "
        "external_included, transform_rate, transform_included, workers_rate, workers_included (repeatable)",
    )


def _number(text: str) -> float:
    """An option type: a number (its range is core's to check, naming the option)."""
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"`{text}` is not a number") from None


def _add_projection(group: argparse._ArgumentGroup) -> None:
    """How a sample is made a month when not by its span: ``--requests-per-day``, ``--scale``."""
    group.add_argument(
        "--requests-per-day",
        type=_number,
        metavar="N",
        help="the sample's lines read stand for N requests a day (a month is 30 days)",
    )
    group.add_argument("--scale", type=_number, metavar="F", help="a month is the sample times F")


def add_cost_options(parser: argparse.ArgumentParser) -> None:
    """The options of a month's cost, for a command that measures a sample (a preview)."""
    cost = parser.add_argument_group(
        "cost",
        "A month from the sample: by the time its timestamps span, unless --requests-per-day or --scale "
        "says otherwise; priced at the rate of the destination's class (`escpush logpush pricing`).",
    )
    _add_projection(cost)
    cost.add_argument(
        "--destination-class",
        choices=("internal", "external"),
        help="price at this class (default: the one the job's destination_conf says; Pipelines, which has no "
        "documented destination_conf, is internal)",
    )
    cost.add_argument(
        "--subtract-allowance",
        action="store_true",
        help="take the account's included GB off this job's cost (they are shared by every job of the account)",
    )
    _add_override(cost)


def add_sample_options(parser: argparse.ArgumentParser) -> None:
    """``--sample`` and the options of its month, for a command that changes jobs (``apply``,
    ``ensure``, ``check-plan``): each job that changes is previewed before and after over
    the sample and priced."""
    sample = parser.add_argument_group(
        "what a change costs",
        "With --sample, each job that changes is run over those logs before and after (as `escpush logpush "
        "preview` does) and its month is shown before and after, with the difference: -38 GB/month, -$3.80. "
        "A month is the time the sample's timestamps span, unless --requests-per-day or --scale says otherwise.",
    )
    sample.add_argument("--sample", nargs="+", metavar="PATH", help="the logs: files, folders, globs (not -)")
    _add_projection(sample)
    _add_override(sample)


def sample_keywords(args: argparse.Namespace) -> dict[str, Any]:
    """The keywords of ``apply`` / ``ensure_job`` / ``check_terraform_plan`` that
    :func:`add_sample_options` gave (the binding refuses a projection without a sample)."""
    return {
        "sample": args.sample,
        "requests_per_day": args.requests_per_day,
        "scale": args.scale,
        "pricing": pricing_from(args.override) if args.override else None,
    }


def delivery_lines(delivery: dict[str, Any] | None) -> list[str]:
    """A change's month before and after, and the difference (core's wordings), as the lines
    under a job of ``apply`` / ``ensure`` / ``check-plan``."""
    if not delivery:
        return []
    before = delivery["before"]["short"] if delivery["before"] else "nothing (a new job)"
    after = delivery["after"]["short"] if delivery["after"] else "nothing (deleted)"
    lines = [f"    a month over the sample: {before} -> {after}: {delivery['change']}"]
    if delivery.get("note"):
        lines.append(f"    ({delivery['note']})")
    return lines


def asked_for_cost(args: argparse.Namespace) -> bool:
    """Whether the command line gave any of :func:`add_cost_options`' options (then a cost
    that cannot be projected is an error, not a note)."""
    return (
        args.requests_per_day is not None
        or args.scale is not None
        or args.destination_class is not None
        or args.subtract_allowance
        or bool(args.override)
    )


def cost_of(args: argparse.Namespace, preview: PreviewResult) -> Cost:
    """The month and cost of a preview, as :func:`add_cost_options`' options say
    (``PreviewResult.cost``: core's projection and pricing)."""
    return preview.cost(
        requests_per_day=args.requests_per_day,
        scale=args.scale,
        destination_class=args.destination_class,
        subtract_allowance=args.subtract_allowance,
        pricing=pricing_from(args.override),
    )


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
