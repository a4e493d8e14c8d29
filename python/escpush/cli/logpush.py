"""``escpush logpush create|list|get|update|enable|disable|delete|ensure|apply|fields``:
log-push jobs of a zone or an account, for their whole life; ``validate-origin``,
``validate-destination`` and ``destination-exists`` ask the API's checks, and
``instant-logs list|create`` a zone's Instant Logs sessions; ``pricing`` prints the pricing
table a job's cost is computed with. The job fields ``create``,
``update`` and ``ensure`` take come from core's job field table
(``escpush._escpush._JOB_FIELDS``): an option for each field a creation (or an update) may
set, typed and explained as the table says; the fields read by a type of their own (the
dataset, the destination, the filter, the options) have options that also read files and
stdin. Jobs are printed masked, their fields in the table's order (:mod:`escpush._format`).
``apply`` reads a JSON or TOML file of the jobs the scope should have; plans and diffs come
from core (the comparison by meaning, the safe update), with secrets masked."""

from __future__ import annotations

import argparse
import sys

from ..errors import Terminated
from ._common import (
    EXIT_CHECK_FAILED,
    EXIT_OK,
    MAX_COUNT,
    CliError,
    api_options,
    bom_note,
    command,
    emit,
    endpoint,
    failure,
    filter_text,
    group,
    integer,
    output_options,
    read_stdin,
    read_text,
    scope,
    where,
    writes,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ._common import Commands

# The metavar of a plain field's option, by its JSON type (a string's is its name).
_METAVARS = {"int": "N", "object": "JSON"}


def _plain_fields(mode: str) -> list[dict[str, Any]]:
    """The rows of core's job field table a ``mode`` (create, update, ensure) takes as plain
    options: those it may set that no type of their own reads."""
    from .._escpush import _JOB_FIELDS

    settable = "update" if mode == "update" else "create"
    return [f for f in _JOB_FIELDS if f[settable] and not f["parsed"]]


def _add_plain_field(options: argparse._ArgumentGroup, field: dict[str, Any], mode: str) -> None:
    """One option for a plain job field, typed as core checks it."""
    name, kind = field["name"], field["type"]
    flag = "--" + name.replace("_", "-")
    help = field["about"]
    if kind == "bool":
        options.add_argument(flag, action=argparse.BooleanOptionalAction, default=None, help=help)
        return
    metavar = _METAVARS.get(kind, name.upper())
    # ensure finds the job by its name.
    required = mode == "ensure" and name == "name"
    if required:
        help += " (required): how it is found"
    if field["secret"]:
        help += " (- reads it from stdin, keeping it out of the shell's history and the process list)"
    if kind == "int":
        read: Callable[[str], int | str] = integer(0, MAX_COUNT)
        if field["nullable"] and mode != "create":  # `null` clears it (--transformer-id null detaches)
            help, read = f"{help} (null: none)", lambda text: "null" if text == "null" else integer(0, MAX_COUNT)(text)
        options.add_argument(flag, type=read, metavar=metavar, help=help, required=required)
    else:
        options.add_argument(flag, metavar=metavar, help=help, required=required)


def _extra_fields(args: argparse.Namespace) -> dict[str, Any]:
    """The plain job fields given, as create_job takes them."""
    from .._escpush import _JOB_FIELDS, _load_json
    from ..errors import InvalidInput

    fields: dict[str, Any] = {}
    for field in _JOB_FIELDS:
        name = field["name"]
        value = getattr(args, name, None) if not field["parsed"] else None
        if value is None:
            continue
        if field["secret"] and value == "-":
            if "-" in (getattr(args, "destination_conf", None), getattr(args, "filter", None)):
                raise CliError(f"--{name.replace('_', '-')} and another option cannot both be - (stdin)")
            value = read_stdin(name.replace("_", " ")).strip()
        if value == "null" and field["type"] == "int":
            value = None
        elif field["type"] == "object":
            try:
                value = _load_json(value)
            except InvalidInput as err:
                raise CliError(f"--{name.replace('_', '-')} is {err}") from None
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
        "Create a log-push job. Every field is checked first (dataset and scope, destination and the "
        "ownership challenge it needs, logpull options, the filter against the dataset and the limits, "
        "every other field as docs/job-rules.md lists) and every problem is reported; nothing is sent "
        "unless all pass. The destination's parameters may hold credentials: they are never printed.",
        [
            "escpush logpush create --zone ZONE_ID --dataset http_requests \\\n"
            "    --destination-conf 's3://bucket/logs?region=us-east-1' --ownership-challenge TOKEN \\\n"
            "    --filter my-filter.json --logpull-options 'fields=ClientIP,EdgeResponseStatus&timestamps=rfc3339'",
            "escpush logpush create --account ACCOUNT_ID --dataset gateway_dns --destination-conf - < dest.txt",
        ],
        parents,
    )
    _job_options(create, "create")
    create.set_defaults(run=run_create)
    writes(create)
    listing = command(
        logpush,
        "list",
        "list the jobs",
        "List the log-push jobs of the zone or account (with --dataset, of one dataset).",
        [
            "escpush logpush list --zone ZONE_ID",
            "escpush logpush list --account ACCOUNT_ID --json",
            "escpush logpush list --zone ZONE_ID --dataset http_requests",
        ],
        parents,
    )
    listing.add_argument("--dataset", metavar="NAME", help="only the jobs of this dataset")
    listing.set_defaults(run=run_list)
    get = command(
        logpush, "get", "show one job", "Show one log-push job.", ["escpush logpush get 7 --zone ZONE_ID"], parents
    )
    get.add_argument("job_id", metavar="JOB_ID", type=integer(1, 2**63 - 1), help="the job's id")
    get.set_defaults(run=run_get)
    _add_lifecycle(logpush, parents)
    _add_checks(logpush, parents)
    _add_instant_logs(logpush, parents)
    from . import logpush_preview, logpush_pricing, logpush_terraform, logpush_transformer

    logpush_transformer.add(logpush, parents)
    logpush_terraform.add(logpush)
    logpush_preview.add(logpush, parents)
    logpush_pricing.add(logpush)


_JOB_ID = integer(1, 2**63 - 1)


def _job_options(parser: argparse.ArgumentParser, mode: str) -> None:
    """The job fields of ``create`` (dataset and destination required), ``update`` (all
    optional, and ``--no-filter``) and ``ensure`` (name, dataset and destination required),
    in the order of core's table: the plain ones as the table says, the ones a type of their
    own reads (file and stdin forms) written here."""
    from .._escpush import _JOB_FIELDS

    job = parser.add_argument_group("job fields")
    # ensure may take the dataset and destination from --from FILE instead.
    required = mode == "create"
    plain = {f["name"] for f in _plain_fields(mode)}
    for field in _JOB_FIELDS:
        name = field["name"]
        if name in plain:
            _add_plain_field(job, field, mode)
        elif not field[("update" if mode == "update" else "create")]:
            continue
        elif name == "dataset":
            job.add_argument(
                "--dataset",
                required=required,
                metavar="NAME",
                help="the dataset to push (required" + (" unless --from gives it)" if mode == "ensure" else ")"),
            )
        elif name == "destination_conf":
            job.add_argument(
                "--destination-conf",
                required=required,
                metavar="URL",
                help="where to push, e.g. s3://bucket/path?region=us-east-1 ("
                + ("required; " if required else "required unless --from gives it; " if mode == "ensure" else "")
                + "- reads it from stdin)",
            )
        elif name == "filter":
            job.add_argument(
                "--filter", metavar="FILTER", help="a filter: a file, JSON text, the text form, or - for stdin"
            )
            if mode == "update":
                clear = "remove the job's filter"
                job.add_argument("--no-filter", dest="clear_filter", action="store_true", help=clear)
        elif name == "logpull_options":
            job.add_argument(
                "--logpull-options", metavar="QUERY", help="e.g. fields=ClientIP,EdgeStartTimestamp&timestamps=rfc3339"
            )


def _add_lifecycle(logpush: Commands, parents: list[argparse.ArgumentParser]) -> None:
    update = command(
        logpush,
        "update",
        "change some fields of a job, keeping the rest",
        "Update a job: only the fields given are sent, as the API takes an update (output_options is merged "
        "onto the stored one and sent whole), so nothing not named changes. The job is read first and the "
        "changes are checked as a creation would check them, on the stored job with the changes, before "
        "anything is written; dataset and kind cannot change, and a new destination that needs an ownership "
        "challenge needs --ownership-challenge too.",
        [
            "escpush logpush update 7 --zone ZONE_ID --filter new-filter.json",
            "escpush logpush update 7 --zone ZONE_ID --frequency low --no-filter",
        ],
        parents,
    )
    update.add_argument("job_id", metavar="JOB_ID", type=_JOB_ID, help="the job's id")
    _job_options(update, "update")
    update.set_defaults(run=run_update)
    writes(update)
    for name, summary in (("enable", "enable a job"), ("disable", "disable a job (it stays, paused)")):
        toggle = command(
            logpush,
            name,
            summary,
            f"{summary[0].upper()}{summary[1:]}: an update of `enabled` alone.",
            [f"escpush logpush {name} 7 --zone ZONE_ID"],
            parents,
        )
        toggle.add_argument("job_id", metavar="JOB_ID", type=_JOB_ID, help="the job's id")
        toggle.set_defaults(run=run_enable if name == "enable" else run_disable)
        writes(toggle)
    delete = command(
        logpush,
        "delete",
        "delete a job",
        "Delete a log-push job. A job already gone is reported as not found (exit status 3).",
        ["escpush logpush delete 7 --zone ZONE_ID"],
        parents,
    )
    delete.add_argument("job_id", metavar="JOB_ID", type=_JOB_ID, help="the job's id")
    delete.set_defaults(run=run_delete)
    writes(delete)
    ensure = command(
        logpush,
        "ensure",
        "create or update the job of a name, or leave it alone",
        "Make the job named --name be as given: create it when no job has the name, update only the fields "
        "that differ when one does, send nothing when it matches. Filters compare by meaning (member order, "
        'spacing, "500" for 500 on a number field, nesting of and/or groups), so running it again changes '
        "nothing. Fields not given are left as they are.",
        [
            "escpush logpush ensure --zone ZONE_ID --name errors --dataset http_requests \\\n"
            "    --destination-conf 'r2://bucket/logs?account-id=ID&access-key-id=KEY&secret-access-key=SECRET' \\\n"
            "    --filter errors.json",
        ],
        parents,
    )
    _job_options(ensure, "ensure")
    ensure.add_argument(
        "--from",
        dest="from_file",
        metavar="FILE",
        help="take the job named --name from FILE (JSON, TOML, or a Terraform .tf or .tf.json file, as apply "
        "reads them); the job fields given as options replace its",
    )
    from .logpush_pricing import add_sample_options
    from .logpush_terraform import add_scope_expression

    add_scope_expression(ensure)
    add_sample_options(ensure)
    ensure.set_defaults(run=run_ensure)
    writes(ensure)
    apply = command(
        logpush,
        "apply",
        "make the scope's jobs those a file lists",
        'Read FILE, the jobs the zone or account should have, by name: JSON {"jobs": [{"name": ..., '
        '"dataset": ..., ...}]} or the same in TOML ([[jobs]] tables; a .toml file, or any file that is not '
        "JSON), or a Terraform file (.tf, or .tf.json in Terraform's JSON syntax), its cloudflare_logpush_job "
        "resources (what `escpush logpush export --format terraform` writes, or hand-written ones of that shape); "
        "a problem with one names its resource (cloudflare_logpush_job.NAME). Each filter is JSON text, the text form "
        "(EdgeResponseStatus >= 500) or an object. A ${NAME} in a destination_conf is a credential read from "
        "the environment variable NAME (a Terraform var.x from TF_VAR_x; one set to the empty string is refused); "
        "unset, the job keeps the credential it has, at the place it pushes to only (a move to another host, "
        "bucket or path needs every credential); a literal ${ is written $${. Every job "
        "is checked first, and so are the API's job limits (4 per zone; 4 dlp_forensic_copies jobs per "
        "account); then the plan is printed "
        "(create; update, field by field; unchanged; jobs not in the file) and carried out: updates and "
        "creations first, deletions last, so that a failure loses no job. Jobs not in the "
        "file are deleted only with --prune. A failure part-way prints what was done before it (with --json, "
        "as the error's plan). Secrets are never printed.",
        [
            "escpush logpush apply jobs.toml --zone ZONE_ID --dry-run",
            "escpush logpush apply jobs.json --account ACCOUNT_ID --prune --json",
            "escpush logpush apply jobs.toml --zone ZONE_ID --dry-run --sample logs/2026-11-28/",
        ],
        parents,
    )
    apply.add_argument(
        "file",
        metavar="FILE",
        help="the jobs: JSON or TOML (- reads JSON or TOML from stdin), or a Terraform file (.tf, .tf.json) "
        "whose cloudflare_logpush_job resources are the jobs",
    )
    apply.add_argument("--dry-run", action="store_true", help="print the plan, send nothing")
    apply.add_argument("--prune", action="store_true", help="delete the jobs of the scope the file does not list")
    apply.add_argument(
        "--delete-first",
        action="store_true",
        help="delete before creating, to replace a job on a scope at its job limit (a failed creation then "
        "leaves the job it replaces deleted)",
    )
    add_scope_expression(apply)
    add_sample_options(apply)
    apply.set_defaults(run=run_apply)
    writes(apply)
    fields = command(
        logpush,
        "fields",
        "list a dataset's fields as the API serves them",
        "List the live fields of a dataset (the API's list, not escpush's embedded schema); "
        "`escpush datasets check` compares the two.",
        ["escpush logpush fields http_requests --zone ZONE_ID"],
        parents,
    )
    fields.add_argument("dataset", metavar="DATASET", help="the dataset")
    fields.set_defaults(run=run_fields)


def _add_checks(logpush: Commands, parents: list[argparse.ArgumentParser]) -> None:
    """The API's own checks: logpull options, a destination, a destination in use."""
    origin = command(
        logpush,
        "validate-origin",
        "ask the API whether logpull options are valid",
        f"Ask the API whether --logpull-options are valid ({endpoint('ValidateOrigin')}). With "
        "--dataset, the options are for that dataset, as the docs' example sends them, and fields it does "
        "not have are refused before anything is sent. Exits 1 when the API answers that they are not "
        "valid, with its message.",
        [
            "escpush logpush validate-origin --zone ZONE_ID --dataset http_requests \\\n"
            "    --logpull-options 'fields=RayID,ClientIP,EdgeStartTimestamp&timestamps=rfc3339'",
        ],
        parents,
    )
    origin.add_argument("--logpull-options", required=True, metavar="QUERY", help="the options (required)")
    origin.add_argument("--dataset", metavar="NAME", help="the dataset they are for")
    origin.set_defaults(run=run_validate_origin)
    for name, summary, description, run in (
        (
            "validate-destination",
            "ask the API whether it can push to a destination",
            f"Ask the API whether it can push to --destination-conf ({endpoint('ValidateDestination')}). "
            "Exits 1 when the API answers that it cannot, with its message. The destination's parameters "
            "may hold credentials: they are never printed.",
            run_validate_destination,
        ),
        (
            "destination-exists",
            "ask the API whether a job already pushes to a destination",
            f"Ask the API whether a job of the zone or account already pushes to --destination-conf "
            f"({endpoint('DestinationExists')}). Several jobs may share a destination: the answer is "
            "information, not a failure.",
            run_destination_exists,
        ),
    ):
        check = command(
            logpush,
            name,
            summary,
            description,
            [f"escpush logpush {name} --zone ZONE_ID --destination-conf 's3://bucket/logs?region=us-east-1'"],
            parents,
        )
        check.add_argument(
            "--destination-conf", required=True, metavar="URL", help="the destination (required; - reads stdin)"
        )
        check.set_defaults(run=run, filter=None)


def _add_instant_logs(logpush: Commands, parents: list[argparse.ArgumentParser]) -> None:
    """``instant-logs list|create``: a zone's live sessions."""
    parser = command(
        logpush,
        "instant-logs",
        "list or open a zone's Instant Logs sessions",
        "A zone's Instant Logs sessions: a live stream of its HTTP requests to a WebSocket address. The "
        "API has them on zones only, one active session per zone at a time.",
        ["escpush logpush instant-logs list --zone ZONE_ID", "escpush logpush instant-logs ACTION --help"],
    )
    actions = parser.add_subparsers(dest="instant_logs_action", metavar="ACTION", required=True)
    listing = command(
        actions,
        "list",
        "list the zone's sessions",
        f"List the zone's Instant Logs sessions ({endpoint('InstantLogsList')}).",
        ["escpush logpush instant-logs list --zone ZONE_ID"],
        parents,
    )
    listing.set_defaults(run=run_instant_logs_list)
    create = command(
        actions,
        "create",
        "open a session and print the address to listen on",
        "Open an Instant Logs session on the zone and print its wss:// address (the session's "
        "destination_conf), to listen on with a WebSocket client. --fields must be fields of http_requests, "
        "the one dataset of Instant Logs; --filter is checked as a job's filter on it; --sample N streams "
        "one request in N. Everything is checked before anything is sent, and the request is sent once.",
        [
            "escpush logpush instant-logs create --zone ZONE_ID --fields ClientIP,EdgeResponseStatus,RayID \\\n"
            "    --filter 'EdgeResponseStatus >= 500' --sample 10",
        ],
        parents,
    )
    create.add_argument("--fields", metavar="A,B", help="the fields to stream, comma-separated")
    create.add_argument("--filter", metavar="FILTER", help="a filter: a file, JSON text, the text form, or - for stdin")
    create.add_argument("--sample", type=int, metavar="N", help="stream one request in N (1: every one)")
    create.set_defaults(run=run_instant_logs_create)
    writes(create)


def _check_failed(err: Exception) -> CliError | None:
    """A check the API answered with `valid: false` (an ``ApiError`` of HTTP 200): a failed
    check (exit status 1), with the API's message."""
    from ..errors import ApiError

    if isinstance(err, ApiError) and err.status == 200 and err.errors:
        return CliError(str(err.errors[0]["message"]), EXIT_CHECK_FAILED)
    return None


def run_validate_origin(args: argparse.Namespace) -> int:
    try:
        message = scope(args).logpush.validate_origin(args.logpull_options, dataset=args.dataset)
    except Exception as err:
        raise _check_failed(err) or err from None
    emit(args, {"valid": True, "message": message}, "valid" + (f": {message}" if message else ""))
    return EXIT_OK


def run_validate_destination(args: argparse.Namespace) -> int:
    destination = _destination(args)
    try:
        message = scope(args).logpush.validate_destination(destination)
    except Exception as err:
        raise _check_failed(err) or err from None
    emit(args, {"valid": True, "message": message}, "valid" + (f": {message}" if message else ""))
    return EXIT_OK


def run_destination_exists(args: argparse.Namespace) -> int:
    exists = scope(args).logpush.destination_exists(_destination(args))
    text = f"a job of {where(args)} pushes there" if exists else f"no job of {where(args)} pushes there"
    emit(args, {"exists": exists}, text)
    return EXIT_OK


def _session_text(session: dict[str, Any]) -> str:
    lines = [f"session {session.get('session_id', '')}".rstrip(), f"  listen on:  {session.get('destination_conf')}"]
    for key in ("fields", "filter", "sample"):
        if session.get(key) not in (None, ""):
            lines.append(f"  {key + ':':<11} {session[key]}")
    return "\n".join(lines)


def run_instant_logs_list(args: argparse.Namespace) -> int:
    sessions = scope(args).logpush.instant_logs_jobs()
    text = "\n".join(_session_text(s) for s in sessions) if sessions else f"no Instant Logs sessions on {where(args)}"
    emit(args, sessions, text)
    return EXIT_OK


def run_instant_logs_create(args: argparse.Namespace) -> int:
    session = scope(args).logpush.create_instant_logs_job(
        fields=args.fields,
        filter=None if args.filter is None else filter_text(args.filter),
        sample=args.sample,
    )
    emit(args, session, f"opened on {where(args)}: " + _session_text(session))
    return EXIT_OK


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
    destination = _destination(args)
    fields = _extra_fields(args)
    target = scope(args)
    created = target.logpush.create_job(
        destination_conf=destination,
        dataset=args.dataset,
        filter=None if args.filter is None else filter_text(args.filter),
        logpull_options=args.logpull_options,
        **fields,
    )
    view = created.redacted()
    emit(args, view, f"created on {where(args)}: " + job_text(view))
    return EXIT_OK


def run_list(args: argparse.Namespace) -> int:
    jobs = [j.redacted() for j in scope(args).logpush.jobs(args.dataset)]
    text = "\n".join(job_text(j) for j in jobs) if jobs else f"no log-push jobs on {where(args)}"
    emit(args, jobs, text)
    return EXIT_OK


def run_get(args: argparse.Namespace) -> int:
    view = scope(args).logpush.job(args.job_id).redacted()
    emit(args, view, job_text(view))
    return EXIT_OK


def _destination(args: argparse.Namespace) -> str:
    """--destination-conf, given (or - for stdin)."""
    destination: str = args.destination_conf
    if destination == "-":
        if args.filter == "-":
            raise CliError("--destination-conf and --filter cannot both be - (stdin)")
        destination = read_stdin("destination").strip()
    return destination


def _given_fields(args: argparse.Namespace) -> dict[str, Any]:
    """The job fields an update or ensure names, as the Python methods take them."""
    fields = _extra_fields(args)
    if args.destination_conf is not None:
        fields["destination_conf"] = _destination(args)
    if args.filter is not None:
        fields["filter"] = filter_text(args.filter)
    elif getattr(args, "clear_filter", False):
        fields["filter"] = None
    if args.logpull_options is not None:
        fields["logpull_options"] = args.logpull_options
    return fields


def run_update(args: argparse.Namespace) -> int:
    fields = _given_fields(args)
    if not fields:
        raise CliError("name at least one field to change, like --frequency low or --no-enabled")
    view = scope(args).logpush.update_job(args.job_id, **fields).redacted()
    emit(args, view, f"updated on {where(args)}: " + job_text(view))
    return EXIT_OK


def run_enable(args: argparse.Namespace) -> int:
    view = scope(args).logpush.enable_job(args.job_id).redacted()
    emit(args, view, f"enabled on {where(args)}: " + job_text(view))
    return EXIT_OK


def run_disable(args: argparse.Namespace) -> int:
    view = scope(args).logpush.disable_job(args.job_id).redacted()
    emit(args, view, f"disabled on {where(args)}: " + job_text(view))
    return EXIT_OK


def run_delete(args: argparse.Namespace) -> int:
    deleted = scope(args).logpush.delete_job(args.job_id)
    emit(args, {"id": deleted}, f"deleted job {deleted} on {where(args)}")
    return EXIT_OK


def _change_lines(changes: list[dict[str, Any]]) -> list[str]:
    import json

    from .._format import printable_line

    def shown(value: object) -> str:
        # A stored job's values come from the API: what does not print is escaped (issue 33).
        return "(none)" if value is None else printable_line(value if isinstance(value, str) else json.dumps(value))

    return [f"      {printable_line(c['field'])}: {shown(c['before'])} -> {shown(c['after'])}" for c in changes]


def run_ensure(args: argparse.Namespace) -> int:
    from .logpush_pricing import delivery_lines, sample_keywords
    from .logpush_terraform import environment

    fields = _given_fields(args)
    if args.dataset is not None:
        fields["dataset"] = args.dataset
    if args.from_file is not None:
        fields = {**_file_job(args, fields["name"]), **fields}
    for option, key in (("--dataset", "dataset"), ("--destination-conf", "destination_conf")):
        if fields.get(key) is None:
            raise CliError(
                f"{option} is required" + (f" (the job in {args.from_file} has none)" if args.from_file else "")
            )
    name, dataset, destination = fields.pop("name"), fields.pop("dataset"), fields.pop("destination_conf")
    result = scope(args).logpush.ensure_job(
        name=name, dataset=dataset, destination_conf=destination, variables=environment(), **sample_keywords(args),
        **fields,
    )  # fmt: skip
    view = {**result, "job": result["job"].redacted()}
    head = f"{result['action']} job {result['id']} {name!r} on {where(args)}"
    lines = [head, *_change_lines(result["changes"]), *delivery_lines(result.get("delivery"))]
    emit(args, view, "\n".join(lines))
    return EXIT_OK


def _file_job(args: argparse.Namespace, name: str) -> dict[str, Any]:
    """The job named ``name`` in ``--from`` FILE, as apply reads the file."""
    jobs = _jobs_document(args, args.from_file).get("jobs")
    listed = [j for j in jobs if isinstance(j, dict)] if isinstance(jobs, list) else []
    for job in listed:
        if isinstance(job.get("name"), str) and job["name"].strip() == name.strip():
            return dict(job)
    names = ", ".join(repr(j["name"]) for j in listed if isinstance(j.get("name"), str)) or "none"
    raise CliError(f"{args.from_file} has no job named {name!r} (its jobs: {names})")


# How each plan action is shown: a sign, and the words of a dry run and of a run.
_ACTIONS = {
    "create": ("+", "create", "created"),
    "update": ("~", "update", "updated"),
    "unchanged": ("=", "unchanged", "unchanged"),
    "delete": ("-", "delete", "deleted"),
    "untracked": ("?", "not in the file (kept; --prune deletes it)", "not in the file (kept; --prune deletes it)"),
}


def _jobs_document(args: argparse.Namespace, arg: str) -> dict[str, Any]:
    """The jobs of FILE: a Terraform file (``.tf``, or ``.tf.json`` in Terraform's JSON
    syntax: its cloudflare_logpush_job resources), else JSON or TOML."""
    if arg.endswith((".tf", ".tf.json")):
        from .logpush_terraform import read_terraform_jobs

        return read_terraform_jobs(args, arg)
    return read_jobs_file(arg)


def read_jobs_file(arg: str) -> dict[str, Any]:
    """An ``apply`` FILE: JSON (core's strict reader: a key given twice, NaN or nesting beyond
    a filter's is refused with its line and column), or TOML (tomllib, or tomli before
    Python 3.11)."""
    from .._escpush import _load_json
    from ..errors import InvalidInput

    text = read_text(arg, "jobs file")
    if not arg.endswith(".toml"):
        try:
            data = _load_json(text)
        except InvalidInput as err:
            if arg.endswith(".json") or text.lstrip().startswith(("{", "[")):
                raise CliError(f"the jobs file `{arg}` is {err}") from None
        else:
            if not isinstance(data, dict):
                raise CliError(f'the jobs file `{arg}` is not an object {{"jobs": [...]}}')
            return data
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover (the test runs use 3.11+)
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise CliError(f"the jobs file `{arg}` is neither JSON nor TOML: {err}{bom_note(text)}") from None
    except RecursionError:  # tomllib recurses into nested arrays and tables
        raise CliError(f"the jobs file `{arg}` nests arrays or tables too deep to read") from None


def run_apply(args: argparse.Namespace) -> int:
    from .logpush_pricing import sample_keywords
    from .logpush_terraform import environment

    jobs = _jobs_document(args, args.file)
    try:
        plan = scope(args).logpush.apply(
            jobs, prune=args.prune, dry_run=args.dry_run, delete_first=args.delete_first, variables=environment(),
            **sample_keywords(args),
        )  # fmt: skip
    except Exception as err:
        partial = getattr(err, "plan", None)
        if partial is None:
            raise
        # What was done before the failure, then the failure: with --json, one error object
        # that carries the plan; else the plan's text, then the error's.
        stopped = failure(err)
        if args.json:
            stopped.data = {"plan": partial}
        else:
            print(_plan_text(args, partial), file=sys.stderr)
        raise stopped from None
    except (KeyboardInterrupt, Terminated) as stop:
        # Stopped between writes: what was done (with --json, main's error object carries
        # it), then the exit the signal asks for.
        partial = getattr(stop, "plan", None)
        if partial is not None and not args.json:
            print(_plan_text(args, partial), file=sys.stderr)
        raise
    emit(args, plan, _plan_text(args, plan))
    return EXIT_OK


def _plan_text(args: argparse.Namespace, plan: dict[str, Any]) -> str:
    from .._format import printable_line
    from .logpush_pricing import delivery_lines

    lines = [f"plan for {where(args)}" + (" (dry run: nothing sent)" if args.dry_run else "") + ":"]
    for entry in plan["jobs"]:
        sign, planned, done = _ACTIONS.get(entry["action"], ("*", entry["action"], entry["action"]))
        what = done if entry.get("done") else planned
        label = repr(entry["name"]) if entry.get("name") else "(no name)"
        job = f" job {entry['id']}" if entry.get("id") is not None else ""
        lines.append(f"  {sign} {label}{job} ({printable_line(entry['dataset'])}): {what}")
        if entry.get("note"):
            lines.append(f"    {printable_line(entry['note'])}")
        lines.extend(_change_lines(entry["changes"]))
        lines.extend(delivery_lines(entry.get("delivery")))
    return "\n".join(lines)


def run_fields(args: argparse.Namespace) -> int:
    fields = scope(args).logpush.fields(args.dataset)
    width = max((len(name) for name in fields), default=0)
    text = "\n".join(f"{name:<{width}}  {description}" for name, description in fields.items())
    emit(args, fields, text or f"no fields for {args.dataset} on {where(args)}")
    return EXIT_OK
