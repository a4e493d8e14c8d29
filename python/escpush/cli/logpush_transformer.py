"""``escpush logpush transformer list|create|get|update|delete|content|versions|preview``: an
account's transformers (transformers.mdx; ``account.logpush.transformers``), the SQL run on a
job's every batch. A job attaches one with ``escpush logpush create|update --transformer-id N``
(and detaches it with ``--transformer-id null``). Every rule is core's, checked before anything
is sent; this module reads arguments and prints."""

from __future__ import annotations

from ._common import EXIT_OK, CliError, command, emit, integer, read_text, scope, where, writes

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any

    from .._escpush import Transformer, Transformers
    from ._common import Commands

_ID = integer(1, 2**63 - 1)


def add(logpush: Commands, parents: list[argparse.ArgumentParser]) -> None:
    parser = command(
        logpush,
        "transformer",
        "an account's transformers: SQL run on a job's every batch",
        "An account's transformers (transformers.mdx): one SQL query a job runs on every batch before "
        "delivery, to filter, reshape, redact and compute. The SQL is checked before it is sent (the contract, "
        "the dataset's fields and types, at most 10 KB), as are the name (255 bytes) and description (4,096 "
        "bytes). Attach one to an ndjson job with `escpush logpush update JOB_ID --transformer-id N`; detach it "
        "with `--transformer-id null`. A transformer a job references cannot be deleted.",
        ["escpush logpush transformer list --account ACCOUNT_ID", "escpush logpush transformer ACTION --help"],
    )
    actions = parser.add_subparsers(dest="transformer_action", metavar="ACTION", required=True)
    listing = command(
        actions, "list", "list the transformers", "List the account's transformers.",
        ["escpush logpush transformer list --account ACCOUNT_ID --json"], parents,
    )  # fmt: skip
    listing.set_defaults(run=run_list)
    create = command(
        actions,
        "create",
        "create a transformer from its SQL",
        "Create a transformer: its name and SQL (--sql, or --file, - for stdin), checked before anything is "
        "sent; every save of the SQL is a version. Sent once (a creation is never retried).",
        [
            "escpush logpush transformer create --account ACCOUNT_ID --name errors --file errors.sql",
            "escpush logpush transformer create --account ACCOUNT_ID --name ips "
            "--sql 'SELECT ClientIP, RayID FROM http_requests'",
        ],
        parents,
    )
    create.add_argument("--name", required=True, help="its name (at most 255 bytes)")
    _code_options(create)
    create.add_argument("--description", help="what it is for (at most 4,096 bytes)")
    create.set_defaults(run=run_create)
    writes(create)
    get = command(
        actions, "get", "show one transformer", "Show one transformer and the jobs that reference it.",
        ["escpush logpush transformer get 4 --account ACCOUNT_ID"], parents,
    )  # fmt: skip
    get.add_argument("transformer_id", metavar="ID", type=_ID, help="the transformer's id")
    get.set_defaults(run=run_get)
    update = command(
        actions,
        "update",
        "rename a transformer or save new SQL (a new version)",
        "Change a transformer. --name is required (as the API asks); new SQL (--sql or --file) is checked and "
        "saved as a new version; a description left out is cleared, as the API does.",
        ["escpush logpush transformer update 4 --account ACCOUNT_ID --name errors --file errors-v2.sql"],
        parents,
    )
    update.add_argument("transformer_id", metavar="ID", type=_ID, help="the transformer's id")
    update.add_argument("--name", required=True, help="its name (at most 255 bytes)")
    _code_options(update, required=False)
    update.add_argument("--description", help="what it is for (at most 4,096 bytes)")
    update.set_defaults(run=run_update)
    writes(update)
    delete = command(
        actions, "delete", "delete a transformer no job references",
        "Delete a transformer. Refused while a job references it: detach it first "
        "(escpush logpush update JOB_ID --transformer-id null).",
        ["escpush logpush transformer delete 4 --account ACCOUNT_ID"], parents,
    )  # fmt: skip
    delete.add_argument("transformer_id", metavar="ID", type=_ID, help="the transformer's id")
    delete.set_defaults(run=run_delete)
    writes(delete)
    content = command(
        actions, "content", "print a transformer's SQL",
        "Print the SQL of a transformer's latest version, or of --version-id.",
        ["escpush logpush transformer content 4 --account ACCOUNT_ID > errors.sql"], parents,
    )  # fmt: skip
    content.add_argument("transformer_id", metavar="ID", type=_ID, help="the transformer's id")
    content.add_argument("--version-id", type=_ID, metavar="N", help="a version's id (from `versions`)")
    content.set_defaults(run=run_content)
    versions = command(
        actions, "versions", "list a transformer's versions", "List every saved version of a transformer's SQL.",
        ["escpush logpush transformer versions 4 --account ACCOUNT_ID --limit 5"], parents,
    )  # fmt: skip
    versions.add_argument("transformer_id", metavar="ID", type=_ID, help="the transformer's id")
    versions.add_argument("--limit", type=_ID, metavar="N", help="only the latest N")
    versions.set_defaults(run=run_versions)
    from . import logpush_transformer_preview

    logpush_transformer_preview.add_parser(actions, parents[:1])


def _code_options(parser: argparse.ArgumentParser, required: bool = True) -> None:
    code = parser.add_mutually_exclusive_group(required=required)
    code.add_argument("--sql", metavar="SQL", help="the SQL")
    code.add_argument("--file", metavar="FILE", help="a file holding the SQL (- for stdin)")


def _code(args: argparse.Namespace) -> str | None:
    if args.file is not None:
        return read_text(args.file, "SQL file")
    sql: str | None = args.sql
    return sql


def _transformers(args: argparse.Namespace) -> Transformers:
    if args.zone is not None:
        raise CliError("transformers belong to an account: give --account ACCOUNT_ID, not --zone")
    return scope(args).logpush.transformers


def transformer_text(t: Transformer) -> str:
    lines = [f"transformer {t.id}" + (f" {t.name!r}" if t.name else "")]
    for key in ("dataset", "description", "created_at", "updated_at"):
        value = getattr(t, key)
        if value:
            lines.append(f"  {key + ':':<13}{value}")
    jobs = ", ".join(str(j) for j in t.job_ids) or "none"
    lines.append(f"  {'jobs:':<13}{jobs}")
    return "\n".join(lines)


def run_list(args: argparse.Namespace) -> int:
    found = _transformers(args).list()
    text = "\n".join(transformer_text(t) for t in found) if found else f"no transformers on {where(args)}"
    emit(args, [t.to_dict() for t in found], text)
    return EXIT_OK


def run_create(args: argparse.Namespace) -> int:
    t = _transformers(args).create(name=args.name, code=_code(args) or "", description=args.description)
    emit(args, t.to_dict(), f"created on {where(args)}: " + transformer_text(t))
    return EXIT_OK


def run_get(args: argparse.Namespace) -> int:
    t = _transformers(args).get(args.transformer_id)
    emit(args, t.to_dict(), transformer_text(t))
    return EXIT_OK


def run_update(args: argparse.Namespace) -> int:
    t = _transformers(args).update(args.transformer_id, name=args.name, code=_code(args), description=args.description)
    emit(args, t.to_dict(), "updated: " + transformer_text(t))
    return EXIT_OK


def run_delete(args: argparse.Namespace) -> int:
    deleted = _transformers(args).delete(args.transformer_id)
    emit(args, {"id": deleted}, f"deleted transformer {deleted} of {where(args)}")
    return EXIT_OK


def run_content(args: argparse.Namespace) -> int:
    sql = _transformers(args).content(args.transformer_id, version_id=args.version_id)
    emit(args, {"content": sql}, sql)
    return EXIT_OK


def run_versions(args: argparse.Namespace) -> int:
    versions: list[dict[str, Any]] = _transformers(args).versions(args.transformer_id, limit=args.limit)
    text = "\n".join(f"version {v['version']}  id {v['id']}  {v['created_at'] or ''}".rstrip() for v in versions)
    emit(args, versions, text)
    return EXIT_OK
