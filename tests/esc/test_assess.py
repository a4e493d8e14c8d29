"""``zone.esc.assess``: the spec's test order against the emulator's edge mode, every scenario
of issue 14, and that no scope is ever left in a state the user did not ask for."""

from __future__ import annotations

import json
import string
from typing import Any

import pytest

import escpush
from escpush import EscAssessment, InvalidInput
from escpush.testing import Emulator

FAST: dict[str, Any] = {"settle": 0.05, "timeout": 5.0}
# The origin fails at /down; ESC hides it behind a maintenance page.
BROKEN_PAGES = {"/": {"body": "home"}, "/down": {"status": 502, "body": "bad gateway"}}
BROKEN_ESC = [
    {"path": "*", "set_header": {"X-ESC": "on"}},
    {"path": "/down", "respond": "maintenance", "status": 200},
]


def zone_state(emu: Emulator, zone: str = "z1") -> dict[str, Any]:
    esc: dict[str, Any] = emu.state()["zones"][zone]["esc"]
    return esc


def outcomes(result: EscAssessment) -> list[str]:
    return [stage["outcome"] for stage in result.stages]


def shown(result: EscAssessment) -> str:
    """Everything the result can show."""
    return "\n".join([str(result), repr(result), json.dumps(result.to_dict()), result._repr_html_()])


def posts(emu: Emulator) -> list[tuple[str, str]]:
    return [(r["method"], r["path"]) for r in emu.requests() if r["method"] != "GET"]


def test_a_full_assessment_finds_what_esc_does_and_restores(escpush_emulator: Emulator) -> None:
    emu = escpush_emulator
    site = emu.serve_site("z1")
    zone = emu.client().zone("z1")
    result = zone.esc.assess([f"{site}/", f"{site}/old", f"{site}/new"], **FAST)
    assert result.ok and result.restored and result.error is None
    assert outcomes(result) == ["passed", "passed", "skipped"]
    assert zone_state(emu)["always"] is False
    found = {(d["url"].removeprefix(site), d["what"], d["name"]) for d in result.differences}
    assert ("/", "header", "x-esc") in found
    assert ("/old", "location", None) in found
    assert ("/old", "status", None) in found
    # CF-Ray differs on every response and is ignored by default
    assert not any(d["name"] == "cf-ray" for d in result.differences)
    location = next(d for d in result.differences if d["what"] == "location")
    assert location["with_esc"] == "/new" and location["without_esc"] is None
    assert location["replacement"]["replacement"] == "single or bulk redirect rules"
    data = result.to_dict()
    assert set(data) >= {"ok", "restored", "initial", "final", "stages", "differences"}
    assert data["initial"][0] == {
        "scope": "zone",
        "id": "z1",
        "state": "enabled",
        "disabled": False,
        "secret_set": False,
        "secret_length": None,
    }
    assert data["final"][0]["state"] == "secret"
    assert [s["name"] for s in data["stages"]] == ["request", "zone", "account"]
    url = data["stages"][0]["urls"][0]
    assert url["with_esc"]["status"] == 200 and len(url["without_esc"]["body_sha256"]) == 64
    # the secret is set (no API call removes one) and never shown
    secret = zone.esc.status().secret
    # core's shape for a secret escpush makes, as `set_secret()` makes (this made 64 hex digits)
    assert secret is not None and len(secret) == 43 and set(secret) <= set(string.ascii_letters + string.digits + "-_")
    assert secret not in shown(result)
    assert "stays" in str(result)
    count = len(result.differences)
    assert repr(result) == f"EscAssessment(ok=True, restored=True, stages='passed/passed/skipped', differences={count})"


def test_ignored_headers_are_configurable(escpush_emulator: Emulator) -> None:
    emu = escpush_emulator
    site = emu.serve_site("z1")
    result = emu.client().zone("z1").esc.assess([f"{site}/"], ignore_headers=["X-ESC"], **FAST)
    # the random CF-Ray is compared now, and the ESC header is not
    names = {d["name"] for d in result.differences}
    assert names == {"cf-ray"}


def test_a_failing_url_in_the_request_stage_never_touches_the_zone(escpush_emulator: Emulator) -> None:
    emu = escpush_emulator
    site = emu.serve_site("z1", pages=BROKEN_PAGES, esc=BROKEN_ESC)
    emu.clear_requests()
    result = emu.client().zone("z1").esc.assess([f"{site}/", f"{site}/down"], account="a1", **FAST)
    assert not result.ok and result.restored and result.error is None
    assert outcomes(result) == ["failed", "skipped", "skipped"]
    down = result.stages[0]["urls"][1]
    assert down["problem"] == "status 502" and down["with_esc"]["status"] == 200
    assert posts(emu) == [("POST", "/client/v4/zones/z1/disable_esc")]  # the secret only
    assert emu.requests()[-1]["path"] != "/client/v4/zones/z1/disable_esc" or emu.requests()[-1]["method"] == "GET"
    assert "zone was not touched" in str(result)


def test_expect_status_is_the_users_check(escpush_emulator: Emulator) -> None:
    emu = escpush_emulator
    site = emu.serve_site("z1")
    result = emu.client().zone("z1").esc.assess([f"{site}/old"], expect_status=301, **FAST)
    assert outcomes(result)[0] == "failed"
    assert result.stages[0]["urls"][0]["problem"] == "status 404, expected 301"


def test_a_failure_in_the_zone_stage_is_rolled_back(escpush_emulator: Emulator) -> None:
    emu = escpush_emulator
    site = emu.serve_site("z1")

    def progress(line: str) -> None:
        # the origin falls over once the whole zone runs without ESC
        if line.startswith("waiting") and "edge" in line:
            emu.serve_site("z1", pages={"/": {"status": 503}})

    result = emu.client().zone("z1").esc.assess([f"{site}/"], account="a1", progress=progress, **FAST)
    assert outcomes(result) == ["passed", "rolled_back", "skipped"]
    assert not result.ok and result.restored and result.error is None
    assert result.stages[1]["urls"][0]["problem"] == "status 503"
    assert zone_state(emu)["always"] is False
    assert ("DELETE", "/client/v4/zones/z1/disable_esc") in posts(emu)
    assert not any(path.startswith("/client/v4/accounts") for _, path in posts(emu))


def test_an_api_failure_in_the_middle_restores(escpush_emulator: Emulator) -> None:
    emu = escpush_emulator
    site = emu.serve_site("z1")

    def progress(line: str) -> None:
        if line == "disabling ESC for zone z1":
            emu.fail_next(status=500, count=3)  # the call and its two retries

    result = emu.client().zone("z1").esc.assess([f"{site}/"], progress=progress, **FAST)
    assert not result.ok and result.restored
    assert result.error is not None and "500" in result.error
    assert outcomes(result) == ["passed", "rolled_back", "skipped"]
    assert zone_state(emu)["always"] is False


def test_a_failed_restore_says_not_restored_with_the_command(escpush_emulator: Emulator) -> None:
    emu = escpush_emulator
    site = emu.serve_site("z1")

    def progress(line: str) -> None:
        if line.startswith("waiting") and "edge" in line:
            emu.fail_next(status=403, count=1000)  # the credentials were revoked mid-way

    result = emu.client().zone("z1").esc.assess([f"{site}/"], progress=progress, **FAST)
    emu.clear_faults()
    assert not result.ok and not result.restored
    # the zone stage passed; putting the zone back did not
    assert outcomes(result) == ["passed", "passed", "skipped"]
    [item] = result.not_restored
    assert item["command"] == "escpush esc enable --zone z1"
    assert item["scope"] == "zone" and item["id"] == "z1"
    assert "NOT RESTORED: zone z1" in str(result)
    assert "NOT RESTORED" in result._repr_html_()
    assert result.to_dict()["final"] == [None]
    assert zone_state(emu)["always"] is True


def test_a_propagation_delay_longer_than_the_settle_time(escpush_emulator: Emulator) -> None:
    emu = escpush_emulator
    site = emu.serve_site("z1", delay=3600)
    result = emu.client().zone("z1").esc.assess([f"{site}/old"], **FAST)
    assert outcomes(result) == ["passed", "rolled_back", "skipped"]
    assert "settle" in result.stages[1]["urls"][0]["problem"]
    assert result.restored and zone_state(emu)["always"] is False


def test_the_account_stage_runs_after_the_zone_is_put_back(escpush_emulator: Emulator) -> None:
    emu = escpush_emulator
    site = emu.serve_site("z1", account="a1")
    result = emu.client().zone("z1").esc.assess([f"{site}/", f"{site}/old"], account="a1", **FAST)
    assert result.ok, str(result)
    assert outcomes(result) == ["passed", "passed", "passed"]
    writes = posts(emu)
    zone_back = writes.index(("DELETE", "/client/v4/zones/z1/disable_esc"))
    account_off = writes.index(("POST", "/client/v4/accounts/a1/disable_esc"))
    assert zone_back < account_off
    assert emu.state()["accounts"]["a1"]["esc"]["always"] is False
    assert [s["scope"] for s in result.to_dict()["final"]] == ["zone", "account"]


def test_keep_disabled_after_every_stage_passed(escpush_emulator: Emulator) -> None:
    emu = escpush_emulator
    site = emu.serve_site("z1", account="a1")
    result = emu.client().zone("z1").esc.assess([f"{site}/"], account="a1", keep_disabled=True, **FAST)
    assert result.ok and result.restored
    assert zone_state(emu)["always"] is True
    assert emu.state()["accounts"]["a1"]["esc"]["always"] is True
    kept = sorted((s["scope"], s["id"]) for s in result.to_dict()["kept_disabled"])
    assert kept == [("account", "a1"), ("zone", "z1")]
    assert "kept disabled as asked" in str(result)


def test_keep_disabled_is_ignored_when_a_stage_fails(escpush_emulator: Emulator) -> None:
    emu = escpush_emulator
    site = emu.serve_site("z1", delay=3600)
    result = emu.client().zone("z1").esc.assess([f"{site}/old"], keep_disabled=True, **FAST)
    assert not result.ok and zone_state(emu)["always"] is False


def test_ctrl_c_restores_before_raising(escpush_emulator: Emulator) -> None:
    emu = escpush_emulator
    site = emu.serve_site("z1")

    def progress(line: str) -> None:
        if line.startswith("waiting") and "edge" in line:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt) as caught:
        emu.client().zone("z1").esc.assess([f"{site}/"], progress=progress, settle=30.0)
    result = caught.value.assessment  # type: ignore[attr-defined]
    assert isinstance(result, EscAssessment)
    assert result.restored and result.error == "interrupted: KeyboardInterrupt"
    assert outcomes(result) == ["passed", "rolled_back", "skipped"]
    assert zone_state(emu)["always"] is False


def test_a_previous_secret_is_set_again(escpush_emulator: Emulator) -> None:
    emu = escpush_emulator
    site = emu.serve_site("z1")
    zone = emu.client().zone("z1")
    zone.esc.set_secret("my-own-secret")
    result = zone.esc.assess([f"{site}/"], **FAST)
    assert result.ok and result.to_dict()["secret_left"] == []
    assert zone.esc.status().secret == "my-own-secret"
    assert "my-own-secret" not in shown(result)


def test_bad_arguments_are_refused_before_anything_is_sent(escpush_emulator: Emulator) -> None:
    emu = escpush_emulator
    zone = emu.client().zone("z1")
    emu.clear_requests()
    for kwargs, says in [
        ({"urls": ["ftp://x/"]}, "must start with http"),
        ({"urls": []}, "at least one URL"),
        ({"urls": "http://x/"}, "not one string"),
        ({"urls": ["http://x/"], "settle": -1.0}, "invalid settle"),
        ({"urls": ["http://x/"], "expect_status": [700]}, "700"),
        ({"urls": ["http://x/"], "account": "a/b"}, "invalid account id"),
        ({"urls": ["http://x/"], "ignore_headers": ["bad name"]}, "not a header name"),
    ]:
        with pytest.raises(InvalidInput, match=says):
            zone.esc.assess(**kwargs)
    with pytest.raises(InvalidInput, match="not a zone"):
        emu.client().account("a1").esc.assess(["http://x/"])
    assert emu.requests() == []


def test_the_replacement_guide_is_the_spec_table() -> None:
    rows = escpush.esc_replacements()
    assert len(rows) == 10
    assert all(set(row) == {"use_case", "replacement", "note"} for row in rows)
    assert rows[0]["replacement"] == "single or bulk redirect rules"
    assert any("workers" in row["replacement"] for row in rows)


def test_edge_sites_follow_the_esc_setting(escpush_emulator: Emulator) -> None:
    import urllib.request

    emu = escpush_emulator
    site = emu.serve_site("z1", account="a1")
    assert emu.sites() == {"z1": site}

    def header(cookie: str | None = None) -> str | None:
        req = urllib.request.Request(f"{site}/")
        if cookie:
            req.add_header("Cookie", cookie)
        with urllib.request.urlopen(req, timeout=5) as resp:
            value: str | None = resp.headers.get("X-ESC")
            return value

    assert header() == "on"
    client = emu.client()
    client.account("a1").esc.set_secret("acct-secret")
    assert header("disable_esc=acct-secret") is None
    assert header("disable_esc=nope") == "on"
    client.account("a1").esc.disable()
    assert header() is None
    with pytest.raises(InvalidInput, match="unknown member"):
        emu.serve_site("z2", esc=[{"path": "*", "colour": "red"}])


# The origin reflects the request's Cookie (issue 22 item 2): in a header, a Set-Cookie, the
# body and a redirect's Location.
REFLECTING = {
    "/": {
        "headers": {"X-Seen-Cookie": "{cookie}", "Set-Cookie": "seen={cookie}; Path=/"},
        "body": "you sent {cookie}",
        "reflect_cookie": True,
    },
    "/go": {"status": 302, "headers": {"Location": "/login?from={cookie}"}, "reflect_cookie": True},
}


def test_a_site_that_reflects_the_cookie_never_shows_the_secret(escpush_emulator: Emulator) -> None:
    import hashlib

    emu = escpush_emulator
    site = emu.serve_site("z1", pages=REFLECTING)
    zone = emu.client().zone("z1")
    result = zone.esc.assess([f"{site}/", f"{site}/go"], **FAST)
    assert result.ok and result.restored, str(result)
    secret = zone.esc.status().secret
    assert secret is not None and secret not in shown(result)
    # What carried the cookie is kept masked (the body before it is hashed) ...
    request = result.stages[0]["urls"]
    masked = b"you sent disable_esc=***"
    body = request[0]["without_esc"]
    assert (body["body_length"], body["body_sha256"]) == (len(masked), hashlib.sha256(masked).hexdigest())
    assert request[1]["without_esc"]["location"] == "/login?from=disable_esc=***"
    # ... and is no difference ESC makes: only ESC's own header is left.
    assert {(d["url"].removeprefix(site), d["what"], d["name"]) for d in result.differences} == {
        ("/", "header", "x-esc"),
        ("/go", "header", "x-esc"),
    }
    notes = result.to_dict()["notes"]
    assert f"{site}/ reflects the test cookie (body, set-cookie, x-seen-cookie): left out of the comparison, " in (
        " ".join(notes)
    )


def test_a_reflected_cookie_is_not_taken_for_esc_still_running(escpush_emulator: Emulator) -> None:
    """ESC changes nothing here; only the cookie's echo differs, which is not ESC."""
    emu = escpush_emulator
    site = emu.serve_site("z1", pages=REFLECTING, esc=[])
    result = emu.client().zone("z1").esc.assess([f"{site}/", f"{site}/go"], **FAST)
    assert result.ok, str(result)
    assert outcomes(result) == ["passed", "passed", "skipped"]
    assert result.differences == []


def test_the_assessments_defaults_are_cores() -> None:
    # The binding's signature and `esc assess`'s options read core's defaults; `help()` shows
    # the values written out in the text signature, which must be the same.
    import inspect

    from escpush._escpush import _DEFAULT_FETCH_TIMEOUT, _DEFAULT_SETTLE, Esc
    from escpush.cli import build_parser

    assert (_DEFAULT_SETTLE, _DEFAULT_FETCH_TIMEOUT) == (3.0, 10.0)
    params = inspect.signature(Esc.assess).parameters
    assert (params["settle"].default, params["timeout"].default) == (_DEFAULT_SETTLE, _DEFAULT_FETCH_TIMEOUT)
    argv = ["esc", "assess", "--zone", "z", "--url", "https://example.com/"]
    args = build_parser(argv).parse_args(argv)
    assert (args.settle, args.fetch_timeout) == (_DEFAULT_SETTLE, _DEFAULT_FETCH_TIMEOUT)


def test_urls_are_shown_without_their_password_and_query_values(escpush_emulator: Emulator) -> None:
    # Issue 33, item 15: a basic-auth password and a query token are fetched, never shown.
    emu = escpush_emulator
    site = emu.serve_site("z1")
    with_auth = site.replace("http://", "http://me:pa55-w0rd-SECRET@", 1)
    urls = [f"{with_auth}/", f"{site}/old?token=t0k3n-SECRET&page=2", f"{site}/old?token=other-SECRET"]
    result = emu.client().zone("z1").esc.assess(urls, **FAST)
    assert result.ok
    text = shown(result)
    for secret in ("pa55-w0rd-SECRET", "t0k3n-SECRET", "other-SECRET"):
        assert secret not in text, text
    shown_urls = [u["url"] for u in result.to_dict()["stages"][0]["urls"]]
    host = site.removeprefix("http://")
    assert shown_urls == [
        f"http://***@{host}/",
        f"{site}/old?token=***&page=***",
        f"{site}/old?token=***",
    ]
    assert {d["url"] for d in result.differences} >= {f"{site}/old?token=***&page=***"}
    # A URL that shows alike once masked is numbered, so that no two URLs of a report share a name.
    result = emu.client().zone("z1").esc.assess([f"{site}/?k=a", f"{site}/?k=b"], **FAST)
    assert [u["url"] for u in result.to_dict()["stages"][0]["urls"]] == [f"{site}/?k=***", f"{site}/?k=*** (2)"]
