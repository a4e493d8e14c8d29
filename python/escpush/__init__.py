"""escpush: Cloudflare's Edge Side Code deprecation controls and log-push job filters.

Build, parse, validate and preview the ``filter`` of a log-push job::

    from escpush import field
    f = field("ClientRequestHost").ends_with(".example.com") & (field("EdgeResponseStatus") >= 500)
    f.validate("http_requests")   # raises FilterError listing every problem
    f.to_json()                   # the value for the job's `filter` field
"""

from __future__ import annotations

import os as _os

from . import _escpush
from ._escpush import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_OPERATORS,
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    MAX_RETRIES,
    Account,
    Client,
    Cost,
    CostChange,
    Esc,
    EscAssessment,
    EscStatus,
    Field,
    Filter,
    LogpullOptions,
    Logpush,
    PreviewResult,
    Pricing,
    ScanResult,
    Transformer,
    Transformers,
    Zone,
    __version__,
    account_cost,
    check_terraform_plan,
    check_transformer,
    dataset_fields,
    datasets,
    esc_cookie,
    esc_replacements,
    field,
    field_operators,
    monthly_cost,
    preview_job,
    preview_transformer,
    project_cost,
    redact_destination_conf,
    transformer_to_filter,
)
from ._job import Job
from ._presentation import dataset_schema
from ._presentation import install as _install_presentation
from .errors import (
    ApiError,
    AuthenticationError,
    EscpushError,
    ExecutorError,
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
    from ._transformer import TransformerRun, run_transformer


# The presentation of the native classes (`_repr_html_`, DataFrames, plots) is Python's: put
# on the classes here, each importing its renderer on first use (`escpush._presentation`).
_install_presentation()

# The classes the native module raises or builds, lent to it here so that no Rust code imports
# the package by name (classes, not functions: nothing is called back by name).
_escpush._register(
    errors={
        cls.__name__: cls
        for cls in (
            EscpushError,
            FilterError,
            InvalidInput,
            ApiError,
            AuthenticationError,
            NotFoundError,
            RateLimitError,
            ServerError,
            TransportError,
            ScanError,
            Terminated,
        )
    },
    job=Job,
)


# Cloudflare's SDK reads CLOUDFLARE_LOG=debug at import: so does escpush (escpush._logging).
if "CLOUDFLARE_LOG" in _os.environ:
    from ._logging import setup_from_env as _setup_logging

    _setup_logging()


def __getattr__(name: str) -> object:
    # FilterProblem needs `typing`, which start-up does without (see escpush.errors).
    if name == "FilterProblem":
        from ._problem import FilterProblem

        return FilterProblem
    # A local run of a transformer needs tempfile, gzip and json: imported when used.
    if name in ("run_transformer", "TransformerRun"):
        from . import _transformer

        return getattr(_transformer, name)
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
    "Cost",
    "CostChange",
    "Esc",
    "EscAssessment",
    "EscStatus",
    "EscpushError",
    "ExecutorError",
    "Field",
    "Filter",
    "FilterError",
    "FilterProblem",
    "InvalidInput",
    "Job",
    "LogpullOptions",
    "Logpush",
    "NotFoundError",
    "PreviewResult",
    "Pricing",
    "RateLimitError",
    "ScanError",
    "ScanResult",
    "ServerError",
    "Terminated",
    "Transformer",
    "TransformerRun",
    "Transformers",
    "TransportError",
    "Zone",
    "__version__",
    "account_cost",
    "check_terraform_plan",
    "check_transformer",
    "dataset_fields",
    "dataset_schema",
    "datasets",
    "esc_cookie",
    "esc_replacements",
    "field",
    "field_operators",
    "monthly_cost",
    "preview_job",
    "preview_transformer",
    "project_cost",
    "redact_destination_conf",
    "run_transformer",
    "transformer_to_filter",
]
