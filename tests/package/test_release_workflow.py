"""The release workflow (.github/workflows/release.yml, maturin's generated CI adapted): it
cannot run here, so its shape is checked: the wheels it builds cover Linux x86_64 and
aarch64 (manylinux and musllinux), macOS x86_64 and arm64 and Windows, each an abi3 release
build of the binding, plus the sdist, and publishing waits for all of them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "release.yml"


def _workflow() -> dict[str, Any]:
    loaded = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def _builds(job: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in job["steps"] if str(s.get("uses", "")).startswith("PyO3/maturin-action@")]


def test_the_targets_cover_every_platform_users_run() -> None:
    jobs = _workflow()["jobs"]
    wanted = {
        ("linux", "auto"): {"x86_64", "aarch64"},
        ("musllinux", "musllinux_1_2"): {"x86_64", "aarch64"},
        ("macos", None): {"x86_64", "aarch64"},
        ("windows", None): {"x64"},
    }
    for (name, manylinux), targets in wanted.items():
        job = jobs[name]
        matrix = {p["target"] for p in job["strategy"]["matrix"]["platform"]}
        assert targets <= matrix, (name, matrix)
        (build,) = _builds(job)  # one abi3 wheel per platform: no free-threaded second build
        assert build["with"]["target"] == "${{ matrix.platform.target }}"
        assert build["with"].get("manylinux") == manylinux, name
        args = build["with"]["args"].split()
        assert "--release" in args and args[args.index("--manifest-path") + 1] == "crates/escpush-py/Cargo.toml"
        assert "-i" not in args  # no interpreter-specific wheel
    runners = {p["runner"] for p in jobs["macos"]["strategy"]["matrix"]["platform"]}
    assert any("intel" in r for r in runners) and "macos-latest" in runners


def test_sdist_and_publishing_wait_for_every_build() -> None:
    flow = _workflow()
    jobs = flow["jobs"]
    (sdist,) = _builds(jobs["sdist"])
    assert sdist["with"]["command"] == "sdist"
    release = jobs["release"]
    assert set(release["needs"]) == {"linux", "musllinux", "windows", "macos", "sdist"}
    assert release["permissions"]["id-token"] == "write"
    publish = next(s for s in release["steps"] if s.get("name") == "Publish to PyPI")
    assert publish["if"] == "${{ startsWith(github.ref, 'refs/tags/') }}"
    # PyYAML reads the key `on` as True (YAML 1.1).
    triggers = flow.get("on", flow.get(True))
    assert triggers["push"]["tags"] == ["v*"] and "workflow_dispatch" in triggers


def test_the_wheel_is_abi3() -> None:
    """One wheel per platform is enough only because the binding builds for the limited API."""
    cargo = (ROOT / "Cargo.toml").read_text(encoding="utf-8")
    assert 'pyo3 = { version = "0.30", features = ["abi3-py39"] }' in cargo
