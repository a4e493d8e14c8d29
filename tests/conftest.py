import signal
import sys
from pathlib import Path

# The tests' own helpers (reference_eval) import by name.
sys.path.insert(0, str(Path(__file__).parent))

import pytest

import cli_support

# Tests send Ctrl-C (SIGINT) to `escpush` subprocesses. A shell starts a background job with
# SIGINT ignored, and a child inherits that; Python then never raises KeyboardInterrupt and
# those tests would wait for their timeouts. Handling it here makes every child start with
# the default again (a handler, unlike "ignored", is reset on exec).
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

cli = pytest.fixture(cli_support.cli_fixture, name="cli")
api = pytest.fixture(cli_support.api_fixture, name="api")
