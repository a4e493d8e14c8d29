"""``escpush.Job``: a log-push job as the API stores it."""

from __future__ import annotations

from ._escpush import _job_filter, _redact_job

__all__ = ["Job"]

# No `typing` at import time (see escpush.errors): type checkers see dict[str, Any], the
# interpreter a plain dict.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ._escpush import Filter

    _Dict = dict[str, Any]
else:
    _Dict = dict


class Job(_Dict):
    """A log-push job as the API stores it, returned by ``create_job``, ``jobs``, ``job``,
    ``update_job``, ``enable_job``, ``disable_job`` and (as ``["job"]``) ``ensure_job``.

    It is a ``dict`` (``job["id"]``, ``job["filter"]``, ``json.dumps(job)``; equal to the
    plain dict of the same items) holding every field exactly as the API sent it. Only its
    ``repr`` and its display in Jupyter differ: they show ``redacted()``, where the
    parameters of ``destination_conf`` that may hold credentials (keys, tokens, signatures)
    and ``ownership_challenge`` are masked as ``***``. ``parsed_filter`` reads its filter as
    an :class:`escpush.Filter`.
    """

    __slots__ = ()

    @property
    def parsed_filter(self) -> Filter | None:
        """The job's ``filter`` as an :class:`escpush.Filter`, however the server wrote it
        (the JSON text with any spacing or member order, the quoted form, or an object);
        None when the job has no filter. Raises ``FilterError`` for a filter that does not
        parse."""
        return _job_filter(dict(self))

    def redacted(self) -> dict[str, Any]:
        """A plain copy of the job, safe to print or log: credentials masked as ``***``
        (core's ``redact_job``, the rule the emulator's log follows too)."""
        return _redact_job(dict(self))

    def __repr__(self) -> str:
        return f"Job({self.redacted()!r})"

    def _repr_html_(self) -> str:
        from ._display import job_html

        return job_html(self)


# Shown, and pickled, under the name users import it by, like the native classes.
Job.__module__ = "escpush"
