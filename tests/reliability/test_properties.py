"""Properties of the public Python API under arbitrary input (issue 16), with hypothesis.

Arbitrary JSON-ish trees, text (lone surrogates included), bytes, records, job fields,
secrets, ids and options go into every entry point; only the documented exceptions come
out: the ``escpush.errors`` classes (``FilterError`` and ``InvalidInput`` are also
``ValueError``s), and ``TypeError`` for an argument of a type the stub does not take. A
secret passed in never shows in a ``repr``, a ``str`` or an exception. And the real
properties: printing and parsing round-trip (JSON and the text form), ``compact`` keeps the
meaning, the two evaluators agree.

Two profiles (RELIABILITY.md, "Property tests of the Python API"): the default one is
deterministic (``derandomize``) and bounded, for ``make test``; ``HYPOTHESIS_PROFILE=long``
runs many more random examples.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

import escpush
from escpush import Client, EscpushError, Filter, LogpullOptions, field
from escpush.testing import Emulator
from strategies import FILTERS, RECORDS

_SLOW = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
settings.register_profile(
    "escpush-default", max_examples=60, derandomize=True, deadline=None, suppress_health_check=_SLOW
)
settings.register_profile(
    "escpush-long", max_examples=3000, derandomize=False, deadline=None, suppress_health_check=_SLOW
)
LONG = os.environ.get("HYPOTHESIS_PROFILE") == "long"
PROFILE = settings.get_profile("escpush-long" if LONG else "escpush-default")


def scaled(n: int) -> settings:
    """The profile with ``n`` times its examples (cheap properties get more)."""
    return settings(PROFILE, max_examples=PROFILE.max_examples * n)


# -- strategies ------------------------------------------------------------------------------

# Every code point, lone surrogates included (hypothesis leaves them out by default).
ANY_CHAR = st.characters(codec=None, categories=None)
TEXT = st.text(ANY_CHAR, max_size=12) | st.sampled_from(
    ["", "where", "and", "or", "not", "key", "in", "==", "(", ")", "\ud800", "\udcff", "A", "EdgeResponseStatus"]
)
NUMBER = st.one_of(
    st.integers(),  # any size: beyond 64 bits too
    st.integers(min_value=-(2**64), max_value=2**64),
    st.floats(),  # nan and inf included
    st.sampled_from([2**63, -(2**63) - 1, 2**1000, float("nan"), float("inf"), -0.0, 1e400]),
)
SCALAR = st.one_of(st.none(), st.booleans(), NUMBER, TEXT)
KEYWORDS = st.sampled_from(["where", "and", "or", "key", "operator", "value"])
OPERATORS = st.sampled_from(
    ["eq", "!eq", "lt", "leq", "gt", "geq", "startsWith", "endsWith", "!startsWith", "!endsWith", "contains"]
)
OPERATORS |= st.sampled_from(["!contains", "in", "!in", "EQ", "", "matches"])
JSONISH = st.recursive(
    SCALAR | OPERATORS,
    lambda children: (
        st.lists(children, max_size=4)
        | st.tuples(children, children)
        | st.dictionaries(KEYWORDS | TEXT, children, max_size=4)
    ),
    max_leaves=20,
)
# Near-filters: the right shape with arbitrary parts, so that parsing gets deep in.
CONDITION = st.fixed_dictionaries({"key": TEXT | KEYWORDS, "operator": OPERATORS, "value": JSONISH})
NEAR = st.recursive(
    CONDITION | JSONISH,
    lambda children: st.builds(lambda k, xs: {k: xs}, st.sampled_from(["and", "or"]), st.lists(children, max_size=3)),
    max_leaves=12,
)
DOCUMENTS = st.builds(lambda e: {"where": e}, NEAR) | JSONISH

# What each entry point may raise: escpush's classes, and TypeError for a wrong type.
DOCUMENTED: tuple[type[BaseException], ...] = (EscpushError, TypeError)


def outcome(call: Callable[[], Any]) -> Any:
    """The call's result, or the documented exception it raised (anything else fails)."""
    try:
        return call()
    except DOCUMENTED as err:
        assert not isinstance(err, UnicodeError), repr(err)  # named by escpush, not the codec
        message = str(err)
        assert message and len(message) < 20_000, len(message)
        return err


# -- filters from anything -------------------------------------------------------------------


@scaled(4)
@given(DOCUMENTS)
def test_from_dict_takes_anything_and_round_trips_what_it_takes(doc: Any) -> None:
    f = outcome(lambda: Filter.from_dict(doc))
    if isinstance(f, Filter):
        assert Filter.parse(f.to_json()) == f
        assert Filter.from_dict(f.to_dict()) == f
        assert Filter.from_text(f.to_text()) == f
        assert f.byte_size == len(f.to_json().encode())
        assert repr(f).startswith("Filter(")


@scaled(4)
@given(st.one_of(TEXT, st.text(ANY_CHAR), DOCUMENTS.map(lambda d: json.dumps(d, default=str))))
def test_any_text_parses_or_is_refused_with_a_filter_error(text: str) -> None:
    for parse in (Filter.parse, Filter.from_text, Filter.parse_any):
        f = outcome(lambda parse=parse: parse(text))  # type: ignore[misc]
        if isinstance(f, Filter):
            assert Filter.parse(f.to_json()) == f and Filter.from_text(f.to_text()) == f


@scaled(4)
@given(st.binary(max_size=64) | st.text(ANY_CHAR).map(lambda t: t.encode("utf-8", "surrogatepass")))
def test_any_bytes_parse_or_are_refused(data: bytes) -> None:
    for parse in (Filter.parse, Filter.from_text, Filter.parse_any, Filter.from_dict):
        outcome(lambda parse=parse: parse(data))  # type: ignore[misc]


@scaled(4)
@given(
    TEXT,
    st.sampled_from(["eq", "ne", "lt", "le", "gt", "ge", "starts_with", "ends_with", "contains", "is_in", "not_in"]),
    JSONISH,
)
def test_field_builders_take_anything(name: str, method: str, value: Any) -> None:
    made = outcome(lambda: getattr(field(name), method)(value))
    if isinstance(made, Filter):
        assert Filter.parse(made.to_json()) == made


# -- real properties of filters that parse ---------------------------------------------------


@scaled(2)
@given(FILTERS)
def test_compact_keeps_the_meaning_and_never_grows(doc: dict[str, Any]) -> None:
    f = Filter.from_dict(doc)
    small = f.compact()
    assert small.equivalent(f) and f.equivalent(small)
    assert small.counterexample(f) is None
    assert small.byte_size <= f.byte_size
    assert small.compact() == small  # a fixed point


@scaled(2)
@given(FILTERS)
def test_text_and_json_forms_round_trip(doc: dict[str, Any]) -> None:
    f = Filter.from_dict(doc)
    assert Filter.from_text(f.to_text()) == f
    assert Filter.parse_any(f.to_text()) == f and Filter.parse_any(f.to_json()) == f
    assert Filter.parse(f.to_json()) == f and hash(Filter.parse(f.to_json())) == hash(f)
    assert (~~f).equivalent(f)


# -- records for matches ---------------------------------------------------------------------

RECORD_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), NUMBER, TEXT),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(TEXT, children, max_size=3),
    max_leaves=10,
)
ANY_RECORDS = st.dictionaries(st.sampled_from(["A", "B", "C", "EdgeResponseStatus"]) | TEXT, RECORD_VALUES, max_size=5)


@scaled(3)
@given(FILTERS, ANY_RECORDS)
def test_matches_takes_any_record(doc: dict[str, Any], record: dict[str, Any]) -> None:
    f = Filter.from_dict(doc)
    got = outcome(lambda: f.matches(record))
    assert isinstance(got, (bool, EscpushError)), got
    line = json.dumps(record)  # surrogates escaped, NaN as NaN (not JSON: refused)
    assert isinstance(outcome(lambda: f.matches(line)), (bool, EscpushError))


def finite(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return -(2**63) <= value < 2**64
    if isinstance(value, list):
        return all(finite(v) for v in value)
    if isinstance(value, dict):
        return all(finite(v) for v in value.values())
    return True


@scaled(3)
@given(FILTERS, RECORDS | ANY_RECORDS)
def test_a_record_and_its_json_line_get_the_same_answer(doc: dict[str, Any], record: dict[str, Any]) -> None:
    if not finite(record):
        return  # NaN is not JSON; integers beyond 64 bits are compared as floats in a dict
    f = Filter.from_dict(doc)
    assert f.matches(record) == f.matches(json.dumps(record))


# -- secrets, ids, options, clients, jobs ----------------------------------------------------

# A recognisable prefix, so that a secret is not also some other input by chance.
SECRETS = st.text(ANY_CHAR, max_size=100).map(lambda t: "Zq7" + t)


def never_shown(secret: str, *shown: object) -> None:
    for thing in shown:
        for text in (str(thing), repr(thing)):
            assert secret not in text, (secret, text[:300])
        if isinstance(thing, BaseException):
            assert secret not in repr(thing.args)


@scaled(4)
@given(SECRETS)
def test_an_esc_secret_is_a_cookie_or_refused_without_being_shown(secret: str) -> None:
    got = outcome(lambda: escpush.esc_cookie(secret))
    if isinstance(got, str):
        assert got == f"disable_esc={secret}"
    else:
        never_shown(secret, got)


@scaled(2)
@given(SECRETS, TEXT)
@example("Zq7tok\ud800en", "zone")  # was a UnicodeEncodeError whose repr showed the whole token
@example("Zq7token", "z\udfff")
def test_client_credentials_never_show(secret: str, zone: str) -> None:
    assume(secret not in zone)  # the zone id is shown, as it should be
    for kwargs in (
        {"api_token": secret},
        {"api_key": secret, "email": "a@example.com"},
        {"api_token": "t", "email": secret, "api_key": secret},
    ):
        client = outcome(lambda kwargs=kwargs: Client(**kwargs))  # type: ignore[misc]
        never_shown(secret, client)
        never_shown(secret, outcome(lambda kwargs=kwargs: Client.from_env(**kwargs)))  # type: ignore[misc]
        if isinstance(client, Client):
            scope = outcome(lambda client=client: client.zone(zone))
            never_shown(secret, scope)


@scaled(4)
@given(
    st.text(ANY_CHAR, max_size=40) | st.sampled_from(["fields=A&timestamps=rfc3339", "fields=A,B&CVE-2021-44228=true"])
)
@example("=\x85&")  # found by the long profile: U+0085 is a space to Rust's str::trim
@example("x=a &fields=B")
def test_logpull_options_parse_or_are_refused_and_round_trip(text: str) -> None:
    got = outcome(lambda: LogpullOptions.parse(text))
    if isinstance(got, LogpullOptions):
        assert LogpullOptions.parse(str(got)) == got


@scaled(4)
@given(st.text(ANY_CHAR, max_size=60))
def test_redacting_a_destination_never_raises_or_shows_a_secret_value(text: str) -> None:
    shown = escpush.redact_destination_conf(text)
    assert isinstance(shown, str)
    secret = "Zq7-secret-Zq7"
    assert secret not in escpush.redact_destination_conf(f"s3://bucket/p?region=us&secret-access-key={secret}")


@pytest.fixture(scope="module")
def emulator() -> Any:
    with Emulator() as emu:
        yield emu


JOB_FIELDS = st.dictionaries(
    st.sampled_from(["enabled", "frequency", "kind", "max_upload_bytes", "output_options", "name", "bogus"]) | TEXT,
    JSONISH,
    max_size=3,
)


@settings(PROFILE, max_examples=max(20, PROFILE.max_examples // 2))
@given(
    JOB_FIELDS,
    st.one_of(st.none(), DOCUMENTS, TEXT),
    st.one_of(st.none(), TEXT),
    SECRETS,
    st.integers() | st.sampled_from([0, -1, 2**63, 2**70]),
)
def test_job_calls_raise_only_documented_errors_and_never_show_secrets(
    emulator: Emulator, fields: dict[str, Any], filter: Any, options: Any, secret: str, job_id: int
) -> None:
    logpush = emulator.client().zone("023e105f4ecef8ad9ca31a8372d0c353").logpush
    conf = "s3://bucket/logs?region=us-east-1&secret-access-key=" + secret
    created = outcome(
        lambda: logpush.create_job(
            destination_conf=conf,
            dataset="http_requests",
            filter=filter,
            logpull_options=options,
            ownership_challenge=secret,
            **fields,
        )
    )
    never_shown(secret, created)
    outcome(lambda: logpush.update_job(job_id, **fields))
    if not 1 <= job_id < 2**63:
        assert isinstance(outcome(lambda: logpush.job(job_id)), escpush.InvalidInput)
    planned = outcome(lambda: logpush.apply({"jobs": [{**fields, "dataset": "http_requests"}]}, dry_run=True))
    never_shown(secret, planned)
