"""Rich display in Jupyter: the HTML behind every ``_repr_html_`` of escpush.

One renderer per concept, all here: a filter as a tree (``Filter``), the problems of a
refused input as a table (``FilterError``, ``InvalidInput``), an ESC status with the secret
masked (``EscStatus``), the counts of a scan (``ScanResult``) and a log-push job with its
credentials masked (``Job``). The classes' ``_repr_html_`` methods call these functions;
the native classes pass what only the Rust core knows (the default filter limits).

Every value that comes from data (field names, filter values, messages, paths, job fields)
goes through :func:`_text`, so a ``<``, ``&`` or quote in it is shown, never interpreted.
The HTML is plain tables and lists with one small style sheet scoped to the class
``escpush``: readable in light and dark themes, and where a notebook viewer strips styles.
What the command line shows too (byte sizes, the job field order, a filter's tree) comes
from :mod:`escpush._format`.
"""

from __future__ import annotations

import html
import re

from . import _breakdown
from ._format import ESC_STATES, condition_parts, group_of, job_items, plural, size, usage, walk

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from ._escpush import EscAssessment, EscStatus, Filter, ScanResult
    from ._job import Job
    from .errors import _WithProblems

# Notebook front ends align table cells right and stripe rows; a job or a scan reads better
# left-aligned. Scoped to .escpush, so nothing else on the page changes. JupyterLab's own
# rules (`.jp-RenderedHTMLCommon td {text-align: right}`, centred tables) win over a style
# sheet in the output wherever theirs is as specific and comes later, so what must hold is
# written on the elements themselves too (`_INLINE`, added by `_box`): an inline style beats
# every selector. A right-aligned `<pre>`, or one in a proportional font (nbconvert's lab
# template has no code font for it), would put the caret under a problem's text off its spot:
# its font is monospace inline too (`monospace,monospace` keeps browsers' monospace size).
_INLINE = {
    "table": "border-collapse:collapse;margin:.25em 0;",
    "th": "text-align:left;vertical-align:top;padding:.1em 1em .1em 0;",
    "td": "text-align:left;vertical-align:top;padding:.1em 1em .1em 0;",
    "pre": "text-align:left;margin:.25em 0;padding:0;white-space:pre;font-family:monospace,monospace;",
}
# The cells of a scan's breakdown tables (groups, time buckets) stay on one line: a time
# (`2026-11-22T00:00:00Z`) or a count broken over two lines reads as two values.
_ONE_LINE = "white-space:nowrap;"
_TAG = re.compile(r"<(table|th|td|pre)>")
_STYLE = (
    "<style>"
    ".escpush table{border-collapse:collapse;margin:.25em 0}"
    ".escpush th,.escpush td{text-align:left;vertical-align:top;padding:.1em 1em .1em 0}"
    ".escpush ul{margin:.25em 0}"
    ".escpush .escpush-over{color:#c62828;font-weight:600}"
    ".escpush .escpush-note{opacity:.7}"
    "</style>"
)

# JupyterLab (MathJax 3) and the classic notebook (MathJax 2) typeset the text of an HTML
# output between two `$` as mathematics: a cost ("$0.10 (external, $0.10 per GB") or a value
# holding `$` would show in italics, its dollars gone. What is inside an element of their
# ignore classes is left as written.
_NO_MATH = "tex2jax_ignore mathjax_ignore"

_BACKTICKED = re.compile(r"`([^`]*)`")


def _text(value: object) -> str:
    """``value`` as text safe inside HTML elements and attribute values."""
    return html.escape(str(value), quote=True)


def _code(value: object) -> str:
    return f"<code>{_text(value)}</code>"


def _message(text: str) -> str:
    """A problem message, escaped, with its `backticked` names set as code; the lines after
    the first (the text and the caret under the spot, for the text form) kept as written."""
    first, _, rest = text.partition("\n")
    shown = _BACKTICKED.sub(r"<code>\1</code>", _text(first))
    return f"{shown}<pre>{_text(rest)}</pre>" if rest else shown


def _box(kind: str, title: str, body: str) -> str:
    """One object's display: ``title`` and ``body`` are HTML already escaped (so every ``<``
    of a value is ``&lt;``, and each tag matched here is one of ours); its tables, cells and
    preformatted text get their alignment inline (see ``_INLINE``)."""
    body = _TAG.sub(lambda m: f'<{m[1]} style="{_INLINE[m[1]]}">', body)
    content = f"<div><strong>{title}</strong></div>{body}"
    return f'<div class="escpush escpush-{kind}">{_STYLE}<div class="{_NO_MATH}">{content}</div></div>'


def _rows(rows: Sequence[tuple[str, str]]) -> str:
    """A two-column table: an escaped heading and already-made HTML per row."""
    cells = "".join(f"<tr><th>{_text(name)}</th><td>{cell}</td></tr>" for name, cell in rows)
    return f"<table><tbody>{cells}</tbody></table>"


# Filter


def _usage(used: int, limit: int, unit: str) -> str:
    text = usage(used, limit, unit)
    if used > limit:
        return f'<span class="escpush-over">{_text(text)}: over the limit</span>'
    return _text(text)


_GROUP_LABELS = {"and": "all of", "or": "any of"}


def _tree(where: Mapping[str, Any]) -> str:
    """``Filter.to_dict()["where"]`` as nested lists: a group as a list item holding the
    list of its children, a condition as one item."""
    parts = ["<ul>"]
    for event, expr, _, _ in walk(where):
        if event == "leaf":
            key, operator, value = condition_parts(expr)
            parts.append(f"<li>{_code(key)} <strong>{_text(operator)}</strong> {_code(value)}</li>")
        elif event == "open":
            group = group_of(expr)
            assert group is not None
            label = _GROUP_LABELS[group[0]]
            parts.append(f'<li><strong>{group[0]}</strong> <span class="escpush-note">({label})</span><ul>')
        else:
            parts.append("</ul></li>")
    parts.append("</ul>")
    return "".join(parts)


def filter_html(f: Filter, max_operators: int, max_bytes: int) -> str:
    """A filter in its text form, as a tree of ``and`` / ``or`` groups and ``key operator
    value`` conditions, with its size against the limits and its canonical JSON."""
    usage = f"{_usage(f.operator_count, max_operators, 'operators')} · {_usage(f.byte_size, max_bytes, 'bytes')}"
    text = f"<div>{_code(f.to_text())}</div>"
    tree = _tree(f.to_dict()["where"])
    canonical = f"<details><summary>canonical JSON</summary>{_code(f.to_json())}</details>"
    return _box("filter", "Filter", f"<div>{usage}</div>{text}{tree}{canonical}")


# FilterError, InvalidInput


def problems_html(err: _WithProblems) -> str:
    """A refused input: every problem as a row of path, code and message."""
    name = type(err).__name__
    problems = err.errors()
    if not problems:
        return _box("problems", _text(name), f"<div>{_message(str(err))}</div>")
    head = "<tr><th>path</th><th>code</th><th>message</th></tr>"
    body = "".join(
        f"<tr><td>{_code(p['path']) if p['path'] else ''}</td><td>{_code(p['code'])}</td>"
        f"<td>{_message(p['message'])}</td></tr>"
        for p in problems
    )
    table = f"<table><thead>{head}</thead><tbody>{body}</tbody></table>"
    return _box("problems", f"{_text(name)}: {plural(len(problems), 'problem')}", table)


# EscStatus


def esc_status_html(status: EscStatus) -> str:
    """An ESC setting: its state explained; the secret only as set or not, never shown."""
    from ._escpush import _ESC_COOKIE_NAME, _MASK

    state = status.state
    words = ESC_STATES.get(state)
    cookie = _code(_ESC_COOKIE_NAME + "=<secret>")
    shown = _code(state) if words is None else f"{_code(state)}: {_text(words.explained).replace('{cookie}', cookie)}"
    rows = [
        ("state", shown),
        ("disabled for every request", "yes" if status.disabled else "no"),
        ("secret", f"{_code(_MASK)} (set, not shown)" if status.secret is not None else "none"),
    ]
    return _box("esc-status", "ESC status", _rows(rows))


# ScanResult


def scan_result_html(result: ScanResult) -> str:
    """The counts of a scan: lines kept (with their share), dropped and malformed, the first
    malformed line's place, bytes read and kept (with their share), the number of inputs,
    time and throughput; and its breakdown tables (``_breakdown.tables``). Everything comes
    from one ``to_dict()``, and every share from one call to core's formatter."""
    data = result.to_dict()
    total, matched, malformed = data["total"], data["matched"], data["malformed"]
    dropped = total - matched - malformed
    counted = [("matched", matched), ("dropped", dropped), ("malformed", malformed)]
    tables, shares = _breakdown.tables(
        data, [*((n, total) for _, n in counted), (data["matched_bytes"], data["bytes"])]
    )
    rows = [("lines", str(total))]
    for (name, n), shown in zip(counted, shares):
        rows.append((name, str(n) if shown is None else _text(f"{n} ({shown})")))
    first = data["first_malformed"]
    if first is not None:
        rows.append(("first malformed", f"{_code(first['source'])} line {first['line']}: {_text(first['reason'])}"))
    rows.append(("read", size(data["bytes"])))
    kept = shares[-1]
    rows.append(("bytes kept", _text(size(data["matched_bytes"]) + ("" if kept is None else f" ({kept})"))))
    if len(data["per_input"]) > 1:
        rows.append(("inputs", str(len(data["per_input"]))))
    seconds = data["seconds"]
    rows.append(("seconds", f"{seconds:.3f}"))
    if seconds > 0:
        rate = f"{size(data['bytes'] / seconds)}/s, {total / seconds:,.0f} lines/s"
        rows.append(("throughput", rate))
    title = f"ScanResult: {matched:,} of {plural(total, 'line')} matched"
    body = _rows(rows)
    for caption, header, cells in tables:
        th, td = (f'<{tag} style="{_INLINE[tag]}{_ONE_LINE}">' for tag in ("th", "td"))
        head = "".join(f"{th}{_text(h)}</th>" for h in header)
        lines = "".join("<tr>" + "".join(f"{td}{_text(c)}</td>" for c in r) + "</tr>" for r in cells)
        body += f"<div><strong>{_text(caption)}</strong></div>"
        body += f"<table><thead><tr>{head}</tr></thead><tbody>{lines}</tbody></table>"
    return _box("scan-result", title, body)


# Job


def _job_value(key: str, value: Any) -> str:
    if key == "filter" and isinstance(value, str):
        from ._escpush import Filter
        from .errors import FilterError

        try:
            return Filter.parse(value)._repr_html_()
        except FilterError:
            return _code(value)
    if isinstance(value, str) and key in ("destination_conf", "logpull_options"):
        return _code(value)
    if isinstance(value, str):
        return _text(value)
    if value is None:
        return '<span class="escpush-note">None</span>'
    return _code(repr(value))


def job_html(job: Job) -> str:
    """A log-push job: its main fields first, the filter as a tree, every credential masked
    (the values of ``job.redacted()``)."""
    shown = job.redacted()
    title = "Log-push job"
    if "id" in shown:
        title += f" {_text(shown['id'])}"
    if shown.get("name"):
        title += f": {_text(shown['name'])}"
    return _box("job", title, _rows([(k, _job_value(k, v)) for k, v in job_items(shown)]))


# EscAssessment


def esc_assessment_html(result: EscAssessment) -> str:
    """An ESC assessment: the verdict, each stage, what ESC does to each URL with its
    replacement, and the way back (NOT RESTORED with the command to run)."""
    data = result.to_dict()
    if data["ok"]:
        verdict = "every stage passed"
    elif data["error"]:
        verdict = f"stopped: {_text(data['error'])}"
    else:
        verdict = "a stage failed"
    stages = [
        (
            stage["name"],
            _code(stage["outcome"])
            + (f" {_message(stage['problem'])}" if stage.get("problem") else "")
            + "".join(
                f"<br>{_code(url['url'])}: {_message(url['problem'])}" for url in stage["urls"] if url["problem"]
            ),
        )
        for stage in data["stages"]
    ]
    body = f"<p>{verdict}</p>" + _rows(stages)
    if data["differences"]:
        head = "<tr><th>URL</th><th>what</th><th>with ESC</th><th>without ESC</th><th>replacement</th></tr>"
        rows = "".join(
            "<tr>"
            f"<td>{_code(d['url'])}</td>"
            f"<td>{_text(d['what'])}{' ' + _code(d['name']) if d['name'] else ''}</td>"
            f"<td>{_code(d['with_esc'])}</td><td>{_code(d['without_esc'])}</td>"
            f"<td>{_text(d['replacement']['replacement'])}</td>"
            "</tr>"
            for d in data["differences"]
        )
        body += f"<table>{head}{rows}</table>"
    if data["restored"]:
        body += "<p>restored: every scope is as it was found"
        body += ", except those kept disabled as asked</p>" if data["kept_disabled"] else "</p>"
    for item in data["not_restored"]:
        body += (
            f"<p class='escpush-over'>NOT RESTORED: {_text(item['scope'])} {_code(item['id'])}: "
            f"{_text(item['error'])}; run {_code(item['command'])}</p>"
        )
    for scope in data["secret_left"]:
        body += (
            f"<p class='escpush-note'>the test secret set on {_text(scope['scope'])} {_code(scope['id'])} "
            "stays: no API call removes a secret</p>"
        )
    return _box("esc-assessment", "ESC assessment", body)
