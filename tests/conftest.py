import sys
from pathlib import Path

# The tests' own helpers (reference_eval) import by name.
sys.path.insert(0, str(Path(__file__).parent))

import pytest

import cli_support

cli = pytest.fixture(cli_support.cli_fixture, name="cli")
api = pytest.fixture(cli_support.api_fixture, name="api")
