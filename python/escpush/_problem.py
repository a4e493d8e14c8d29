"""``FilterProblem``, apart from :mod:`escpush.errors` so that importing escpush does not
import :mod:`typing`; ``escpush.FilterProblem`` and ``escpush.errors.FilterProblem`` load it
on first use."""

from __future__ import annotations

from typing import TypedDict

__all__ = ["FilterProblem"]


class FilterProblem(TypedDict):
    """One problem of a filter: where it is, a stable code, and what to do about it."""

    path: str
    code: str
    message: str
