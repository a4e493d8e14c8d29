"""Every Rust error variant (escpush-core, escpush-http, escpush-scan) reaches Python as its
own exception class, through the binding's one mapping.

The binding lists every variant (``_error_kinds()``: escpush-http's list is kept complete by
a Rust test that matches without a wildcard) and raises a sample of each
(``_raise_error(kind)``). A variant added without a class here fails this test. Both are test
hooks of the native module (the cargo feature ``test-hooks``: on under ``make develop``, off in
wheels).
"""

from __future__ import annotations

import os
import pickle

import pytest

from escpush import (
    ApiError,
    EscpushError,
    FilterError,
    InvalidInput,
    RateLimitError,
    ScanError,
    TransportError,
    _escpush,
)

# The hooks are a cargo feature of the native module (`test-hooks`), which `make develop`
# turns on and wheels leave off. Under `make test` or CI their absence fails the run
# (tests/package/test_package.py says so too); elsewhere (a wheel installed) this module is skipped.
if not hasattr(_escpush, "_raise_error"):
    if os.environ.get("CI") or os.environ.get("ESCPUSH_REQUIRE_ENGINES"):
        raise RuntimeError("the native module was built without its test hooks: `make develop` builds them")
    pytest.skip("the native module was built without the test-hooks feature", allow_module_level=True)

_error_kinds = _escpush._error_kinds
_raise_error = _escpush._raise_error

EXPECTED: dict[str, type[EscpushError]] = {
    "core.Filter": FilterError,
    "core.UnknownDataset": InvalidInput,
    "core.Invalid": InvalidInput,
    "core.InvalidInput": InvalidInput,
    "core.Api": RateLimitError,  # the sample answers 429; test_esc covers each status class
    "core.MalformedResponse": TransportError,
    "http.Core": InvalidInput,  # wraps a core error, mapped as core's
    "http.RetryLater": RateLimitError,
    "http.OutcomeUnknown": TransportError,
    "http.ResponseTooLarge": TransportError,
    "http.Timeout": TransportError,
    "http.Transport": TransportError,
    "http.PlanStopped": RateLimitError,  # the class of the write that failed (the sample's answers 429)
    "scan.Open": ScanError,
    "scan.Read": ScanError,
    "scan.Gzip": ScanError,
    "scan.Malformed": ScanError,
    "scan.Transform": ScanError,  # a transformer's run failed on a line
    "scan.OutputIsInput": InvalidInput,  # a mistake in the arguments, not a failed read
    "scan.Write": ScanError,
    "scan.Select": ScanError,
    "scan.Cancelled": ScanError,
    "scan.Thread": ScanError,
}


def test_every_variant_has_an_expected_class() -> None:
    assert sorted(_error_kinds()) == sorted(EXPECTED)


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_each_variant_raises_its_own_class(kind: str) -> None:
    with pytest.raises(EscpushError) as exc:
        _raise_error(kind)
    assert type(exc.value) is EXPECTED[kind], f"{kind}: {type(exc.value).__name__}: {exc.value}"
    assert str(exc.value)
    again = pickle.loads(pickle.dumps(exc.value))
    assert type(again) is type(exc.value) and str(again) == str(exc.value)


def test_structured_fields_arrive() -> None:
    with pytest.raises(FilterError) as filt:
        _raise_error("core.Filter")
    assert filt.value.errors() and {"path", "code", "message"} <= set(filt.value.errors()[0])
    with pytest.raises(InvalidInput) as invalid:
        _raise_error("core.Invalid")
    assert invalid.value.errors()
    for kind in ["core.Api", "http.RetryLater"]:
        with pytest.raises(ApiError) as api:
            _raise_error(kind)
        assert api.value.status == 429 and api.value.errors == [{"code": 10429, "message": "slow down"}]
    with pytest.raises(RateLimitError, match="retry in 60 s"):
        _raise_error("http.RetryLater")
    with pytest.raises(ScanError) as scan:
        _raise_error("scan.Malformed")
    assert (scan.value.path, scan.value.line) == ("in.ndjson", 3)
    with pytest.raises(TransportError, match="may have taken effect"):
        _raise_error("http.OutcomeUnknown")
    with pytest.raises(RateLimitError, match=r"slow down; stopped at creating `b`; before it, apply created") as stop:
        _raise_error("http.PlanStopped")
    assert stop.value.status == 429 and stop.value.errors == [{"code": 10429, "message": "slow down"}]


def test_an_unknown_kind_is_refused() -> None:
    for kind in ["core.Nope", "nope", "http."]:
        with pytest.raises(ValueError, match="no sample error"):
            _raise_error(kind)
