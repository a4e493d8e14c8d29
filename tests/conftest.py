import signal
from collections.abc import Iterator

import pytest

import cli_support
import conformance
import conformance.tracker
import conformance.traffic

# Tests send Ctrl-C (SIGINT) to `escpush` subprocesses. A shell starts a background job with
# SIGINT ignored, and a child inherits that; Python then never raises KeyboardInterrupt and
# those tests would wait for their timeouts. Handling it here makes every child start with
# the default again (a handler, unlike "ignored", is reset on exec).
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

cli = pytest.fixture(cli_support.cli_fixture, name="cli")
api = pytest.fixture(cli_support.api_fixture, name="api")


# Schema conformance (tests/conformance/): every emulator a test starts has its traffic checked
# at the test's teardown, requests against what escpush's client may send and answers against
# what the API answers. A test that sends requests of its own on purpose (raw HTTP, another
# SDK, bad input the emulator must refuse) carries the mark `forges_requests`: then only the
# requests of escpush's client (its User-Agent) are checked, and every answer still is.
conformance.tracker.install()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "forges_requests: the test sends requests escpush's client would not (raw HTTP, another SDK, bad "
        "input on purpose); the schema conformance check then checks only the client's requests, and every answer",
    )


@pytest.fixture(autouse=True)
def _schema_conformance(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    forged = request.node.get_closest_marker("forges_requests") is not None
    entries = conformance.tracker.TRACKER.take()
    failures = conformance.traffic.unexpected(conformance.checker(), entries, forged=forged)
    if failures:
        listing = "\n".join(f"- {v}" for v in failures[:20])
        more = f"\n(and {len(failures) - 20} more)" if len(failures) > 20 else ""
        pytest.fail(
            f"{len(failures)} exchange(s) with the emulator depart from the API's published schema "
            f"(tests/conformance/: deviations.py lists the schema's known corrections):\n"
            f"{listing}{more}",
            pytrace=False,
        )
