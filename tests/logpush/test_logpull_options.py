"""escpush.LogpullOptions: the query-string options of a log-push job."""

from __future__ import annotations

import pytest

from escpush import InvalidInput, LogpullOptions


def test_build_print_parse() -> None:
    o = LogpullOptions(["ClientIP", "EdgeResponseStatus"], timestamps="rfc3339", flags={"CVE-2021-44228": True})
    text = "fields=ClientIP,EdgeResponseStatus&timestamps=rfc3339&CVE-2021-44228=true"
    assert str(o) == text
    assert LogpullOptions.parse(text) == o
    assert LogpullOptions.parse("?" + text) == o
    assert o.fields == ["ClientIP", "EdgeResponseStatus"]
    assert o.timestamps == "rfc3339"
    assert o.flags == [("CVE-2021-44228", True)]
    assert repr(o) == (
        'LogpullOptions(fields=["ClientIP", "EdgeResponseStatus"], timestamps="rfc3339", '
        'flags={"CVE-2021-44228": True})'
    )
    assert eval(repr(o), {"LogpullOptions": LogpullOptions, "True": True}) == o


def test_unknown_options_are_kept_and_reported() -> None:
    o = LogpullOptions.parse("fields=ClientIP&samples=0.1")
    assert str(o) == "fields=ClientIP&samples=0.1"
    assert o.unknown_options == [("samples", "0.1")]
    assert o.warnings == [
        "logpull_options: `samples` is not an option escpush knows; it is sent as given; did you mean `sample`?"
    ]


def test_sample_is_known_kept_and_not_warned() -> None:
    # `sample` is the older sample_rate (log-output-options.mdx, "How to migrate"): read, kept as
    # given, and no warning that escpush does not know it.
    o = LogpullOptions.parse("fields=ClientIP&sample=0.1")
    assert str(o) == "fields=ClientIP&sample=0.1"
    assert o.unknown_options == []
    assert o.warnings == []


@pytest.mark.parametrize(
    ("text", "path", "message"),
    [
        ("fields=A&timestamps=iso", "logpull_options.timestamps", "`iso` is not a timestamp format"),
        ("fields=A&CVE-2021-44228=yes", "logpull_options.CVE-2021-44228", "is a flag"),
        ("fields=A,,B", "logpull_options.fields[1]", "an empty field name"),
        ("fields=A&fields=B", "logpull_options.fields", "given twice"),
        ("fields=A&CVE-2021-44228", "logpull_options.CVE-2021-44228", "has no value"),
    ],
)
def test_bad_options_name_what_and_where(text: str, path: str, message: str) -> None:
    with pytest.raises(InvalidInput) as exc:
        LogpullOptions.parse(text)
    [problem] = exc.value.errors()
    assert problem["path"] == path
    assert message in problem["message"]
    assert message in str(exc.value)


def test_constructor_checks_like_parse() -> None:
    with pytest.raises(InvalidInput, match="not a timestamp format; use unixnano, unix or rfc3339"):
        LogpullOptions(["ClientIP"], timestamps="iso8601")
    with pytest.raises(InvalidInput, match="an empty field name"):
        LogpullOptions(["ClientIP", ""])
