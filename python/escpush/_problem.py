"""``FilterProblem``, apart from :mod:`escpush.errors` so that importing escpush does not
import :mod:`typing`; ``escpush.FilterProblem`` and ``escpush.errors.FilterProblem`` load it
on first use."""

from __future__ import annotations

from typing import TypedDict

__all__ = ["FilterProblem"]


class FilterProblem(TypedDict):
    """One problem of a filter: where it is, a stable code, and what to do about it."""

    path: str
    """Where: ``where.and[2].or[0].value``; empty for the filter as a whole."""
    code: str
    """What kind of problem, stable across versions (the troubleshooting page lists every code)."""
    message: str
    """What is wrong and how to fix it."""
