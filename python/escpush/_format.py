"""Text formatting shared by the command line (:mod:`escpush.cli`) and the Jupyter display
(:mod:`escpush._display`), so that both show the same thing the same way.

- byte sizes and rates (:func:`size`), counts with their noun (:func:`plural`), a use
  against its limit (:func:`usage`) and a share of a count (:func:`percent`, and
  :func:`percents` for a table's shares in one call: core's one formatter, which
  ``ScanResult.summary`` uses too);
- a message made safe for a terminal (:func:`printable`);
- the order in which a log-push job's fields are shown (:func:`job_items`);
- what each ESC state says (:data:`ESC_STATES`);
- a filter's ``where`` as a tree: its groups and conditions (:func:`group_of`,
  :func:`condition_parts`, :func:`walk`) and the text tree of ``escpush filter explain``
  (:func:`tree_lines`). The walk is iterative, so a deep filter does not exhaust Python's
  recursion limit.

Only the standard library's :mod:`json` is imported, and only when a value is printed; the
job field order is core's (the native module's ``_JOB_FIELDS``).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence
    from typing import Any

__all__ = [
    "ESC_STATES",
    "JOB_FIELD_ORDER",
    "condition_parts",
    "group_of",
    "job_items",
    "percent",
    "percents",
    "plural",
    "printable",
    "size",
    "tree_lines",
    "usage",
    "walk",
]


def size(n: float) -> str:
    """A number of bytes for people, in binary units: ``512 bytes``, ``1.5 KiB``, ``3.0 MiB``;
    add ``/s`` for a rate."""
    value = float(n)
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{value:.0f} bytes" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")  # pragma: no cover


def percent(part: int, whole: int) -> str | None:
    """``part`` of ``whole`` as a percentage (``23.1%``, ``0.012%``, ``< 0.001%``; never ``0.0%``
    for a part that is not nothing, nor ``100.0%`` for one that is not all), or None when
    ``whole`` is 0: escpush-core's formatter, the one every share printed goes through."""
    return percents([(part, whole)])[0]


def percents(pairs: Sequence[tuple[int, int]]) -> list[str | None]:
    """:func:`percent` of each pair of part and whole, in one call to core's formatter (a
    table's shares at once, not one call into the native module per cell); none for none."""
    if not pairs:
        return []
    from . import _escpush

    return _escpush._percents(pairs)


def plural(n: int, word: str) -> str:
    """``1 problem``, ``2 problems``, ``10,000 groups``."""
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def usage(used: int, limit: int, unit: str) -> str:
    """``3 of 30 operators``."""
    return f"{used} of {limit} {unit}"


def printable(text: str) -> str:
    """``text`` with every character that is not printable written as its escape, as core
    writes one in its messages (its ``shown`` module): ``\\r``, ``\\u001b``, a surrogate
    pair beyond U+FFFF; line feeds and tabs stay. Printable is ``str.isprintable``, the
    same set as the Rust ``char::escape_debug`` core reads it from (all but the categories
    Cc, Cf, Cs, Co, Cn, Zl, Zp and Zs other than the space). For what the command line
    prints about input (file names, option values, the API's messages): no control
    character reaches the terminal. A lone surrogate (an argument that was not UTF-8) is
    escaped too."""
    if text.isprintable():
        return text
    out = []
    for c in text:
        if c.isprintable() or c in "\n\t":
            out.append(c)
        elif c == "\r":
            out.append("\\r")
        elif ord(c) > 0xFFFF:
            high, low = divmod(ord(c) - 0x10000, 0x400)
            out.append(f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}")
        else:
            out.append(f"\\u{ord(c):04x}")
    return "".join(out)


def printable_line(value: object) -> str:
    """``value`` as text that stays on its line when it reaches a terminal (a plan's values):
    :func:`printable`, with line breaks and tabs escaped too, so that a value cannot start a
    line of its own."""
    return printable(str(value)).replace("\n", "\\n").replace("\t", "\\t")


class EscWords:
    """What an ESC state says: ``line``, the command line's status line (``escpush esc
    status``); ``explained``, the notebook display's explanation, where ``{cookie}`` stands
    for the cookie a test request carries."""

    __slots__ = ("explained", "line")

    def __init__(self, line: str, explained: str) -> None:
        self.line = line
        self.explained = explained


# What each ESC state says, by its name (``EscStatus.state``, core's ``EscState``): the one
# table of the words the command line and the notebook display (``_display``) show.
ESC_STATES: dict[str, EscWords] = {
    "enabled": EscWords("ESC enabled", "ESC runs on every request"),
    "disabled": EscWords("ESC disabled for every request", "ESC is off for every request of the scope"),
    "secret": EscWords("ESC enabled", "ESC is off only for requests carrying the cookie {cookie}"),
}


def _job_field_order() -> tuple[str, ...]:
    from ._escpush import _JOB_FIELDS

    return tuple(f["name"] for f in _JOB_FIELDS)


# A log-push job's fields, in the order they are shown: core's job field table's order.
# Fields the table does not know follow, in the job's order.
JOB_FIELD_ORDER = _job_field_order()


def job_items(job: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The fields of a job in display order: :data:`JOB_FIELD_ORDER` first."""
    first = [k for k in JOB_FIELD_ORDER if k in job]
    return [(k, job[k]) for k in first] + [(k, v) for k, v in job.items() if k not in JOB_FIELD_ORDER]


# A filter's tree


def group_of(expr: Mapping[str, Any]) -> tuple[str, list[Mapping[str, Any]]] | None:
    """``("and", children)`` or ``("or", children)`` for a group; None for a condition."""
    for group in ("and", "or"):
        if group in expr:
            return group, list(expr[group])
    return None


def condition_parts(expr: Mapping[str, Any]) -> tuple[str, str, str]:
    """A condition's key, operator, and value as JSON text."""
    import json

    return str(expr["key"]), str(expr["operator"]), json.dumps(expr["value"], ensure_ascii=False)


def walk(where: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any], int, bool]]:
    """The expressions of ``where`` depth first, each as ``(event, expr, depth, last)``:
    ``"open"``/``"close"`` around a group's children, ``"leaf"`` for a condition; ``last``
    says whether it is the last child of its group."""
    stack: list[tuple[Mapping[str, Any], int, bool, bool]] = [(where, 0, True, False)]
    while stack:
        expr, depth, last, closing = stack.pop()
        group = group_of(expr)
        if group is None:
            yield "leaf", expr, depth, last
            continue
        if closing:
            yield "close", expr, depth, last
            continue
        yield "open", expr, depth, last
        stack.append((expr, depth, last, True))
        children = group[1]
        for i in reversed(range(len(children))):
            stack.append((children[i], depth + 1, i == len(children) - 1, False))


def tree_lines(where: Mapping[str, Any], ascii_only: bool) -> list[str]:
    """``where`` as an indented text tree: a group as ``and (2)`` with its children below,
    a condition as ``key operator value`` on one line."""
    tee, end, bar = ("|- ", "`- ", "|  ") if ascii_only else ("├─ ", "└─ ", "│  ")
    lines: list[str] = []
    # prefixes[d]: what goes before the branch of a child at depth d + 1.
    prefixes: list[str] = []
    for event, expr, depth, last in walk(where):
        if event == "close":
            prefixes.pop()
            continue
        group = group_of(expr)
        label = f"{group[0]} ({len(group[1])})" if group is not None else " ".join(condition_parts(expr))
        if depth == 0:
            lines.append(label)
        else:
            lines.append(prefixes[depth - 1] + (end if last else tee) + label)
        if event == "open":
            below = "" if depth == 0 else prefixes[depth - 1] + ("   " if last else bar)
            prefixes.append(below)
    return lines


def text_table(header: Sequence[str], rows: Sequence[Sequence[str]], indent: str = "  ") -> list[str]:
    """Rows of cells as aligned lines: the first column left-aligned, the others right."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        first = cells[0].ljust(widths[0])
        rest = [c.rjust(w) for c, w in zip(cells[1:], widths[1:])]
        return indent + "  ".join([first, *rest]).rstrip()

    return [line(header), *(line(r) for r in rows)]
