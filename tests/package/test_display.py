"""Rich display in Jupyter (`_repr_html_`) and the plain reprs: content, escaping, masking.

Every HTML output is parsed: its tags must be balanced and among the few the renderers
write, so a `<script>` or `<b>` coming from data shows up here as a stray tag.
"""

from __future__ import annotations

import copy
import json
import pickle
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from IPython.core.formatters import DisplayFormatter

import escpush
from escpush import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_OPERATORS,
    EscStatus,
    Filter,
    FilterError,
    InvalidInput,
    Job,
    LogpullOptions,
    ScanResult,
    field,
)
from escpush._display import _INLINE, _ONE_LINE
from escpush._format import JOB_FIELD_ORDER, percent
from escpush.testing import Emulator

ZONE = "023e105f4ecef8ad9ca31a8372d0c353"
S3 = "s3://bucket/logs?region=us-east-1"
EVIL = "<script>alert('x')</script>&amp;\""
SECRET = "s3cr3t-never-shown"
TAGS = {
    "div", "strong", "span", "code", "ul", "li", "details", "summary", "style",
    "table", "thead", "tbody", "tr", "th", "td",
}  # fmt: skip
BLOCKS = {"div", "ul", "li", "details", "summary", "table", "tr", "th", "td"}


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.text: list[str] = []
        self.in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        assert tag in TAGS, f"unexpected tag <{tag}>"
        if tag in BLOCKS:
            self.text.append(" ")
        self.open.append(tag)
        self.in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open[-1] == tag, f"</{tag}> closes {self.open}"
        self.open.pop()
        self.in_style = False
        if tag in BLOCKS:
            self.text.append(" ")

    def handle_data(self, data: str) -> None:
        if not self.in_style:
            self.text.append(data)


def text_of(markup: str) -> str:
    """The text a browser shows for `markup` (one space between blocks and cells), after
    checking that the markup is well formed."""
    reader = _Reader()
    reader.feed(markup)
    reader.close()
    assert reader.open == [], f"unclosed {reader.open}"
    return " ".join("".join(reader.text).split())


def html_of(obj: Any) -> str:
    """What Jupyter shows: the text/html of IPython's display formatter."""
    data, _ = DisplayFormatter().format(obj)
    assert "text/html" in data, f"{type(obj).__name__} has no HTML display"
    return data["text/html"]


# Filter


def test_filter_shows_a_tree_and_its_size_against_the_limits() -> None:
    f = (field("ClientRequestHost").ends_with(".example.com") & (field("EdgeResponseStatus") >= 500)) | field(
        "ClientCountry"
    ).is_in(["cn", "ru"])
    shown = text_of(html_of(f))
    limits = f"{f.operator_count} of {DEFAULT_MAX_OPERATORS} operators · {f.byte_size} of {DEFAULT_MAX_BYTES} bytes"
    assert limits in shown
    assert "or (any of) and (all of)" in shown
    assert 'ClientRequestHost endsWith ".example.com"' in shown
    assert 'EdgeResponseStatus geq "500"' in shown
    assert 'ClientCountry in ["cn", "ru"]' in shown
    assert f.to_json() in shown, "the canonical JSON, to copy"
    assert "over the limit" not in shown


class _Items(HTMLParser):
    """The list items of a filter's tree: (depth, text of the item's own line)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0
        self.items: list[list[Any]] = []
        self.open: list[list[Any]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "ul":
            self.depth += 1
            if self.open:
                self.open[-1][2] = True  # its own line is over
        elif tag == "li":
            item = [self.depth, "", False]
            self.items.append(item)
            self.open.append(item)

    def handle_endtag(self, tag: str) -> None:
        if tag == "ul":
            self.depth -= 1
        elif tag == "li":
            self.open.pop()

    def handle_data(self, data: str) -> None:
        if self.open and not self.open[-1][2]:
            self.open[-1][1] += data


def tree_items(f: Filter) -> list[tuple[int, str]]:
    reader = _Items()
    reader.feed(f._repr_html_())
    return [(depth, " ".join(text.split())) for depth, text, _ in reader.items]


def test_filter_html_has_an_item_per_condition_and_group_nested_as_the_filter() -> None:
    a, b, c = ({"key": k, "operator": "eq", "value": 1} for k in "ABC")
    f = Filter.from_dict({"where": {"and": [a, {"or": [b, c]}]}})
    assert tree_items(f) == [
        (1, "and (all of)"),
        (2, 'A eq "1"'),
        (2, "or (any of)"),
        (3, 'B eq "1"'),
        (3, 'C eq "1"'),
    ]
    # Any filter: one item per condition and per group, in the order of to_dict().
    wide = Filter.from_dict({"where": {"or": [{"key": f"K{i}", "operator": "eq", "value": i} for i in range(25)]}})
    assert [text for _, text in tree_items(wide)[1:]] == [f'K{i} eq "{i}"' for i in range(25)]
    assert {depth for depth, _ in tree_items(wide)[1:]} == {2}


def test_filter_over_the_limits_says_so() -> None:
    big = field("ClientIP").is_in([f"10.0.0.{i}" for i in range(120)]) | field("ClientCountry").is_in(["cn"])
    many = Filter.from_dict({"where": {"or": [{"key": f"F{i}", "operator": "eq", "value": i} for i in range(31)]}})
    assert big.byte_size > DEFAULT_MAX_BYTES and many.operator_count > DEFAULT_MAX_OPERATORS
    assert f"{big.byte_size} of {DEFAULT_MAX_BYTES} bytes: over the limit" in text_of(big._repr_html_())
    assert f"{many.operator_count} of {DEFAULT_MAX_OPERATORS} operators: over the limit" in text_of(many._repr_html_())


def test_filter_html_escapes_keys_and_values() -> None:
    f = (field("Evil<Key>") == EVIL) & field("ClientCountry").is_in(["<b>", "&"])
    markup = f._repr_html_()
    assert "<script>" not in markup and "<b>" not in markup
    shown = text_of(markup)  # no stray tag
    assert "Evil<Key> eq " + json.dumps(EVIL) in shown
    assert 'ClientCountry in ["<b>", "&"]' in shown


def test_filter_repr_stays_a_constructor() -> None:
    f = field("A") == "x"
    assert repr(f) == """Filter('{"where":{"key":"A","operator":"eq","value":"x"}}')"""
    assert eval(repr(f), {"Filter": Filter}) == f


# FilterError, InvalidInput


def test_filter_error_is_a_table_of_path_code_message() -> None:
    with pytest.raises(FilterError) as exc:
        Filter.parse(
            '{"where": {"and": [{"key": "ClientRequestHots", "operator": "gte", "value": "500"}, {"key": "X<"}]}}'
        )
    markup = html_of(exc.value)
    shown = text_of(markup)
    assert shown.startswith("FilterError: 3 problems path code message")
    for p in exc.value.errors():
        assert f"{p['path']} {p['code']} " in shown
    assert "unknown operator gte; did you mean geq?" in shown
    assert "<code>gte</code>" in markup, "backticked names are set as code"
    assert markup.count("<tr>") == 1 + 3


def test_problem_messages_are_escaped() -> None:
    err = FilterError("x", [{"path": "where.<p>", "code": "c&d", "message": f"`{EVIL}` is wrong"}])
    markup = err._repr_html_()
    assert "<script>" not in markup
    shown = text_of(markup)
    assert f"where.<p> c&d {EVIL} is wrong" in shown


def test_invalid_input_with_and_without_problems(escpush_emulator: Emulator) -> None:
    zone = escpush_emulator.client().zone(ZONE)
    with pytest.raises(InvalidInput) as exc:
        zone.logpush.create_job(destination_conf="s3://b", dataset="http_requests", logpull_options="fields=Nope")
    shown = text_of(html_of(exc.value))
    assert shown.startswith("InvalidInput: 2 problems")
    assert "destination_conf invalid_destination" in shown
    assert "logpull_options.fields[0] unknown_field Nope is not a field of http_requests" in shown
    with pytest.raises(InvalidInput) as single:
        escpush.esc_cookie("has space")
    assert single.value.errors() == []
    assert text_of(html_of(single.value)) == "InvalidInput " + " ".join(str(single.value).replace("`", "").split())


# EscStatus


def test_esc_status_never_shows_the_secret(escpush_emulator: Emulator) -> None:
    esc = escpush_emulator.client().zone(ZONE).esc
    enabled = esc.status()
    assert "state enabled: ESC runs on every request" in text_of(html_of(enabled))
    assert "secret none" in text_of(html_of(enabled))
    esc.set_secret(SECRET)
    status = esc.status()
    assert status.secret == SECRET
    for shown in (repr(status), str(status), html_of(status), DisplayFormatter().format(status)[0]["text/plain"]):
        assert SECRET not in shown
    assert repr(status) == "EscStatus(state='secret', disabled=False, secret='***')"
    shown = text_of(html_of(status))
    assert "state secret: ESC is off only for requests carrying the cookie disable_esc=<secret>" in shown
    assert "disabled for every request no" in shown
    assert "secret *** (set, not shown)" in shown
    esc.disable()
    both = esc.status()
    assert isinstance(both, EscStatus)
    assert "state disabled: ESC is off for every request of the scope" in text_of(both._repr_html_())
    assert "disabled for every request yes" in text_of(both._repr_html_())
    assert SECRET not in both._repr_html_()


# ScanResult


def test_scan_result_counts_shares_and_throughput() -> None:
    result = ScanResult(1000, 250, 10, 3 * 1024 * 1024, 0.5, ("logs/a<1>.ndjson", 42, "byte 7: <unexpected> & more"))
    shown = text_of(html_of(result))
    assert shown.startswith("ScanResult: 250 of 1,000 lines matched")
    assert "lines 1000" in shown
    assert "matched 250 (25.0%)" in shown
    assert "dropped 740 (74.0%)" in shown
    assert "malformed 10 (1.0%)" in shown
    assert "first malformed logs/a<1>.ndjson line 42: byte 7: <unexpected> & more" in shown
    assert "read 3.0 MiB" in shown
    assert "seconds 0.500" in shown
    assert "throughput 6.0 MiB/s, 2,000 lines/s" in shown


def test_scan_result_shows_small_shares_as_small() -> None:
    # Core's formatter (the summary's): a small share with three decimals, not "< 0.1%".
    shown = text_of(ScanResult(20_000, 19_000, 2)._repr_html_())
    assert "malformed 2 (0.010%)" in shown and "matched 19000 (95.0%)" in shown


def test_scan_result_of_nothing() -> None:
    shown = text_of(ScanResult(0, 0)._repr_html_())
    assert "matched 0 dropped 0 malformed 0" in shown
    assert "first malformed" not in shown and "throughput" not in shown
    assert "read 0 bytes" in shown


def test_a_real_scan_displays(tmp_path: Any) -> None:
    logs = tmp_path / "x.ndjson"
    logs.write_text('{"EdgeResponseStatus": 503}\n{"EdgeResponseStatus": 200}\n{"EdgeResponseStatus":\n')
    result = (field("EdgeResponseStatus") >= 500).scan(logs)
    shown = text_of(html_of(result))
    assert "matched 1 (33.3%)" in shown
    assert f"first malformed {logs} line 3" in shown


# Job


def test_jobs_are_job_dicts_with_masked_display(escpush_emulator: Emulator) -> None:
    zone = escpush_emulator.client().zone(ZONE)
    conf = f"r2://bucket/logs?account-id=acc&access-key-id=AKIA&secret-access-key={SECRET}"
    f = (field("EdgeResponseStatus") >= 500) & field("ClientRequestHost").ends_with(".example.com")
    job = zone.logpush.create_job(
        destination_conf=conf,
        dataset="http_requests",
        name="errors",
        filter=f,
        logpull_options=LogpullOptions(["ClientIP"], timestamps="rfc3339"),
        enabled=True,
    )
    assert type(job) is Job and isinstance(job, dict)
    masked = "r2://bucket/logs?account-id=***&access-key-id=***&secret-access-key=***"
    assert job["destination_conf"] == masked, "the dict holds no credential"
    assert job.reveal()["destination_conf"] == conf, "reveal() gives what the API stored"
    assert zone.logpush.job(job["id"]) == job and type(zone.logpush.job(job["id"])) is Job
    assert all(type(j) is Job for j in zone.logpush.jobs())
    assert job.redacted()["destination_conf"] == masked
    # A name from elsewhere (a job made before the schema's pattern), and a challenge set on
    # the dict (no record holds one), are shown escaped and masked.
    job["name"] = "<b>errors</b>"
    job["ownership_challenge"] = f"{SECRET}-challenge"
    assert job.redacted()["ownership_challenge"] == "***"
    assert type(job.redacted()) is dict
    plain = DisplayFormatter().format(job)[0]["text/plain"]
    for shown in (repr(job), str(job), repr([job]), plain, html_of(job)):
        assert SECRET not in shown and "AKIA" not in shown
    assert repr(job).startswith("Job({") and masked in repr(job)
    markup = html_of(job)
    assert "<b>" not in markup
    shown = text_of(markup)
    assert shown.startswith(f"Log-push job {job['id']}: <b>errors</b>")
    # The main fields first, in the order the command line shows them too.
    assert f"id {job['id']} name <b>errors</b> dataset http_requests destination_conf {masked} enabled True" in shown
    th = f'<th style="{_INLINE["th"]}">'
    heads = [markup.index(f"{th}{k}</th>") for k in JOB_FIELD_ORDER if k in job and k != "ownership_challenge"]
    assert heads == sorted(heads) and markup.count(th) == len(job)
    assert "logpull_options fields=ClientIP&timestamps=rfc3339" in shown
    assert f"filter Filter 2 of {DEFAULT_MAX_OPERATORS} operators" in shown
    assert 'EdgeResponseStatus geq "500"' in shown
    assert "ownership_challenge ***" in shown


def test_job_is_a_dict() -> None:
    data = {"id": 7, "dataset": "http_requests", "destination_conf": S3, "filter": None, "enabled": False}
    job = Job(data)
    assert job == data and data == job
    assert job["id"] == 7 and job.get("name") is None and list(job) == list(data)
    assert json.loads(json.dumps(job)) == data
    job["name"] = "renamed"
    assert job["name"] == "renamed"
    assert copy.copy(job) == job and type(copy.copy(job)) is Job
    assert copy.deepcopy(job) == job and type(copy.deepcopy(job)) is Job
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(job, protocol=protocol))
        assert back == job and type(back) is Job, protocol
    assert Job.__module__ == "escpush" and escpush.Job is Job
    with pytest.raises(AttributeError):
        job.extra = 1  # type: ignore[attr-defined]
    assert "filter None" in text_of(job._repr_html_())


def test_a_job_holds_no_credential_in_any_view_and_reveals_them_when_asked() -> None:
    conf = "s3://bucket/logs?region=us-east-1&secret-access-key=KEY-1"
    masked = "s3://bucket/logs?region=us-east-1&secret-access-key=***"
    job = Job({"id": 1, "destination_conf": conf, "ownership_challenge": "TOKEN-1"}, name="j")
    assert job == {"id": 1, "destination_conf": masked, "ownership_challenge": "***", "name": "j"}
    real = {"id": 1, "destination_conf": conf, "ownership_challenge": "TOKEN-1", "name": "j"}
    assert job.reveal() == real and type(job.reveal()) is dict
    views = [json.dumps(job), repr(dict(job)), repr(list(job.items())), repr(list(job.values())), repr(job.copy())]
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        views.append(pickle.dumps(job, protocol=protocol).decode("latin-1"))
        back = pickle.loads(pickle.dumps(job, protocol=protocol))
        assert back == job and back.reveal()["destination_conf"] == masked, "a pickle carries no credential"
    for shown in views:
        assert "KEY-1" not in shown and "TOKEN-1" not in shown, shown
    assert copy.copy(job).reveal() == real and copy.deepcopy(job).reveal() == real
    # Two jobs whose masked items agree differ when the credentials they hold do (a rotated key).
    rotated = Job({**real, "destination_conf": conf.replace("KEY-1", "KEY-9")})
    assert rotated != job and not rotated == job and dict(rotated) == dict(job)
    assert Job(real) == job
    # Values set on a job are masked too, however they are set.
    job["destination_conf"] = conf.replace("KEY-1", "KEY-2")
    job.update(ownership_challenge="TOKEN-2")
    job |= {"other": conf.replace("KEY-1", "KEY-3")}  # not a secret field: kept as given
    assert job["destination_conf"] == masked and job["ownership_challenge"] == "***"
    assert job.reveal()["destination_conf"].endswith("KEY-2") and job.reveal()["ownership_challenge"] == "TOKEN-2"
    assert "KEY-2" not in json.dumps(job) and "TOKEN-2" not in json.dumps(job)
    del job["ownership_challenge"]
    assert "ownership_challenge" not in job.reveal()
    fresh = Job()
    assert fresh.setdefault("destination_conf", conf) == masked and fresh.reveal()["destination_conf"] == conf


def test_job_display_survives_odd_records() -> None:
    assert text_of(Job()._repr_html_()) == "Log-push job"
    odd = Job({"id": "<1>", "destination_conf": 42, "filter": "{not json", "output_options": {"a": "<b>"}})
    assert odd.redacted()["destination_conf"] == "***"
    shown = text_of(odd._repr_html_())
    assert "Log-push job <1>" in shown
    assert "filter {not json" in shown
    assert "output_options {'a': '<b>'}" in shown
    assert Job({"destination_conf": "ftp://user:pw@host/x"}).redacted()["destination_conf"] == "***"


@pytest.mark.parametrize(
    ("conf", "shown"),
    [
        (S3, S3),
        (
            "s3://bucket/logs?region=us-east-1&access-key-id=K&secret-access-key=S",
            f"{S3}&access-key-id=***&secret-access-key=***",
        ),
        (
            "datadog://http-intake.logs.datadoghq.com/v1/input?header_DD-API-KEY=KEY&ddsource=cloudflare",
            "datadog://http-intake.logs.datadoghq.com/v1/input?header_DD-API-KEY=***&ddsource=cloudflare",
        ),
        (
            "sumo://endpoint1.collection.sumologic.com/receiver/v1/http/CODE",
            "sumo://endpoint1.collection.sumologic.com/***",
        ),
        (
            "https://user:PW@logs.example.com/in?header_Authorization=Basic%20X",
            "https://***@logs.example.com/in?header_Authorization=***",
        ),
        ("not a destination", "***"),
    ],
)
def test_destinations_are_masked_as_the_core_masks_them(conf: str, shown: str) -> None:
    assert escpush.redact_destination_conf(conf) == shown
    assert Job({"destination_conf": conf}).redacted()["destination_conf"] == shown


# The tree both the display and `escpush filter explain` draw (escpush._format)


def test_trees_of_any_depth_are_drawn_without_recursion() -> None:
    from escpush._display import _tree
    from escpush._format import tree_lines

    depth = 5 * sys.getrecursionlimit()
    where: dict[str, Any] = {"key": "A", "operator": "eq", "value": 1}
    for _ in range(depth):
        where = {"and": [where]}
    lines = tree_lines(where, ascii_only=True)
    assert len(lines) == depth + 1
    assert lines[0] == "and (1)" and lines[-1] == " " * 3 * (depth - 1) + "`- A eq 1"
    markup = _tree(where)
    assert markup.count("<li>") == depth + 1 and markup.count("<ul>") == markup.count("</ul>") == depth + 1


def test_scan_result_shows_bytes_kept_and_inputs(tmp_path: Path) -> None:
    for i in range(2):
        (tmp_path / f"part{i}.ndjson").write_text('{"EdgeResponseStatus": 503}\n{"EdgeResponseStatus": 200}\n')
    whole = (field("EdgeResponseStatus") >= 500).scan(tmp_path)
    html = whole._repr_html_()
    assert "bytes kept" in html and f"({percent(whole.matched_bytes, whole.bytes)})" in html and ">2<" in html
    (tmp_path / "empty.ndjson").write_text("")
    nothing = (field("EdgeResponseStatus") >= 500).scan(tmp_path / "empty.ndjson")
    assert nothing.byte_share is None and "bytes kept" in nothing._repr_html_()


class _Tags(HTMLParser):
    """Every start tag with its attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def test_alignment_is_inline_so_that_jupyterlab_styles_cannot_override_it(tmp_path: Path) -> None:
    """JupyterLab right-aligns `.jp-RenderedHTMLCommon td` and centres tables; a style sheet in
    the output does not win over it (as specific, earlier or later depending on the page), an
    inline style does. Every table, cell and <pre> of every display carries its alignment."""
    logs = tmp_path / "logs.ndjson"
    logs.write_text('{"EdgeResponseStatus": 503, "ClientCountry": "cn", "EdgeStartTimestamp": 1795305630}\n')
    result = (field("EdgeResponseStatus") >= 500).scan(logs, group_by="ClientCountry", every="1h")
    try:
        Filter.from_text("EdgeResponseStatus >== 500")
    except FilterError as err:
        text_error = err
    shown = [
        result._repr_html_(),
        text_error._repr_html_(),
        (field("A") == 1)._repr_html_(),
        escpush.Job({"id": 1, "name": "x", "filter": '{"where":{"key":"A","operator":"eq","value":1}}'})._repr_html_(),
    ]
    seen = set()
    for markup in shown:
        parser = _Tags()
        parser.feed(markup)
        for tag, attrs in parser.tags:
            if tag in ("table", "td", "th", "pre"):
                seen.add(tag)
                # A breakdown table's cells also stay on one line (test_notebook_html.py).
                assert attrs.get("style") in (_INLINE[tag], _INLINE[tag] + _ONE_LINE), (tag, markup)
                if tag != "table":
                    assert "text-align:left" in (attrs.get("style") or "")
    assert seen == {"table", "td", "th", "pre"}


def test_dollars_in_a_display_are_never_typeset_as_mathematics(tmp_path: Path) -> None:
    """JupyterLab (MathJax 3) and the classic notebook (MathJax 2) typeset the text of HTML
    outputs between two `$`: a cost, "$0.10 (external, $0.10 per GB", showed as italic
    mathematics in JupyterLab. Every display's content sits inside an element of both
    MathJax's ignore classes; the outer element keeps its class alone (notebooks and
    tests find a display by it)."""
    logs = tmp_path / "logs.ndjson"
    logs.write_text('{"EdgeResponseStatus": 503, "ClientRequestPath": "/$a/$b", "EdgeStartTimestamp": 1795305630}\n')
    job = {"dataset": "http_requests", "destination_conf": S3, "output_options": {"field_names": ["ClientRequestPath"]}}
    shown = [
        escpush.preview_job(job, logs, group_by="ClientRequestPath")._repr_html_(),
        (field("ClientRequestPath") == "/$a/$b").scan(logs, group_by="ClientRequestPath")._repr_html_(),
        (field("ClientRequestPath") == "/$a/$b")._repr_html_(),
        escpush.Job({"id": 1, "filter": '{"where":{"key":"A","operator":"eq","value":"$1$"}}'})._repr_html_(),
    ]
    for markup in shown:
        outer, _, rest = markup.partition(">")
        assert outer.startswith('<div class="escpush escpush-') and outer.endswith('"'), outer
        assert "$" in rest
        ignored = rest.index('<div class="tex2jax_ignore mathjax_ignore">')
        assert "$" not in rest[:ignored], markup
