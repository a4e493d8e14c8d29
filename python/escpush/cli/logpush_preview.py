"""``escpush logpush preview``: what a job would deliver for a sample of logs, in bytes (the
measure log-push bills), counted or written as log-push writes it. The job comes from the API
(``--job-id``), a jobs file or a Terraform file (``--jobs FILE --name NAME``, read as ``apply``
reads them) or the job options ``create`` takes; the preview itself is core's formatter and
batches on escpush-scan's readers (``Logpush.preview`` / ``escpush.preview_job``)."""

from __future__ import annotations

import sys

from ._common import EXIT_OK, CliError, command, emit, integer, scope, strict_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any

    from .._escpush import PreviewResult
    from ._common import Commands


def add(logpush: Commands, parents: list[argparse.ArgumentParser]) -> None:
    from .filter import add_run_options
    from .logpush import _job_options
    from .logpush_pricing import add_cost_options
    from .logpush_terraform import add_scope_expression

    preview = command(
        logpush,
        "preview",
        "what a job would deliver for a sample of logs, and how many bytes",
        "Run a job over a sample of its logs as log-push would: its filter, its field_names formatted as "
        "its output_options say (or its logpull_options), sample_rate (seeded by --seed), cut into batches "
        "by max_upload_bytes/_records/_interval_seconds. Prints lines read, kept by the filter, delivered "
        "after sampling, batches, the uncompressed bytes delivered (what log-push bills, framing included) and, "
        "when written, the gzip bytes. --out DIR writes one file per batch, named as log-push names them "
        "(YYYYMMDD/START_END_TOKEN.log.gz), into a new or empty folder, only when the whole preview succeeds; "
        "--out - writes the batches to stdout. The job: --job-id (read from the API), --jobs FILE --name NAME "
        "(JSON, TOML or Terraform, as apply reads them), or the job options (--dataset, --filter, "
        "--output-options, --logpull-options, --max-upload-*). A job the API would refuse (an unknown "
        "output_type, a template action the docs do not allow, a sample_rate out of (0, 1]) is an error naming "
        "the option, and nothing is written. The cost: the bytes delivered made a month (by the time the "
        "sample's timestamps span, or --requests-per-day, or --scale) and priced by the destination's class "
        "(`escpush logpush pricing`); the account's included GB are shown, and taken off with "
        "--subtract-allowance.",
        [
            "escpush logpush preview --jobs jobs.toml --name errors --sample logs/ --count",
            "escpush logpush preview --jobs main.tf --name errors --sample logs/ --requests-per-day 40000000",
            "escpush logpush preview --dataset http_requests --output-options "
            '\'{"field_names": ["RayID", "EdgeStartTimestamp"]}\' --sample \'logs/*.gz\' --out preview/',
            "escpush logpush preview --zone ZONE_ID --job-id 7 --sample logs/ --group-by ClientCountry --json",
        ],
        parents,
    )
    preview.set_defaults(run=run_preview, _needs_scope=False)
    source = preview.add_argument_group("the job (one of)")
    source.add_argument(
        "--job-id", type=integer(1, 2**63 - 1), metavar="ID", help="the job of this id (--zone or --account)"
    )
    source.add_argument(
        "--jobs", metavar="FILE", help="the job named --name in FILE (JSON, TOML, or a Terraform .tf / .tf.json file)"
    )
    _job_options(preview, "preview")
    add_scope_expression(preview)
    preview.add_argument(
        "--sample", nargs="+", required=True, metavar="PATH", help="the logs: files, folders, globs, - for stdin"
    )
    preview.add_argument("--out", metavar="DIR", help="write the batches into DIR (new or empty), or - for stdout")
    preview.add_argument("--no-gzip", dest="gzip", action="store_false", help="write the batches uncompressed")
    preview.add_argument("--count", action="store_true", help="only count (the default without --out)")
    preview.add_argument("--seed", type=integer(0, 2**63 - 1), default=0, metavar="N", help="the sampling seed")
    preview.add_argument(
        "--group-by", action="append", metavar="FIELD", help="also count by the values of FIELD (repeat for several)"
    )
    preview.add_argument("--every", metavar="INTERVAL", help="also count by time buckets (30s, 15m, 1h, 1d)")
    add_run_options(preview)
    add_cost_options(preview)


def _job(args: argparse.Namespace) -> dict[str, Any]:
    """The job given by --jobs/--name and the job options (the options replace the file's)."""
    from .logpush import _given_fields, _jobs_document

    fields = _given_fields(args)
    if args.dataset is not None:
        fields["dataset"] = args.dataset
    if args.jobs is None:
        if fields.get("dataset") is None:
            raise CliError("name the job: --job-id, --jobs FILE --name NAME, or its options (--dataset, ...)")
        return fields
    name = fields.get("name")
    if name is None:
        raise CliError("--jobs needs --name: the job of the file to preview")
    jobs = _jobs_document(args, args.jobs).get("jobs")
    listed = [j for j in jobs if isinstance(j, dict)] if isinstance(jobs, list) else []
    for job in listed:
        if isinstance(job.get("name"), str) and job["name"].strip() == name.strip():
            return {**job, **fields}
    names = ", ".join(repr(j["name"]) for j in listed if isinstance(j.get("name"), str)) or "none"
    raise CliError(f"{args.jobs} has no job named {name!r} (its jobs: {names})")


def text(data: dict[str, Any]) -> str:
    from .._preview_views import table_rows

    rows = table_rows(data)
    if "cost" in data:
        rows.append(("a month, projected", str(data["cost"]["text"])))
    elif "cost_unknown" in data:
        rows.append(("a month, projected", f"not projected: {data['cost_unknown']}"))
    width = max(len(k) for k, _ in rows)
    lines = [f"{k:<{width}}  {v}" for k, v in rows]
    lines += _breakdown_lines(data)
    if data["out"] not in (None, "-"):
        lines.append(f"{len(data['files'])} files written into {data['out']}")
    if data["first_malformed"]:
        m = data["first_malformed"]
        lines.append(f"first malformed line: {m['source']} line {m['line']}: {m['reason']}")
    return "\n".join(lines)


def _breakdown_lines(data: dict[str, Any]) -> list[str]:
    """The groups and buckets of ``--group-by`` / ``--every``, as the notebook shows them
    (``_preview_views.breakdown_tables``), in columns."""
    from .._preview_views import breakdown_tables

    scale = data["cost"]["scale"] if "cost" in data else None
    out: list[str] = []
    for title, header, cells in breakdown_tables(data, scale, more="--json for all"):
        widths = [max(len(c[i]) for c in [header, *cells]) for i in range(len(header))]
        out += ["", title]
        for row in [header, *cells]:
            out.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
    return out


def _add_cost(args: argparse.Namespace, result: PreviewResult, data: dict[str, Any]) -> None:
    """The month's cost in ``data["cost"]`` (its dict and its one line of text), or why it could
    not be projected in ``data["cost_unknown"]``: an error when a cost option was given."""
    from ..errors import InvalidInput
    from .logpush_pricing import asked_for_cost, cost_of

    try:
        cost = cost_of(args, result)
    except InvalidInput as err:
        if asked_for_cost(args):
            raise
        data["cost_unknown"] = str(err)
        return
    data["cost"] = {**cost.to_dict(), "text": str(cost)}


def run_preview(args: argparse.Namespace) -> int:
    from .. import preview_job

    if args.count and args.out is not None:
        raise CliError("--count writes nothing: leave out --out (or --count)")
    options: dict[str, Any] = {
        "seed": args.seed,
        "group_by": args.group_by,
        "every": args.every,
        "out": args.out,
        "gzip": args.gzip,
        "threads": args.threads,
        "strict": args.strict,
    }
    result: PreviewResult
    if args.job_id is not None:
        if args.jobs is not None:
            raise CliError("give --job-id or --jobs, not both")
        if args.zone is None and args.account is None:
            raise CliError("--job-id reads the job from the API: give --zone or --account")
        result = scope(args).logpush.preview(args.job_id, args.sample, **options)
    else:
        kind = "zone" if args.zone is not None else "account" if args.account is not None else None
        result = preview_job(_job(args), args.sample, scope=kind, **options)
    data = result.to_dict()
    _add_cost(args, result, data)
    if args.out == "-":
        # The batches went to stdout: the counts go to stderr (as JSON with --json).
        sys.stdout.flush()
        print(strict_json(data) if args.json else text(data), file=sys.stderr)
        return EXIT_OK
    # The text only when it is printed: its views are imported for it (--json skips them).
    emit(args, data, "" if args.json else text(data))
    return EXIT_OK
