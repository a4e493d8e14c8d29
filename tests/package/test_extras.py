"""The `test` extra installs every package of the user extras the tests run (`make test`
installs `.[test]`, and a pip cannot name the project's own extra from another): so the
`transform` extra's packages (DataFusion and pyarrow, for `run_transformer`) are in `test`."""

from __future__ import annotations

import sys
from pathlib import Path

from packaging.requirements import Requirement

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]


def test_the_test_extra_installs_the_transform_extra() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    names = {name: {Requirement(r).name for r in reqs} for name, reqs in extras.items()}
    assert names["transform"] == {"datafusion", "pyarrow"}
    assert names["transform"] <= names["test"]
