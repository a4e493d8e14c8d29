"""escpush's use of Python's :mod:`logging`: the logger ``escpush`` (:data:`LOGGER_NAME`).

The native transport logs each request at ``DEBUG`` there (method, URL, the body with every
secret masked, the status or failure, the attempt, each wait before a retry and for the
client-side rate limit). Nothing is logged until the program configures logging to take it,
as for any library: ``logging.basicConfig(level=logging.DEBUG)``, or
``logging.getLogger("escpush").setLevel(logging.DEBUG)`` with a handler. As in Cloudflare's
SDK, ``CLOUDFLARE_LOG=debug`` in the environment does it at import (``info`` sets ``INFO``,
under which escpush has nothing to say); the command line's ``-v`` does it for one command.
"""

from __future__ import annotations

import os

# The transport's log target (escpush-http's LOG_TARGET), which names the logger.
from ._escpush import _LOG_TARGET as LOGGER_NAME

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["LOGGER_NAME", "setup_from_env", "verbose"]

# The format of Cloudflare's SDK for CLOUDFLARE_LOG (cloudflare/_utils/_logs.py).
_FORMAT = "[%(asctime)s - %(name)s:%(lineno)d - %(levelname)s] %(message)s"
_DATE_FORMAT = "%Y-%m-%d %H:%M:%S"


def setup_from_env() -> None:
    """``CLOUDFLARE_LOG=debug`` (or ``info``): a basic configuration, as the SDK makes it, and
    the ``escpush`` logger at that level. Any other value changes nothing."""
    level = os.environ.get("CLOUDFLARE_LOG", "").strip().lower()
    if level not in ("debug", "info"):
        return
    import logging

    logging.basicConfig(format=_FORMAT, datefmt=_DATE_FORMAT)
    logging.getLogger(LOGGER_NAME).setLevel(logging.DEBUG if level == "debug" else logging.INFO)


def verbose() -> Callable[[], None]:
    """The command line's ``-v``: the ``escpush`` logger at ``DEBUG``, shown on stderr, for
    one command; returns what puts the logger back as it was. Its records stop at this
    handler, so that ``CLOUDFLARE_LOG=debug`` beside ``-v`` does not print each line twice."""
    import logging
    import sys

    logger = logging.getLogger(LOGGER_NAME)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("escpush: %(message)s"))
    level, propagate = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False

    def restore() -> None:
        logger.removeHandler(handler)
        logger.setLevel(level)
        logger.propagate = propagate

    return restore
