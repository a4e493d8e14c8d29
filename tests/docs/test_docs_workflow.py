"""The Pages workflow (.github/workflows/docs.yml) builds the site as `make docs` does and
publishes only from main, and CI (.ci/run) builds the site after the tests."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def test_the_pages_workflow_builds_strictly_and_publishes_from_main() -> None:
    workflow = yaml.safe_load((ROOT / ".github/workflows/docs.yml").read_text(encoding="utf-8"))
    triggers = workflow[True]  # YAML 1.1 reads the key `on` as true
    assert triggers["push"]["branches"] == ["main"]
    build, deploy = workflow["jobs"]["build"], workflow["jobs"]["deploy"]
    runs = [step.get("run", "") for step in build["steps"]]
    assert "make docs" in runs
    uploads = [s for s in build["steps"] if s.get("uses", "").startswith("actions/upload-pages-artifact@")]
    assert uploads and uploads[0]["with"]["path"] == "site"
    assert deploy["needs"] == "build" and deploy["if"] == "github.event_name != 'pull_request'"
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["steps"][0]["uses"].startswith("actions/deploy-pages@")
    assert workflow["permissions"] == {"contents": "read"}


def test_make_docs_builds_strictly_and_ci_runs_it_after_the_tests() -> None:
    makefile = (ROOT / "Makefile").read_text()
    recipe = makefile.split("\ndocs:", 1)[1].split("\n\n", 1)[0]
    assert "mkdocs build --strict" in recipe
    steps = [line for line in (ROOT / ".ci/run").read_text().splitlines() if line.startswith("make ")]
    assert steps.index("make test") < steps.index("make docs")
    mkdocs = (ROOT / "mkdocs.yml").read_text()
    assert "strict: true" in mkdocs
