"""`Job` attributes: one for every field of core's job field table, typed in the class's
declarations as the table says (checked here, so that the two cannot drift), mapping access
kept, and no credential in what an attribute, `json.dumps` or `repr` shows."""

from __future__ import annotations

import ast
import copy
import json
import pickle
from pathlib import Path

import pytest

import escpush
from escpush import Job
from escpush._escpush import _JOB_FIELDS
from escpush.testing import Emulator

ZONE = "023e105f4ecef8ad9ca31a8372d0c353"
PY_TYPES = {"int": "int", "string": "str", "bool": "bool", "object": "dict[str, Any]"}


def _declared() -> dict[str, str]:
    """The properties declared for type checkers in `Job`'s `if TYPE_CHECKING:` block."""
    tree = ast.parse(Path(escpush._job.__file__).read_text(encoding="utf-8"))
    job = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Job")
    block = next(n for n in job.body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING")
    declared = {}
    for node in block.body:
        assert isinstance(node, ast.FunctionDef) and node.returns is not None
        assert [ast.unparse(d) for d in node.decorator_list] == ["property"]
        declared[node.name] = ast.unparse(node.returns)
    return declared


def test_the_declared_attributes_are_the_tables_fields_with_its_types() -> None:
    expected = {}
    for f in _JOB_FIELDS:
        py = PY_TYPES[f["type"]]
        expected[f["name"]] = py if f["always"] else f"{py} | None"
    assert _declared() == expected
    # In the table's order, and none hides a dict method.
    assert list(_declared()) == [f["name"] for f in _JOB_FIELDS]
    assert not [name for name in expected if hasattr(dict, name)]
    assert expected["id"] == "int" and expected["enabled"] == "bool"


def test_attributes_read_the_items_and_mapping_access_stays(escpush_emulator: Emulator) -> None:
    logpush = escpush_emulator.client().zone(ZONE).logpush
    job = logpush.create_job(
        destination_conf="s3://bucket/logs?region=us-east-1&access-key-id=AKIAEXAMPLE&secret-access-key=SECRETKEY123",
        dataset="http_requests",
        name="errors",
        filter=escpush.field("EdgeResponseStatus") >= 500,
    )
    assert isinstance(job, Job) and isinstance(job, dict)
    for f in _JOB_FIELDS:
        assert getattr(job, f["name"]) == job.get(f["name"]), f["name"]
    assert isinstance(job.id, int) and job.id == job["id"]
    assert (job.dataset, job.name, job.enabled) == ("http_requests", "errors", job["enabled"])
    assert job.ownership_challenge is None and "ownership_challenge" not in job  # not in a record
    assert job.destination_conf == "s3://bucket/logs?region=us-east-1&access-key-id=***&secret-access-key=***"
    assert job.reveal()["destination_conf"].endswith("secret-access-key=SECRETKEY123")
    # Mapping access writes; the attribute follows (masked the same way).
    job["name"] = "renamed"
    assert job.name == "renamed"
    with pytest.raises(AttributeError):
        job.name = "x"  # type: ignore[misc]
    # No credential in json.dumps, repr, pickle or a copy's text.
    for shown in (json.dumps(job), repr(job), str(pickle.loads(pickle.dumps(job))), str(copy.copy(job))):
        assert "SECRETKEY123" not in shown and "AKIAEXAMPLE" not in shown
    # A job read back has the same attributes.
    again = logpush.job(job.id)
    assert again.id == job.id and again.filter == job.filter


def test_a_mistyped_attribute_names_the_field() -> None:
    job = Job(id=1, dataset="http_requests")
    with pytest.raises(AttributeError, match="did you mean `dataset`"):
        _ = job.datset  # type: ignore[attr-defined]
    with pytest.raises(AttributeError, match=r"no attribute 'zzzzzzzzzz'$"):
        _ = job.zzzzzzzzzz  # type: ignore[attr-defined]
    # Fields the record does not hold read None.
    assert job.last_error is None and job.filter is None
