"""The one rule for escpush's optional packages: import one when a method needs it, or raise
``ImportError`` naming the method, the package, the extra that installs it (pyproject's
``[project.optional-dependencies]``) and the site's page of the extras."""

from __future__ import annotations

import importlib
from typing import Any

# The package of each optional module -> the extra of pyproject.toml that installs it.
EXTRAS = {
    "pandas": "pandas",
    "polars": "polars",
    "pyarrow": "pyarrow",
    "matplotlib": "plot",
    "pyspark": "spark",
    "datafusion": "transform",
}


def need(module: str, what: str) -> Any:
    """``import module``, or an ``ImportError`` that says ``what`` needs it and how to get it."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        package = module.split(".")[0]
        from ._docs import page

        raise ImportError(
            f"{what} needs the {package} package, which is not installed: pip install 'escpush[{EXTRAS[package]}]'"
            f" (the extras: {page('install', 'the-extras')})"
        ) from e
