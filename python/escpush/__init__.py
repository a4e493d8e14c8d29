"""escpush: Cloudflare's Edge Side Code deprecation controls and log-push job filters.

Build, parse, validate and preview the ``filter`` of a log-push job::

    from escpush import field
    f = field("ClientRequestHost").ends_with(".example.com") & (field("EdgeResponseStatus") >= 500)
    f.validate("http_requests")   # raises FilterError listing every problem
    f.to_json()                   # the value for the job's `filter` field
"""

from __future__ import annotations

from ._escpush import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_OPERATORS,
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    MAX_RETRIES,
    Account,
    Client,
    Esc,
    EscAssessment,
    EscStatus,
    Field,
    Filter,
    LogpullOptions,
    Logpush,
    ScanResult,
    Zone,
    __version__,
    dataset_fields,
    dataset_schema,
    datasets,
    esc_cookie,
    esc_replacements,
    field,
    redact_destination_conf,
)
from ._job import Job
from .errors import (
    ApiError,
    AuthenticationError,
    EscpushError,
    FilterError,
    InvalidInput,
    NotFoundError,
    RateLimitError,
    ScanError,
    ServerError,
    Terminated,
    TransportError,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ._problem import FilterProblem


def __getattr__(name: str) -> object:
    # FilterProblem needs `typing`, which start-up does without (see escpush.errors).
    if name == "FilterProblem":
        from ._problem import FilterProblem

        return FilterProblem
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_OPERATORS",
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_TIMEOUT",
    "MAX_RETRIES",
    "Account",
    "ApiError",
    "AuthenticationError",
    "Client",
    "Esc",
    "EscAssessment",
    "EscStatus",
    "EscpushError",
    "Field",
    "Filter",
    "FilterError",
    "FilterProblem",
    "InvalidInput",
    "Job",
    "LogpullOptions",
    "Logpush",
    "NotFoundError",
    "RateLimitError",
    "ScanError",
    "ScanResult",
    "ServerError",
    "Terminated",
    "TransportError",
    "Zone",
    "__version__",
    "dataset_fields",
    "dataset_schema",
    "datasets",
    "esc_cookie",
    "esc_replacements",
    "field",
    "redact_destination_conf",
]
