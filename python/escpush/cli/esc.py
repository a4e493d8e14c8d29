"""``escpush esc status|disable|enable|secret|assess``: the Edge Side Code controls of one zone
or account, saving a generated test secret to a file only its owner can read, and the impact
assessment (the spec's test order with automatic rollback)."""

from __future__ import annotations

import os

from .._docs import page
from ._common import (
    EXIT_OK,
    ZONE_EXAMPLE,
    CliError,
    api_options,
    command,
    emit,
    group,
    integer,
    output_options,
    read_text,
    scope,
    where,
    writes,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from .._escpush import Esc
    from ._common import Commands


def add(commands: Commands, summary: str) -> None:
    esc = group(
        commands,
        "esc",
        summary,
        f"Edge Side Code controls of one zone or account. ESC is deprecated: {page('esc')} says what"
        " that means and the order to test its removal in.",
        f"escpush esc status --zone {ZONE_EXAMPLE}",
    )
    parents = [api_options(), output_options()]
    for action, summary, description in (
        (
            "status",
            "show whether ESC runs",
            "Show the ESC setting: enabled or disabled, and whether a test secret is set.",
        ),
        (
            "disable",
            "disable ESC for every request",
            "Disable ESC for every request of the zone (or of every zone of the account), then show the setting.",
        ),
        ("enable", "re-enable ESC", "Re-enable ESC (the way back when problems appear), then show the setting."),
    ):
        examples = [f"escpush esc {action} --zone {ZONE_EXAMPLE}", f"escpush esc {action} --account ACCOUNT_ID --json"]
        parser = command(esc, action, summary, description, examples, parents)
        parser.set_defaults(run=run)
        if action != "status":
            writes(parser)
    secret = command(
        esc,
        "secret",
        "set a secret that disables ESC for test requests only",
        "Set the test secret of the zone or account: requests carrying the cookie disable_esc=SECRET are then "
        "processed without ESC. The secret is read from --secret-file, or generated from the OS random source "
        "and written to --save: a new file readable by you only, which replaces FILE (a symbolic link is "
        "refused). It is never printed. SIGTERM or SIGHUP while the secret is being set waits for the API's "
        "answer (at most --timeout) and saves what was set before the command ends: a secret set on the zone "
        "and lost would leave a way around ESC no one knows; keep --timeout under your runner's grace period "
        "(Kubernetes: 30 s).",
        [
            f"escpush esc secret --zone {ZONE_EXAMPLE} --save esc-secret.txt",
            "escpush esc secret --account ACCOUNT_ID --secret-file my-secret.txt",
            "pass show esc | escpush esc secret --zone ZONE_ID --secret-file -",
        ],
        parents,
    )
    secret.add_argument("--secret-file", metavar="FILE", help="read the secret from FILE (- for stdin)")
    secret.add_argument("--save", metavar="FILE", help="write the secret to FILE, readable by you only")
    secret.set_defaults(run=run)
    writes(secret)
    _add_assess(esc, [api_options(target=False), output_options()])


def _add_assess(esc: Commands, parents: list[argparse.ArgumentParser]) -> None:
    from .._escpush import _DEFAULT_FETCH_TIMEOUT, _DEFAULT_SETTLE, _ESC_IGNORED_HEADERS

    assess = command(
        esc,
        "assess",
        "find what breaks without ESC, then put everything back",
        "The spec's test order as one command. Request stage: a fresh secret (OS random source) is set on the "
        "zone and every URL is fetched twice, as visitors get it and with the cookie disable_esc=SECRET; "
        "what differs is what ESC does (each difference names its likely replacement). If a response without "
        "ESC fails its check (no response, a status of 500 or more, or not one of --expect-status), it stops "
        "there and the zone is never touched. Zone stage: ESC is disabled for the zone, and once the API "
        "shows it and --settle seconds passed, every URL must pass its check and answer the status it gave "
        "with the cookie; else the zone is re-enabled at once. Account stage (with --account): the same for "
        "the whole account, after the zone is put back. At the end, and on any error, Ctrl-C, SIGTERM or "
        "SIGHUP, every scope is put back as it was found (unless --keep-disabled and every stage passed); a "
        "failed restore prints NOT RESTORED with the command to run. Redirects are not followed. The secret "
        "is never printed (masked where a site echoes the cookie); it stays set (no API call removes one), or "
        "the previous secret is set again. Exit 0: every stage passed (differences are information); 1: a "
        "stage failed and was rolled back; 3: an API or network error or a failed restore; 130: interrupted "
        "by Ctrl-C, 143 or 129: ended by SIGTERM or SIGHUP (scopes restored first).",
        [
            f"escpush esc assess --zone {ZONE_EXAMPLE} --url https://www.example.com/ --url https://www.example.com/old",
            "escpush esc assess --zone ZONE_ID --account ACCOUNT_ID --url https://shop.example.com/ --json",
        ],
        parents,
    )
    # --account names the account stage beside the required --zone, not an alternative to it.
    # (Checked when the command runs, so that its message says what --account is for.)
    assess.add_argument("--zone", metavar="ZONE_ID", help="the zone to assess (required)")
    assess.add_argument(
        "--account",
        metavar="ACCOUNT_ID",
        help="also run the account stage on this account (all its zones), after the zone's",
    )
    checks = assess.add_argument_group("assessment")
    checks.add_argument("--url", dest="urls", action="append", metavar="URL", help="a URL of the zone's site (repeat)")
    checks.add_argument("--keep-disabled", action="store_true", help="leave ESC disabled when every stage passed")
    checks.add_argument(
        "--settle",
        type=float,
        default=_DEFAULT_SETTLE,
        metavar="SECONDS",
        help=f"wait after the API shows a change (default {_DEFAULT_SETTLE:g})",
    )
    checks.add_argument(
        "--fetch-timeout",
        type=float,
        default=_DEFAULT_FETCH_TIMEOUT,
        metavar="SECONDS",
        help=f"deadline of each fetch (default {_DEFAULT_FETCH_TIMEOUT:g})",
    )
    checks.add_argument(
        "--expect-status",
        type=integer(100, 599),
        action="append",
        metavar="STATUS",
        help="a status a response without ESC must have (repeat for several)",
    )
    checks.add_argument(
        "--ignore-header",
        action="append",
        metavar="NAME",
        help="a response header to leave out of the comparison (repeat; replaces the default list: "
        + ", ".join(_ESC_IGNORED_HEADERS)
        + ")",
    )
    assess.set_defaults(run=run_assess)


def run_assess(args: argparse.Namespace) -> int:
    import sys

    from ..errors import Terminated
    from ._common import EXIT_API, EXIT_CHECK_FAILED, client

    if args.zone is None:
        raise CliError("give the zone to assess: --zone ZONE_ID (and --account ACCOUNT_ID for the account stage)")
    if not args.urls:
        raise CliError("give at least one URL of the zone's site: --url URL")

    def progress(line: str) -> None:
        if not args.json:
            print(f"escpush: {line}", file=sys.stderr, flush=True)

    zone = client(args).zone(args.zone)
    try:
        result = zone.esc.assess(
            args.urls,
            account=args.account,
            keep_disabled=args.keep_disabled,
            settle=args.settle,
            timeout=args.fetch_timeout,
            expect_status=args.expect_status,
            ignore_headers=args.ignore_header,
            progress=progress,
        )
    except (KeyboardInterrupt, Terminated) as interrupt:
        # Ctrl-C, SIGTERM or SIGHUP: every scope is put back; the result says so.
        interrupted = getattr(interrupt, "assessment", None)
        if interrupted is None:
            raise
        emit(args, interrupted.to_dict(), str(interrupted).rstrip("\n"))
        return interrupt.code if isinstance(interrupt, Terminated) else 130
    emit(args, result.to_dict(), str(result).rstrip("\n"))
    if result.ok:
        return EXIT_OK
    if result.error is None and result.restored:
        return EXIT_CHECK_FAILED
    return EXIT_API


class _SecretFile:
    """Where ``--save`` puts a secret: a new file, mode 0600, created beside FILE before
    anything is sent (so a path that cannot be written sends nothing), then renamed over
    FILE. Never an existing file's mode, never through a symbolic link."""

    def __init__(self, path: str) -> None:
        self.path = path
        if os.path.islink(path):
            raise CliError(f"cannot save the secret to `{path}`: it is a symbolic link; give the file itself")
        if os.path.exists(path) and not os.path.isfile(path):
            raise CliError(f"cannot save the secret to `{path}`: not a regular file")
        directory, name = os.path.split(path)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        for attempt in range(100):
            self.temp = os.path.join(directory, f".{name}.{os.getpid()}-{attempt}.escpush-tmp")
            try:
                self.fd = os.open(self.temp, flags, 0o600)
                break
            except FileExistsError:
                continue
            except OSError as err:
                raise CliError(f"cannot save the secret to `{path}`: {err.strerror}") from None
        else:
            raise CliError(f"cannot save the secret to `{path}`: no free temporary name beside it")

    def discard(self) -> None:
        os.close(self.fd)
        os.unlink(self.temp)

    def save(self, secret: str) -> None:
        try:
            with os.fdopen(self.fd, "w", encoding="utf-8") as out:
                out.write(secret + "\n")
                out.flush()
                os.fsync(out.fileno())
            os.replace(self.temp, self.path)
        except OSError as err:
            try:
                os.unlink(self.temp)
            except OSError:
                pass
            raise CliError(
                f"the secret is set, but it could not be saved to `{self.path}`: {err.strerror}; "
                "run the command again to set a new one"
            ) from None


def _set_secret(args: argparse.Namespace, esc: Esc) -> str:
    """Sets the secret; the note the status line ends with."""
    from .._escpush import _ESC_COOKIE_NAME, _Terminating

    if args.secret_file is None and args.save is None:
        raise CliError("a generated secret must be kept: pass --save FILE (or --secret-file FILE to set your own)")
    secret = None if args.secret_file is None else read_text(args.secret_file, "secret file").rstrip("\r\n")
    # SIGTERM or SIGHUP between the temporary file and its rename wait for the block's end
    # (the file saved or removed), then raise escpush.Terminated.
    with _Terminating():
        save = None if args.save is None else _SecretFile(args.save)
        try:
            secret = esc.set_secret(secret)
        except BaseException:
            if save is not None:
                save.discard()
            raise
        note = ""
        if save is not None:
            save.save(secret)
            note = f"; saved to {args.save}"
    return note + f"; send it as the cookie {_ESC_COOKIE_NAME} with each test request"


def run(args: argparse.Namespace) -> int:
    target = scope(args)
    esc = target.esc
    note = _set_secret(args, esc) if args.action == "secret" else ""
    if args.action == "disable":
        esc.disable()
    elif args.action == "enable":
        esc.enable()
    status = esc.status()
    length = None if status.secret is None else len(status.secret)
    data = {
        "scope": "zone" if args.zone is not None else "account",
        "id": target.id,
        "state": status.state,
        "disabled": status.disabled,
        "secret_set": length is not None,
        "secret_length": length,
    }
    from .._format import ESC_STATES  # the one table of what each state says

    described = ESC_STATES[status.state].line
    if length is not None:
        described += f"; a test secret is set ({length} characters){note}"
    emit(args, data, f"{where(args)}: {described}")
    return EXIT_OK
