"""``escpush demo``: the main jobs, end to end, printed as a user would run them: a filter
built, validated and previewed (:func:`filter_demo`), the ESC test order on a zone and an
account (:func:`esc_demo`) and a log-push job created (:func:`logpush_demo`), all against the
embedded emulator."""

from __future__ import annotations

import json

from . import DEFAULT_MAX_BYTES, DEFAULT_MAX_OPERATORS, Filter, FilterError, InvalidInput, esc_cookie, field
from ._format import usage


def filter_demo() -> None:
    """Build a filter, validate it against http_requests, print it; then show a broken one."""
    print("== Log-push filter ==")
    f = (field("ClientRequestHost").ends_with(".example.com") & (field("EdgeResponseStatus") >= 500)) | field(
        "ClientCountry"
    ).is_in(["cn", "ru"])
    print(f"built:      {f!r}")
    f.validate("http_requests")
    print(
        f"valid for http_requests: {usage(f.operator_count, DEFAULT_MAX_OPERATORS, 'operators')}, "
        f"{usage(f.byte_size, DEFAULT_MAX_BYTES, 'bytes')}"
    )
    print(f"job field:  {json.dumps(f.to_json())}")
    print(
        "matches a 503 from a.example.com:",
        f.matches({"ClientRequestHost": "a.example.com", "EdgeResponseStatus": 503}),
    )

    broken = (
        '{"where": {"and": [{"key": "ClientRequestHots", "operator": "eq", "value": "example.com"},'
        ' {"key": "EdgeResponseStatus", "operator": "gte", "value": "500"},'
        ' {"key": "ClientCountry", "operator": "in", "value": "cn"}]}}'
    )
    print(f"\nparsing a broken filter:\n  {broken}")
    try:
        Filter.parse(broken)
    except FilterError as err:
        for problem in err.errors():
            print(f"  {problem['path']}: {problem['message']} [{problem['code']}]")
    fixed = Filter.parse(broken.replace('"gte"', '"geq"').replace('"value": "cn"', '"value": ["cn"]'))
    print("after fixing the operator and the set, validating against http_requests:")
    for problem in fixed.problems("http_requests"):
        print(f"  {problem['path']}: {problem['message']} [{problem['code']}]")


def esc_demo() -> None:
    """The spec's recommended test order, against the embedded emulator: a per-request test
    with a secret, then the whole zone (re-enabled afterwards), then the whole account.
    Secrets and credentials never appear in the output."""
    from .testing import Emulator

    print("== ESC deprecation controls (against the embedded emulator) ==")
    with Emulator() as emu:
        print(f"emulator:   {emu.base_url}")
        client = emu.client()
        zone_id, account_id = "023e105f4ecef8ad9ca31a8372d0c353", "01a7362d577a6c3019a474fd6f485823"
        for label, scope, kind in (
            (f"zone {zone_id}", client.zone(zone_id), "zone"),
            (f"account {account_id} (affects all its zones)", client.account(account_id), "account"),
        ):
            print(f"\n-- {label} --")
            print(f"status:     {scope.esc.status()!r}")
            secret = scope.esc.set_secret()  # a strong secret from the OS random source
            cookie = esc_cookie(secret)
            masked = cookie.split("=", 1)[0] + f"=<SECRET, {len(secret)} characters>"
            print(f"1. per-request test: secret set ({len(secret)} characters, from the OS random source)")
            print(f"   send with each test request:  Cookie: {masked}")
            print("   (the value is what esc.set_secret() returned, or esc.status().secret; esc_cookie() builds it)")
            ident = {kind: scope.id}
            with_cookie = emu.esc_disabled_for(**ident, cookie=cookie)
            without = emu.esc_disabled_for(**ident)
            print(f"   ESC skipped with the cookie: {with_cookie}; without it: {without}")
            print(f"   status:   {scope.esc.status()!r}")
            scope.esc.disable()
            print(f"2. disabled for every request: {scope.esc.status()!r}")
            scope.esc.enable()
            print(f"3. re-enabled (problems seen? this is the way back): {scope.esc.status()!r}")
            with scope.esc.disabled() as before:
                print(f"   with esc.disabled(): {scope.esc.status().state} (was {before.state})")
            print(f"   after the block:     {scope.esc.status().state}")
        print("\nrequests the emulator received (credentials and secrets redacted):")
        for r in emu.requests():
            body = f" {json.dumps(r['body'])}" if r["body"] is not None else ""
            print(f"  {r['method']:6} {r['path']}{body} -> {r['status']}")


def logpush_demo() -> None:
    """Create a log-push job with a validated filter on the embedded emulator and read it back."""
    from . import LogpullOptions
    from .testing import Emulator

    print("== Log-push job, against the embedded emulator ==")
    f = (field("EdgeResponseStatus") >= 500) & field("ClientRequestHost").ends_with(".example.com")
    f.validate("http_requests")
    print(f"filter validated for http_requests: {f.to_json()}")
    with Emulator() as emu:
        zone = emu.client().zone("023e105f4ecef8ad9ca31a8372d0c353")
        try:
            zone.logpush.create_job(destination_conf="s3://bucket/logs", dataset="http_requests", filter=f)
        except InvalidInput as err:
            print(f"refused before sending: {err}")
        # An S3 bucket needs an ownership challenge: the API writes a token into the bucket,
        # the job carries it (the emulator's bucket is read through it).
        bucket = "s3://bucket/logs?region=us-east-1"
        written = zone.logpush.ownership_challenge(bucket)
        print(f"ownership challenge written to {written['filename']}")
        job = zone.logpush.create_job(
            destination_conf=bucket,
            ownership_challenge=emu.written_challenge(bucket, zone="023e105f4ecef8ad9ca31a8372d0c353"),
            dataset="http_requests",
            name="edge-errors",
            filter=f,
            logpull_options=LogpullOptions(
                ["ClientIP", "EdgeResponseStatus", "ClientRequestHost"], timestamps="rfc3339"
            ),
        )
        print(f"created job {job['id']}; the stored job:")
        print(json.dumps(zone.logpush.job(job["id"]), indent=2))
        print(f"requests the emulator received: {len(emu.requests())} (the refused job sent nothing)")


def run() -> int:
    filter_demo()
    print()
    esc_demo()
    print()
    logpush_demo()
    return 0
