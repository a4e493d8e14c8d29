"""``escpush logpush export`` and ``escpush logpush check-plan``: jobs kept in a jobs file or
in Terraform beside the API. The rendering of jobs, the reading of Terraform files and the
judgement of a plan are core's (``Logpush.export``, ``Logpush.read_terraform``,
``escpush.check_terraform_plan``); this module reads arguments and prints."""

from __future__ import annotations

import argparse
import json
import os

from ._common import (
    EXIT_CHECK_FAILED,
    EXIT_OK,
    CliError,
    api_options,
    command,
    emit,
    integer,
    output_options,
    read_text,
    scope,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ._common import Commands


def add(logpush: Commands) -> None:
    from .._escpush import _EXPORT_FORMATS, _FILTER_FORMS  # core's names

    export = command(
        logpush,
        "export",
        "write the scope's jobs as a jobs file or as Terraform",
        "Write the jobs of the zone or account (all, or those --job names) to stdout: a jobs file, TOML "
        "(default) or JSON, that `escpush logpush apply` reads back as nothing to do (a name is one "
        "job's; a job without one is written with its id); or, with --format terraform, "
        "cloudflare_logpush_job resources of Cloudflare's Terraform provider (v5 schema) with an import block "
        "each (id zones/<zone_id>/<job_id> or accounts/<account_id>/<job_id>), for `terraform plan` to adopt the "
        "jobs. Filters are written in "
        "their canonical form: one JSON string, or with --filter-form jsonencode as jsonencode({...}) of the "
        "filter's tree. No credential is written: each credential of a destination_conf becomes a "
        "reference, ${NAME} in a jobs file (apply reads the environment variable NAME; unset, the job keeps "
        "the credential it has) and a sensitive variable in Terraform (TF_VAR_<name>).",
        [
            "escpush logpush export --zone ZONE_ID > jobs.toml",
            "escpush logpush export --zone ZONE_ID --format terraform --filter-form jsonencode > logpush.tf",
            "escpush logpush export --account ACCOUNT_ID --job 7 --job 9 --format json",
        ],
        [api_options()],
    )
    export.add_argument("--format", choices=_EXPORT_FORMATS, default="toml", help="what to write (default: toml)")
    export.add_argument(
        "--filter-form",
        choices=_FILTER_FORMS,
        default="string",
        help="how Terraform holds a filter: its canonical JSON text, or jsonencode({...}) of its tree",
    )
    export.add_argument(
        "--job",
        dest="jobs",
        action="append",
        type=integer(1, 2**63 - 1),
        metavar="JOB_ID",
        help="export this job (again for more); default: every job",
    )
    export.set_defaults(run=run_export)
    check = command(
        logpush,
        "check-plan",
        "tell a Terraform plan's real filter changes from respellings",
        "Read PLAN.json, the JSON of `terraform show -json PLANFILE` (HashiCorp's documented plan format), "
        "and for each change of a cloudflare_logpush_job say whether its filter change is spelling only "
        "(key order, spacing, escaping), the same by meaning (what `escpush filter diff` decides, on the "
        "records of the job's dataset), or real, with a record on which the two filters differ. Other "
        "attributes that change are listed as the plan has them (sensitive values and credentials hidden). "
        "Exits 0 when no change is real, 1 otherwise: a creation, a deletion or a replacement is real, and "
        "so is an attribute change other than one the API sets (last_complete, ...) or a filter known only "
        "after apply. No Terraform is run: the plan file is all it reads.",
        [
            "terraform plan -out plan.bin && terraform show -json plan.bin > plan.json",
            "escpush logpush check-plan plan.json",
            "escpush logpush check-plan plan.json --json",
            "escpush logpush check-plan plan.json --sample logs/ --requests-per-day 40000000",
        ],
        [output_options()],
    )
    check.add_argument("plan", metavar="PLAN.json", help="the JSON of `terraform show -json` (- reads stdin)")
    from .logpush_pricing import add_sample_options

    add_sample_options(check)
    check.set_defaults(run=run_check_plan)


def run_export(args: argparse.Namespace) -> int:
    text = scope(args).logpush.export(format=args.format, jobs=args.jobs, filter_form=args.filter_form)
    print(text, end="")
    return EXIT_OK


def read_terraform_jobs(args: argparse.Namespace, path: str) -> dict[str, Any]:
    """The jobs of a Terraform file (its ``cloudflare_logpush_job`` resources), for the
    scope the command acts on (``--scope-expression``: the zone_id or account_id expressions
    that stand for it)."""
    return scope(args).logpush.read_terraform(
        read_text(path, "Terraform file"), scope_expressions=getattr(args, "scope_expressions", None)
    )


def add_scope_expression(parser: argparse.ArgumentParser) -> None:
    """``--scope-expression``, for the commands that read a Terraform file."""
    parser.add_argument(
        "--scope-expression",
        dest="scope_expressions",
        action="append",
        metavar="EXPR",
        help="in a Terraform file, a zone_id or account_id expression escpush cannot evaluate (var.zone_id, "
        "cloudflare_zone.main.id) that stands for the --zone or --account given (again for more); without "
        "it such a resource is refused, since it may be another zone's",
    )


def environment() -> dict[str, str]:
    """The variables a ``${NAME}`` reference of a destination reads: the environment (a
    Terraform ``var.x`` as ``TF_VAR_x``, as Terraform reads it)."""
    return dict(os.environ)


# How each kind of filter change is said.
_FILTER = {
    "spelling": "filter: spelling only (the same canonical filter)",
    "equivalent": "filter: the same by meaning (equivalent on the records of the dataset)",
    "real": "filter: REAL change",
    "unknown": "filter: known only after apply (cannot be judged)",
}


def _shown(value: object) -> str:
    from .._format import printable_line

    if value is None:
        return "(none)"
    return printable_line(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))


def _change_text(change: dict[str, Any]) -> list[str]:
    from .._format import printable_line as plain

    mark = "!" if change["real"] else "="
    lines = [f"{mark} {plain(change['address'])} ({plain(change['action'])})"]
    flt = change.get("filter")
    if flt:
        lines.append(f"    {_FILTER.get(flt['change'], plain(flt['change']))}")
        if flt["change"] == "real":
            lines.append(f"      before: {_shown(flt['before'])}")
            lines.append(f"      after:  {_shown(flt['after'])}")
            if flt.get("counterexample") is not None:
                side = "the plan's filter keeps it, the current one drops it"
                if flt.get("matches") == "before":
                    side = "the current filter keeps it, the plan's drops it"
                lines.append(f"      on the record {_shown(flt['counterexample'])}: {side}")
    problems = change.get("filter_problems") or []
    if problems:
        lines.append("    filter: INVALID, the API would refuse the job:")
        lines += [
            f"      {plain(p['path']) + ': ' if p['path'] else ''}{plain(p['message'])} [{plain(p['code'])}]"
            for p in problems
        ]
    for attribute in change["attributes"]:
        note = "" if attribute["real"] else "  (set by the API)"
        lines.append(
            f"    {plain(attribute['attribute'])}: {_shown(attribute['before'])} -> {_shown(attribute['after'])}{note}"
        )
    return lines


def run_check_plan(args: argparse.Namespace) -> int:
    from .._escpush import check_terraform_plan
    from .._format import plural
    from .logpush_pricing import delivery_lines, sample_keywords

    text = read_text(args.plan, "plan")
    try:
        report = check_terraform_plan(text, **sample_keywords(args))
    except ValueError as err:
        raise CliError(f"`{args.plan}`: {err}") from None
    changes = report["changes"]
    real = sum(1 for c in changes if c["real"])
    lines = [line for change in changes for line in [*_change_text(change), *delivery_lines(change.get("delivery"))]]
    if not changes:
        lines.append("no change to a cloudflare_logpush_job in the plan")
    else:
        lines.append(f"{plural(len(changes), 'cloudflare_logpush_job change')}, {real} real")
    emit(args, report, "\n".join(lines))
    return EXIT_CHECK_FAILED if report["real"] else EXIT_OK
