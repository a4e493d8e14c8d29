"""The exceptions escpush raises.

Every exception derives from :class:`EscpushError`, except :class:`Terminated` (SIGTERM or
SIGHUP during a call that puts something back: a ``SystemExit``). Input that escpush refuses before
anything is sent is also a :class:`ValueError` (:class:`FilterError`, :class:`InvalidInput`).
No message, ``str`` or ``repr`` of these exceptions contains an API key, token, ESC secret or
ownership challenge, not even when a server's error message quotes the request.

The native module raises these classes (``escpush/__init__.py`` registers them with it at
import; ``errors.rs`` maps each Rust error variant to its own class); ``tests/client/test_errors.py``
checks every variant.
"""

from __future__ import annotations

# `typing` costs about 5 ms at start-up, which `escpush --version` need not pay: the
# annotations are never evaluated, and FilterProblem is made on first use (__getattr__).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ._escpush import ScanResult
    from ._problem import FilterProblem

__all__ = [
    "ApiError",
    "AuthenticationError",
    "EscpushError",
    "ExecutorError",
    "FilterError",
    "FilterProblem",
    "InvalidInput",
    "NotFoundError",
    "RateLimitError",
    "ScanError",
    "ServerError",
    "Terminated",
    "TransportError",
]


def __getattr__(name: str) -> object:
    if name == "FilterProblem":
        from ._problem import FilterProblem

        return FilterProblem
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class EscpushError(Exception):
    """Base class of every escpush exception."""


class _WithProblems(EscpushError, ValueError):
    """An input error that carries the list of problems found."""

    def __init__(self, message: str, problems: list[FilterProblem] | None = None) -> None:
        super().__init__(message)
        self._problems: list[FilterProblem] = list(problems or [])

    def errors(self) -> list[FilterProblem]:
        """Every problem found, each with ``path``, ``code`` and ``message``, in input order."""
        return [{"path": p["path"], "code": p["code"], "message": p["message"]} for p in self._problems]

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (str(self), self._problems))

    def _repr_html_(self) -> str:
        """In Jupyter: a table of the problems' path, code and message."""
        from ._display import problems_html

        return problems_html(self)


class FilterError(_WithProblems):
    """A log-push filter is malformed, over the limits, or does not fit its dataset.

    ``errors()`` lists every problem found, each a dict with ``path`` (for example
    ``where.and[2].or[0].value``), ``code`` (stable, for programs) and ``message``.
    """


class InvalidInput(_WithProblems):
    """An argument was refused before any request was made (an id, a secret, a dataset, ...).

    ``errors()`` lists the problems with their paths where there are several (a log-push
    job's fields, for example); it is empty for a single refused argument.
    """


class ApiError(EscpushError):
    """The API answered with an error.

    ``status`` is the HTTP status; ``errors`` the envelope's ``[{"code", "message"}]`` entries.
    """

    def __init__(self, message: str, status: int = 0, errors: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.status = status
        """The HTTP status of the API's answer."""
        self.errors = list(errors or [])
        """The API envelope's error entries, each ``{"code": ..., "message": ...}`` (empty when the body had none)."""

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (str(self), self.status, self.errors))


class AuthenticationError(ApiError):
    """The credentials were missing, wrong, or lack the permission (HTTP 401 or 403)."""


class NotFoundError(ApiError):
    """The zone, account or job does not exist, or the route is unknown (HTTP 404)."""


class RateLimitError(ApiError):
    """The API asked to slow down (HTTP 429) and the retries ran out, or it asked
    (``Retry-After``) to wait past the call's timeout: then the message says when to retry."""


class ServerError(ApiError):
    """The API failed (HTTP 5xx) and the retries ran out."""


class TransportError(EscpushError):
    """The request did not complete: connect, timeout (the client's ``timeout`` bounds the
    whole call), TLS, or a malformed or oversized response (an answer that is not the
    expected shape, such as a job answer that holds no job).

    When the connection broke after a request that is not repeated was sent (a job
    creation), the message says that it may have taken effect and how to check.
    """


class ScanError(EscpushError):
    """A scan of log files stopped (``Filter.scan``, ``Filter.select``).

    An input could not be opened or read (a missing file, truncated or corrupt gzip, an object
    that could not be fetched), which inputs to read could not be settled (a glob without
    match, a file without a time range when one is asked, a store that cannot be listed), the
    selected lines could not be written, in strict mode a line is not a JSON object, or a
    transformer's local run failed on a line (``run_transformer``: an integer overflow, a
    division by zero, a cast that cannot be made). ``path`` names the file, object or argument
    concerned (None when there is none), ``line`` is the 1-based number of the malformed or
    failing line (None otherwise), and ``partial`` holds the
    counts of what was read before the scan stopped (a ``ScanResult``; None when nothing was).
    """

    partial: ScanResult | None = None
    """The counts so far, as a ``ScanResult`` (None when the scan read nothing)."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.path = path
        """The input the error is about, or None."""
        self.line = line
        """The line number in that input (strict mode's malformed line, a transformer's failing
        line), or None."""

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (str(self), self.path, self.line))


class Terminated(SystemExit):
    """SIGTERM or SIGHUP (what ``timeout``, Kubernetes and CI cancellation send) ended a call
    that had something to put back: ``zone.esc.assess(...)`` (raised with the result as its
    ``assessment`` attribute, as for Ctrl-C), ``esc.disabled()``, ``Filter.select(...)``, and
    ``logpush.apply(...)`` (which stops between writes, the plan so far as its ``plan`` attribute).

    For the length of such a call, in the main thread, a signal whose handler is the default
    raises this instead of ending the process at once; the call puts back what it changed
    first. Another handler, an ignored signal (``nohup``) and other threads are left alone.
    ``signal`` is the signal's number and ``code`` 128 + it, so that uncaught it ends the
    process, silently, with the status a shell gives a process that signal ended. A
    ``SystemExit``, not an ``Exception``: ``except Exception`` does not stop it (and it is not
    an ``EscpushError``). ``str()`` is the signal's name (``SIGTERM``).
    """

    signal: int
    code: int
    """The exit status: 128 + the signal's number."""

    def __init__(self, signum: int) -> None:
        super().__init__(128 + signum)
        self.signal = signum
        """The signal's number (15 for SIGTERM, 1 for SIGHUP)."""

    def __str__(self) -> str:
        import signal

        try:
            return signal.Signals(self.signal).name
        except ValueError:
            return f"signal {self.signal}"

    def __repr__(self) -> str:
        return f"Terminated({self.signal})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.signal,))


class ExecutorError(EscpushError):
    """A Spark executor could not run escpush: it is not installed in the executors' Python, or
    is another version than the driver's.

    Raised by ``escpush.spark.scan``, ``select`` and ``preview`` (also
    ``escpush.spark.ExecutorError``, the same class). The message names what is missing and
    how to install it; ``escpush.ScanError`` is raised instead when an executor ran and the
    scan failed (a file gone since it was listed, corrupt gzip)."""
