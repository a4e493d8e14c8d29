"""The ESC controls from Python, end to end against the emulator on loopback."""

from __future__ import annotations

import json
import string
import threading
import time
import urllib.error
import urllib.request
from typing import Any, Union

import pytest

import escpush
from escpush import (
    Account,
    ApiError,
    AuthenticationError,
    Client,
    EscpushError,
    EscStatus,
    InvalidInput,
    NotFoundError,
    Zone,
    esc_cookie,
)
from escpush.testing import Emulator

ZONE = "023e105f4ecef8ad9ca31a8372d0c353"
ACCOUNT = "01a7362d577a6c3019a474fd6f485823"
Scope = Union[Zone, Account]


def scope_of(client: Client, kind: str) -> Scope:
    return client.zone(ZONE) if kind == "zone" else client.account(ACCOUNT)


def raw(
    emu: Emulator, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, Any]]:
    """A request sent with urllib, to reach the emulator the way another client would."""
    req = urllib.request.Request(emu.base_url + path, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        with err:
            return err.code, json.loads(err.read())


# -- every operation on both scopes --------------------------------------------------


@pytest.mark.parametrize("kind", ["zone", "account"])
@pytest.mark.parametrize("token", [False, True], ids=["api_key", "api_token"])
def test_every_operation(escpush_emulator: Emulator, kind: str, token: bool) -> None:
    emu = escpush_emulator
    scope = scope_of(emu.client(token=token), kind)
    path = f"/client/v4/{kind}s/{scope.id}/disable_esc"

    assert scope.esc.status() == scope.esc.status()
    status = scope.esc.status()
    assert (status.state, status.disabled, status.secret) == ("enabled", False, None)

    assert scope.esc.set_secret("my-test-secret_1") == "my-test-secret_1"
    status = scope.esc.status()
    assert (status.state, status.disabled, status.secret) == ("secret", False, "my-test-secret_1")

    assert scope.esc.disable() is None
    status = scope.esc.status()
    assert (status.state, status.disabled, status.secret) == ("disabled", True, "my-test-secret_1")

    assert scope.esc.enable() is None
    assert scope.esc.status().state == "secret"  # DELETE keeps the secret (the emulator's documented choice)

    log = emu.requests()
    assert [(r["method"], r["path"], r["status"]) for r in log][3:] == [
        ("POST", path, 200),
        ("GET", path, 200),
        ("POST", path, 200),
        ("GET", path, 200),
        ("DELETE", path, 200),
        ("GET", path, 200),
    ]
    posts = [r for r in log if r["method"] == "POST"]
    assert [p["body"] for p in posts] == [{"with_secret": "***"}, {"always": True}]
    assert all(p["headers"]["content-type"] == "application/json" for p in posts)
    if token:
        assert all(r["headers"]["authorization"] == "***" for r in log)
    else:
        assert all(r["headers"]["x-auth-key"] == "***" for r in log)
        assert all(r["headers"]["x-auth-email"] == emu.email for r in log)
    side = emu.state()[f"{kind}s"][scope.id]["esc"]
    assert side == {"always": False, "secret_set": True, "secret_length": 16}


def test_the_spec_test_order_and_the_cookie(escpush_emulator: Emulator) -> None:
    zone = escpush_emulator.client().zone(ZONE)
    secret = zone.esc.set_secret()
    assert len(secret) == 43 and set(secret) <= set(string.ascii_letters + string.digits + "-_")
    assert zone.esc.set_secret() != secret  # a fresh one each time
    secret = zone.esc.status().secret
    assert secret is not None
    cookie = esc_cookie(secret)
    assert cookie == f"disable_esc={secret}"
    assert escpush_emulator.esc_disabled_for(zone=ZONE, cookie=f"a=1; {cookie}")
    assert not escpush_emulator.esc_disabled_for(zone=ZONE, cookie="disable_esc=wrong")
    assert not escpush_emulator.esc_disabled_for(account=ACCOUNT, cookie=cookie)  # the scope where it was set
    zone.esc.disable()
    assert escpush_emulator.esc_disabled_for(zone=ZONE)
    zone.esc.enable()
    assert not escpush_emulator.esc_disabled_for(zone=ZONE)


def test_the_emulator_shows_both_fields_when_both_apply(escpush_emulator: Emulator) -> None:
    client = escpush_emulator.client()
    client.zone("z").esc.set_secret("abc")
    client.zone("z").esc.disable()
    headers = {"X-Auth-Key": escpush_emulator.api_key, "X-Auth-Email": escpush_emulator.email}
    assert raw(escpush_emulator, "GET", "/zones/z/disable_esc", headers=headers) == (
        200,
        {"success": True, "errors": [], "messages": [], "result": {"always": True, "with_secret": "abc"}},
    )
    assert raw(escpush_emulator, "GET", "/zones/other/disable_esc", headers=headers)[1]["result"] == {}


@pytest.mark.parametrize("before", ["enabled", "disabled", "secret"])
def test_disabled_restores_the_previous_state(escpush_emulator: Emulator, before: str) -> None:
    esc = escpush_emulator.client().zone(ZONE).esc
    if before == "disabled":
        esc.disable()
    elif before == "secret":
        esc.set_secret("keep-me")
    with esc.disabled() as previous:
        assert isinstance(previous, EscStatus) and previous.state == before
        assert esc.status().disabled
    assert esc.status().state == before


def test_disabled_restores_even_when_the_body_raises(escpush_emulator: Emulator) -> None:
    esc = escpush_emulator.client().account(ACCOUNT).esc
    with pytest.raises(ZeroDivisionError), esc.disabled():
        assert esc.status().disabled
        _ = 1 / 0
    assert esc.status().state == "enabled"
    assert [r["method"] for r in escpush_emulator.requests()] == ["GET", "POST", "GET", "DELETE", "GET"]


def test_reprs_look_like_constructors_and_hide_secrets(escpush_emulator: Emulator) -> None:
    client = escpush_emulator.client(token=True)
    zone = client.zone(ZONE)
    assert repr(client) == f"Client(base_url='{escpush_emulator.base_url}', auth='api_token')"
    assert repr(zone) == f"Zone('{ZONE}')"
    assert repr(client.account("a")) == "Account('a')"
    assert repr(zone.esc) == f"Esc(zone='{ZONE}')"
    assert repr(zone.esc.disabled()) == f"Esc(zone='{ZONE}').disabled()"
    assert repr(zone.esc.status()) == "EscStatus(state='enabled', disabled=False, secret=None)"
    zone.esc.set_secret("hunter2-hunter2")
    assert repr(zone.esc.status()) == "EscStatus(state='secret', disabled=False, secret='***')"
    assert repr(escpush_emulator).startswith("Emulator(base_url='http://127.0.0.1:")


# -- bad input: a clear error, and nothing sent ----------------------------------------


@pytest.mark.parametrize(
    ("secret", "rule"),
    [
        ("x" * 101, "101 characters; at most 100"),
        ("abc;def", "character 4 is a semicolon"),
        ("abc def", "character 4 is a space"),
        ("", "must not be empty"),
        ('a"b', "double quote"),
        ("a,b", "comma"),
        ("a\\b", "backslash"),
        ("a\tb", "control character"),
        ("caf\u00e9", "non-ASCII"),
    ],
)
def test_bad_secrets_are_refused_before_sending(escpush_emulator: Emulator, secret: str, rule: str) -> None:
    esc = escpush_emulator.client().zone(ZONE).esc
    with pytest.raises(InvalidInput, match=rule) as exc:
        esc.set_secret(secret)
    assert isinstance(exc.value, ValueError) and isinstance(exc.value, EscpushError)
    assert str(exc.value).startswith("invalid ESC secret: ")
    with pytest.raises(InvalidInput, match=rule):
        esc_cookie(secret)
    assert escpush_emulator.requests() == []


def test_a_100_character_secret_is_fine(escpush_emulator: Emulator) -> None:
    esc = escpush_emulator.client().zone(ZONE).esc
    esc.set_secret("y" * 100)
    assert esc.status().secret == "y" * 100


@pytest.mark.parametrize(
    ("zone_id", "rule"),
    [
        ("", "invalid zone id: must not be empty"),
        ("abc/def", "`/` at byte 3"),
        ("../accounts/x", "`/` at byte 2"),
        ("abc?x=1", "`?`"),
        ("abc#x", "`#`"),
        ("abc%2F", "`%`"),
        ("abc def", "whitespace at byte 3"),
        ("abc\n", "control character"),
        ("..", "another path"),
        (".", "another path"),
        ("abc<d", "`<` at byte 3"),
        ("zon\u00e9", "a non-ASCII character at byte 3"),
    ],
)
def test_bad_ids_are_refused_before_sending(escpush_emulator: Emulator, zone_id: str, rule: str) -> None:
    client = escpush_emulator.client()
    with pytest.raises(InvalidInput, match=rule):
        client.zone(zone_id)
    with pytest.raises(InvalidInput, match="invalid account id"):
        client.account(zone_id)
    assert escpush_emulator.requests() == []


@pytest.mark.forges_requests  # bodies and methods escpush's client never sends
def test_always_false_cannot_be_sent_and_the_emulator_refuses_it(escpush_emulator: Emulator) -> None:
    esc = escpush_emulator.client().zone(ZONE).esc
    with pytest.raises(TypeError):
        esc.disable(False)  # type: ignore[call-arg]
    assert escpush_emulator.requests() == []
    headers = {
        "X-Auth-Key": escpush_emulator.api_key,
        "X-Auth-Email": escpush_emulator.email,
        "Content-Type": "application/json",
    }
    for body in [
        b'{"always": false}',
        b'{"always": "true"}',
        b'{"with_secret": ""}',
        b'{"with_secret": "' + b"x" * 101 + b'"}',
        b'{"with_secret": 5}',
        b'{"always": true, "with_secret": "a"}',
        b"{}",
        b"[true]",
        b"not json",
    ]:
        status, answer = raw(escpush_emulator, "POST", f"/zones/{ZONE}/disable_esc", body, headers)
        assert status == 400, body
        assert answer["success"] is False and answer["errors"][0]["code"] == 1001
    no_type = {k: v for k, v in headers.items() if k != "Content-Type"}
    assert raw(escpush_emulator, "POST", f"/zones/{ZONE}/disable_esc", b'{"always": true}', no_type)[0] == 400
    assert escpush_emulator.state()["zones"] == {}  # nothing took effect


@pytest.mark.parametrize(
    ("secret", "rule"), [("top secret", "a space"), ("top;secret", "a semicolon"), ('top"secret', "a double quote")]
)
def test_the_emulator_refuses_the_secrets_the_client_refuses(
    escpush_emulator: Emulator, secret: str, rule: str
) -> None:
    """The emulator reads an ESC body with core's reader (EscSecret's rules), not by length
    alone: a secret the client cannot send is a 400 there too, its message naming the rule
    and never the secret."""
    with pytest.raises(InvalidInput, match=rule):
        escpush_emulator.client().zone(ZONE).esc.set_secret(secret)
    headers = {"Authorization": f"Bearer {escpush_emulator.api_token}", "Content-Type": "application/json"}
    body = json.dumps({"with_secret": secret}).encode()
    status, answer = raw(escpush_emulator, "POST", f"/zones/{ZONE}/disable_esc", body, headers)
    assert status == 400 and answer["errors"][0]["code"] == 1001
    message = answer["errors"][0]["message"]
    assert rule in message and secret not in message, message
    assert escpush_emulator.state()["zones"] == {}  # nothing took effect


# -- authentication, routes, methods ---------------------------------------------------


def test_wrong_credentials_raise_authentication_error(escpush_emulator: Emulator) -> None:
    for client in [
        Client(api_key="wrong-key", email=escpush_emulator.email, base_url=escpush_emulator.base_url),
        Client(api_key=escpush_emulator.api_key, email="other@example.com", base_url=escpush_emulator.base_url),
        Client(api_token="wrong-token", base_url=escpush_emulator.base_url),
    ]:
        with pytest.raises(AuthenticationError) as exc:
            client.zone(ZONE).esc.status()
        assert exc.value.status == 403
        assert exc.value.errors[0]["code"] in (9103, 9109)
        assert isinstance(exc.value, ApiError)
    status, answer = raw(escpush_emulator, "GET", f"/zones/{ZONE}/disable_esc")
    assert status == 401 and answer["errors"][0]["code"] == 10000


@pytest.mark.forges_requests  # bodies and methods escpush's client never sends
def test_unknown_routes_and_methods(escpush_emulator: Emulator) -> None:
    client = Client(api_token=escpush_emulator.api_token, base_url=escpush_emulator.base_url.replace("v4", "v3"))
    with pytest.raises(NotFoundError) as exc:
        client.zone(ZONE).esc.status()
    assert exc.value.status == 404 and exc.value.errors[0]["code"] == 7003
    headers = {"Authorization": f"Bearer {escpush_emulator.api_token}"}
    status, answer = raw(escpush_emulator, "PUT", f"/zones/{ZONE}/disable_esc", b"{}", headers)
    assert status == 405 and answer["errors"][0]["code"] == 7001


# -- construction ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "give api_token"),
        ({"api_key": "k"}, "needs the account's email"),
        ({"email": "e@x.io"}, "needs api_key"),
        ({"api_key": "k", "email": "e", "api_token": "t"}, "not both"),
        ({"api_token": ""}, "API token: must not be empty"),
        ({"api_token": "t", "base_url": "http://example.com/client/v4"}, "unencrypted"),
        ({"api_token": "t", "base_url": "ftp://example.com/"}, "scheme"),
        ({"api_token": "t", "timeout": 0}, "timeout"),
        ({"api_token": "t", "timeout": -1.0}, "timeout"),
        ({"api_token": "t", "timeout": 1e300}, "timeout"),
        ({"api_token": "t", "max_retries": -1}, "invalid max_retries: must be from 0 to 100 \\(got -1\\)"),
        ({"api_token": "t", "max_retries": 101}, "max_retries"),
    ],
)
def test_bad_settings_are_refused(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        Client(**kwargs)


def test_settings_that_are_fine() -> None:
    assert Client(api_token="t").base_url == "https://api.cloudflare.com/client/v4"
    assert Client(api_token="t", base_url="http://localhost:1/client/v4/").base_url == "http://localhost:1/client/v4"
    insecure = Client(api_token="t", base_url="http://example.com/client/v4", allow_insecure_http=True)
    assert insecure.base_url == "http://example.com/client/v4"


def test_from_env(monkeypatch: pytest.MonkeyPatch, escpush_emulator: Emulator) -> None:
    for name in ["CLOUDFLARE_API_TOKEN", "CLOUDFLARE_API_KEY", "CLOUDFLARE_EMAIL", "CLOUDFLARE_BASE_URL"]:
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(InvalidInput, match="CLOUDFLARE_API_TOKEN"):
        Client.from_env()
    monkeypatch.setenv("CLOUDFLARE_API_KEY", escpush_emulator.api_key)
    with pytest.raises(InvalidInput, match="CLOUDFLARE_EMAIL"):
        Client.from_env()
    monkeypatch.setenv("CLOUDFLARE_EMAIL", escpush_emulator.email)
    assert Client.from_env().base_url == "https://api.cloudflare.com/client/v4"
    monkeypatch.setenv("CLOUDFLARE_BASE_URL", escpush_emulator.base_url)
    assert repr(Client.from_env()).endswith("auth='api_key')")
    assert Client.from_env().zone("z").esc.status().state == "enabled"
    monkeypatch.setenv("CLOUDFLARE_API_TOKEN", escpush_emulator.api_token)
    assert repr(Client.from_env()).endswith("auth='api_token')")
    assert Client.from_env(base_url="https://example.com/client/v4").base_url == "https://example.com/client/v4"


def test_the_gil_is_released_during_requests(escpush_emulator: Emulator) -> None:
    esc = escpush_emulator.client().zone(ZONE).esc
    escpush_emulator.fail_next(delay=0.4, count=4)
    threads = [threading.Thread(target=esc.status) for _ in range(4)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert time.monotonic() - started < 1.2  # four 0.4 s waits overlapped


def test_names_are_exported() -> None:
    for name in ["Client", "Zone", "Account", "Esc", "EscStatus", "esc_cookie"]:
        assert name in escpush.__all__


def test_the_demo_walks_the_spec_order_without_showing_secrets(capsys: pytest.CaptureFixture[str]) -> None:
    import re

    from escpush._demo import esc_demo

    esc_demo()
    out = capsys.readouterr().out
    assert out.count("Cookie: disable_esc=<SECRET, 43 characters>") == 2
    assert out.count("ESC skipped with the cookie: True; without it: False") == 2
    assert out.count("2. disabled for every request: EscStatus(state='disabled', disabled=True, secret='***')") == 2
    assert out.index("-- zone ") < out.index("-- account ")
    assert not re.search(r"[A-Za-z0-9_-]{43}", out)


# -- issue 10 and 17: one Scope class, from_env overrides, deadlines, restore, secrets -------


def test_zone_and_account_share_one_scope_class(escpush_emulator: Emulator) -> None:
    from escpush._escpush import Scope as ScopeClass

    client = escpush_emulator.client()
    zone, account = client.zone(ZONE), client.account(ACCOUNT)
    assert isinstance(zone, Zone) and isinstance(zone, ScopeClass) and not isinstance(zone, Account)
    assert isinstance(account, Account) and isinstance(account, ScopeClass)
    assert (repr(zone), repr(account)) == (f"Zone('{ZONE}')", f"Account('{ACCOUNT}')")
    assert type(zone).__module__ == "escpush" and type(zone).__mro__[1] is ScopeClass


def test_from_env_keywords_win_over_the_variables(monkeypatch: pytest.MonkeyPatch, escpush_emulator: Emulator) -> None:
    emu = escpush_emulator
    monkeypatch.setenv("CLOUDFLARE_API_TOKEN", "wrong-token")
    monkeypatch.setenv("CLOUDFLARE_BASE_URL", "https://example.invalid/client/v4")
    monkeypatch.setenv("CLOUDFLARE_EMAIL", emu.email)
    client = Client.from_env(api_token=emu.api_token, base_url=emu.base_url, timeout=5, max_retries=0)
    assert client.base_url == emu.base_url and client.zone("z").esc.status().state == "enabled"
    # A key given in code is used although the environment holds a token; its email comes
    # from CLOUDFLARE_EMAIL.
    by_key = Client.from_env(api_key=emu.api_key, base_url=emu.base_url)
    assert repr(by_key).endswith("auth='api_key')") and by_key.zone("z").esc.status().state == "enabled"
    assert Client.from_env().base_url == "https://example.invalid/client/v4"
    monkeypatch.delenv("CLOUDFLARE_EMAIL")
    monkeypatch.delenv("CLOUDFLARE_API_TOKEN")
    with pytest.raises(InvalidInput, match="needs its email") as exc:
        Client.from_env(api_key=emu.api_key)
    assert emu.api_key not in str(exc.value)
    with pytest.raises(InvalidInput, match="not both"):
        Client.from_env(api_token="t", api_key="k", email="e")
    assert repr(Client.from_env(api_key="k", email="e@x.io")).endswith("auth='api_key')")


def test_the_timeout_bounds_the_whole_call(escpush_emulator: Emulator) -> None:
    esc = escpush_emulator.client(timeout=1.0).zone("z").esc
    escpush_emulator.fail_next(status=429, count=3, retry_after=3600)
    started = time.monotonic()
    with pytest.raises(escpush.RateLimitError, match=r"retry in 3600 s \(after .* GMT\).*timeout of 1 s") as exc:
        esc.status()
    assert time.monotonic() - started < 0.9
    assert exc.value.status == 429 and exc.value.errors[0]["code"] == 10429
    escpush_emulator.clear_faults()
    # A slow head, then a slow body: each part fits the timeout, the whole does not.
    escpush_emulator.fail_next(trickle=0.6)
    started = time.monotonic()
    with pytest.raises(escpush.TransportError, match="timed out"):
        esc.status()
    assert time.monotonic() - started < 1.2


class _FailingEnable(Exception):
    pass


def test_a_failed_restore_keeps_the_body_exception_and_says_esc_is_left_disabled(
    escpush_emulator: Emulator,
) -> None:
    esc = escpush_emulator.client(max_retries=0).zone(ZONE).esc
    with pytest.raises(escpush.ServerError) as exc, esc.disabled():
        escpush_emulator.fail_next(status=503)
        raise _FailingEnable("the user's own error")
    message = str(exc.value)
    assert f"ESC of zone {ZONE} was left disabled" in message
    assert f"client.zone('{ZONE}').esc.enable()" in message and f"escpush esc enable --zone {ZONE}" in message
    assert isinstance(exc.value.__context__, _FailingEnable), "the body's exception is kept"
    assert exc.value.status == 503 and exc.value.errors[0]["code"] == 10503
    assert escpush_emulator.state()["zones"][ZONE]["esc"]["always"] is True
    # Without an exception in the body: the same message, nothing chained.
    esc.enable()
    with pytest.raises(escpush.ServerError, match="was left disabled") as plain, esc.disabled():
        escpush_emulator.fail_next(status=500)
    assert plain.value.__context__ is None


def test_secrets_echoed_by_the_server_are_scrubbed(escpush_emulator: Emulator) -> None:
    emu = escpush_emulator
    secret = "echoed-secret-0123456789"
    shown: list[str] = []
    for client in [emu.client(), emu.client(token=True)]:
        emu.fail_next(echo=True, status=500, count=3)
        with pytest.raises(escpush.ServerError) as exc:
            client.zone("z").esc.set_secret(secret)
        emu.clear_faults()
        shown += [str(exc.value), repr(exc.value), repr(exc.value.errors)]
        assert "cannot process POST" in str(exc.value)
    text = "\n".join(shown)
    for leaked in [secret, emu.api_key, emu.api_token]:
        assert leaked not in text


# The answers below hold no ESC status (issue 17 item 4): escpush-core's
# `EscStatus::from_answer` refuses each of them, so they are never read as "enabled".
NO_STATUS = [
    pytest.param(204, b"", id="204"),
    pytest.param(200, b"", id="empty-200"),
    pytest.param(200, b"null", id="null"),
    pytest.param(200, b"{}", id="bare-object"),
    pytest.param(200, b'{"success": true, "errors": [], "messages": []}', id="envelope-without-result"),
    pytest.param(200, b'{"success": true, "errors": {}, "result": {}}', id="errors-not-a-list"),
]


@pytest.mark.parametrize(("status", "body"), NO_STATUS)
def test_an_answer_without_status_is_a_transport_error(escpush_emulator: Emulator, status: int, body: bytes) -> None:
    escpush_emulator.fail_next(status=status, body=body)
    with pytest.raises(escpush.TransportError, match="malformed"):
        escpush_emulator.client().zone("z").esc.status()


def test_the_emulators_own_answer_without_secret_stays_enabled(escpush_emulator: Emulator) -> None:
    escpush_emulator.fail_next(body=b'{"success": true, "errors": [], "messages": [], "result": {}}')
    assert escpush_emulator.client().zone("z").esc.status().state == "enabled"
    assert escpush_emulator.client().zone("z").esc.status().state == "enabled"
