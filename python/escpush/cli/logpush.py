"""``escpush logpush create|list|get``: log-push jobs of a zone or an account. The optional
job fields ``create`` takes come from core's list (``escpush._escpush._EXTRA_JOB_FIELDS``),
so an option exists for each field core accepts; jobs are printed masked, their fields in
the order of :mod:`escpush._format`."""

from __future__ import annotations

import argparse

from ._common import (
    EXIT_OK,
    MAX_COUNT,
    CliError,
    api_options,
    command,
    emit,
    filter_text,
    group,
    integer,
    output_options,
    read_stdin,
    scope,
    where,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ._common import Commands

# What each optional job field's option says, and its metavar; a field core adds later
# gets a plain help.
_HELP = {
    "enabled": ("start it enabled", None),
    "kind": ('"edge" for Instant Logs jobs, else leave it out', "KIND"),
    "frequency": ('"high" or "low"', "FREQ"),
    "max_upload_bytes": ("largest upload, in bytes", "N"),
    "max_upload_records": ("most records per upload", "N"),
    "max_upload_interval_seconds": ("longest wait between uploads", "N"),
    "output_options": ("the output_options object, as JSON", "JSON"),
    "ownership_challenge": ("the destination's ownership challenge token", "TOKEN"),
    "filter_attack_traffic": ("leave out attack traffic", None),
}
_METAVARS = {"string": "VALUE", "int": "N", "object": "JSON"}


def _add_extra_fields(options: argparse._ArgumentGroup) -> None:
    """One option per optional job field core knows, typed as core checks it."""
    from .._escpush import _EXTRA_JOB_FIELDS

    for name, kind in _EXTRA_JOB_FIELDS:
        flag = "--" + name.replace("_", "-")
        help, metavar = _HELP.get(name, (f"the job's {name} ({kind})", None))
        metavar = metavar or _METAVARS.get(kind, "VALUE")
        if kind == "bool":
            options.add_argument(flag, action=argparse.BooleanOptionalAction, default=None, help=help)
        elif kind == "int":
            options.add_argument(flag, type=integer(0, MAX_COUNT), metavar=metavar, help=help)
        else:
            options.add_argument(flag, metavar=metavar, help=help)


def _extra_fields(args: argparse.Namespace) -> dict[str, Any]:
    """The optional job fields given, as create_job takes them."""
    import json

    from .._escpush import _EXTRA_JOB_FIELDS

    fields: dict[str, Any] = {}
    for name, kind in _EXTRA_JOB_FIELDS:
        value = getattr(args, name)
        if value is None:
            continue
        if kind == "object":
            try:
                value = json.loads(value)
            except ValueError as err:
                raise CliError(f"--{name.replace('_', '-')} is not JSON: {err}") from None
        fields[name] = value
    return fields


def add(commands: Commands, summary: str) -> None:
    logpush = group(
        commands, "logpush", summary, "Log-push jobs of a zone or an account.", "escpush logpush list --zone ZONE_ID"
    )
    parents = [api_options(), output_options()]
    create = command(
        logpush,
        "create",
        "create a log-push job (checked before anything is sent)",
        "Create a log-push job. Every field is checked first (dataset and scope, destination, logpull "
        "options, the filter against the dataset and the limits) and every problem is reported; nothing is "
        "sent unless all pass. The destination's parameters may hold credentials: they are never printed.",
        [
            "escpush logpush create --zone ZONE_ID --dataset http_requests \\\n"
            "    --destination-conf 's3://bucket/logs?region=us-east-1' --filter my-filter.json \\\n"
            "    --logpull-options 'fields=ClientIP,EdgeResponseStatus&timestamps=rfc3339'",
            "escpush logpush create --account ACCOUNT_ID --dataset gateway_dns --destination-conf - < dest.txt",
        ],
        parents,
    )
    job = create.add_argument_group("job fields")
    job.add_argument("--dataset", required=True, metavar="NAME", help="the dataset to push (required)")
    job.add_argument(
        "--destination-conf",
        required=True,
        metavar="URL",
        help="where to push, e.g. s3://bucket/path?region=us-east-1 (required; - reads it from stdin)",
    )
    job.add_argument("--name", metavar="NAME", help="the job's name")
    job.add_argument("--filter", metavar="FILTER", help="a filter: a file, JSON text, or - for stdin")
    job.add_argument(
        "--logpull-options", metavar="QUERY", help="e.g. fields=ClientIP,EdgeStartTimestamp&timestamps=rfc3339"
    )
    _add_extra_fields(job)
    create.set_defaults(run=run_create)
    command(
        logpush,
        "list",
        "list the jobs",
        "List the log-push jobs of the zone or account.",
        ["escpush logpush list --zone ZONE_ID", "escpush logpush list --account ACCOUNT_ID --json"],
        parents,
    ).set_defaults(run=run_list)
    get = command(
        logpush, "get", "show one job", "Show one log-push job.", ["escpush logpush get 7 --zone ZONE_ID"], parents
    )
    get.add_argument("job_id", metavar="JOB_ID", type=integer(1, 2**63 - 1), help="the job's id")
    get.set_defaults(run=run_get)


def job_text(job: dict[str, object]) -> str:
    """A job (already masked) as a title line and one line per field that has a value."""
    import json

    from .._format import job_items

    lines = [f"job {job.get('id')}" + (f" {job['name']!r}" if job.get("name") else "")]
    for key, value in job_items(job):
        if key not in ("id", "name") and value is not None and value != "":
            lines.append(f"  {key + ':':<18}{value if isinstance(value, str) else json.dumps(value)}")
    return "\n".join(lines)


def run_create(args: argparse.Namespace) -> int:
    destination = args.destination_conf
    if destination == "-":
        if args.filter == "-":
            raise CliError("--destination-conf and --filter cannot both be - (stdin)")
        destination = read_stdin("destination").strip()
    fields = _extra_fields(args)
    target = scope(args)
    created = target.logpush.create_job(
        destination_conf=destination,
        dataset=args.dataset,
        name=args.name,
        filter=None if args.filter is None else filter_text(args.filter),
        logpull_options=args.logpull_options,
        **fields,
    )
    view = created.redacted()
    emit(args, view, f"created on {where(args)}: " + job_text(view))
    return EXIT_OK


def run_list(args: argparse.Namespace) -> int:
    jobs = [j.redacted() for j in scope(args).logpush.jobs()]
    text = "\n".join(job_text(j) for j in jobs) if jobs else f"no log-push jobs on {where(args)}"
    emit(args, jobs, text)
    return EXIT_OK


def run_get(args: argparse.Namespace) -> int:
    view = scope(args).logpush.job(args.job_id).redacted()
    emit(args, view, job_text(view))
    return EXIT_OK
