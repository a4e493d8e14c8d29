"""The README's examples run as written: each Python block alone in a fresh interpreter, with
only the packages escpush and the extras named before it install (tests/extras.py), each
shell block of commands in an empty folder, the pytest example through
pytest itself, the command-line session against its printed output, and the Rust excerpt
against the example that `make test` runs."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from escpush.cli import main
from extras import allowed_distributions, blocked_modules, import_blocker, named_extras

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
PYTHON = re.findall(r"```python\n(.*?)```", README, flags=re.S)
# Each Python block with the README's text before it in its section (from its heading on).
BEFORE = {
    m.group(1): README[: m.start()].rsplit("\n#", 1)[-1]
    for m in re.finditer(r"```python\n(.*?)```", README, flags=re.S)
}
SHELL = re.findall(r"```sh\n(.*?)```", README, flags=re.S)
CONSOLE = re.findall(r"```console\n(.*?)```", README, flags=re.S)
RUST = re.findall(r"```rust\n(.*?)```", README, flags=re.S)


def test_readme_has_every_kind_of_example() -> None:
    assert len(PYTHON) >= 5 and CONSOLE and RUST
    assert any("def test_" in block for block in PYTHON)


def _as_new_user(block: str, before: str | None = None) -> str:
    """The block, run with only what escpush and the extras named before it (in its section's
    text, or in the block's own comments) install: as a user who followed the text."""
    comments = "\n".join(line for line in block.splitlines() if "#" in line)
    extras = named_extras((BEFORE[block] if before is None else before) + comments)
    return import_blocker(blocked_modules(allowed_distributions(extras))) + block


def _run_alone(block: str, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [sys.executable, "-c", _as_new_user(block)], capture_output=True, text=True, cwd=cwd, env=env, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.parametrize(
    "block", [b for b in PYTHON if "def test_" not in b], ids=lambda b: b.strip().splitlines()[-1][:50]
)
def test_readme_python_block_runs_alone_in_a_fresh_interpreter(block: str, tmp_path: Path) -> None:
    """Each block as a reader pastes it: its own imports and data, nothing from the one before."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLOUDFLARE_")}
    out = _run_alone(block, tmp_path, env)
    for needle, printed in (
        ("f.validate(", "3 221"),
        ("Filter.parse(broken)", "did you mean `geq`?"),
        ("fixed.problems(", "did you mean `ClientRequestHost`?"),
        ("to_query(", "[('a.example.com',)]"),
        ("FilterBuilder(", "keeps 50.0% of lines, 50.4% of bytes"),
    ):
        if needle in block:
            assert printed in out, (printed, out)
    if "logging.basicConfig" in block:  # the request lines, on stderr, the secret masked
        err = subprocess.run(
            [sys.executable, "-c", _as_new_user(block)], capture_output=True, text=True, cwd=tmp_path, env=env
        ).stderr
        assert '{"with_secret":"***"} -> HTTP 429 (attempt 1, ' in err and "HTTP 200 (attempt 2, " in err, err
        assert "retrying in 0 s, HTTP 429 asked for it" in err and "s3cret-value" not in err


@pytest.mark.parametrize(
    ("before", "block", "missing"),
    [
        ("", "import duckdb", "No module named 'duckdb'"),
        ("(`escpush[plot]` draws it)", "import duckdb", "No module named 'duckdb'"),
        ("", "import pandas  # pip install 'escpush[plot]'", "No module named 'pandas'"),
        ("", "from escpush.widget import FilterBuilder", "pip install 'escpush[widget]'"),
        ("", "import anywidget", "No module named 'anywidget'"),
    ],
)
def test_a_block_needing_an_extra_not_named_before_it_fails(before: str, block: str, missing: str) -> None:
    """What the check above stands on: a package that no extra named before the block (or in
    its comments) installs cannot be imported, as for a user who installed only those."""
    done = subprocess.run([sys.executable, "-c", _as_new_user(block, before)], capture_output=True, text=True)
    assert done.returncode != 0 and missing in done.stderr, done.stderr


@pytest.mark.parametrize(
    ("before", "block"),
    [
        ("`pip install 'escpush[plot]'`", "import matplotlib.pyplot"),
        ("", "import matplotlib.pyplot, numpy  # needs escpush[plot]"),
        ("(`pip install 'escpush[spark]'`, `[pyarrow]`, `[polars]`)", "import pyarrow, polars"),
        ("`escpush[widget]`", "from escpush.widget import FilterBuilder; FilterBuilder()"),
    ],
)
def test_a_block_after_its_extra_is_named_runs(before: str, block: str) -> None:
    done = subprocess.run([sys.executable, "-c", _as_new_user(block, before)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_readme_shell_blocks_make_what_they_use(tmp_path: Path) -> None:
    """Each shell block of `escpush` commands runs as written in an empty folder (against the
    emulator, as the README says to try it); the others are the build commands."""
    from escpush.testing import Emulator

    runnable = [b for b in SHELL if any(line.startswith("escpush ") for line in b.splitlines())]
    assert runnable
    for block in SHELL:
        if block not in runnable:
            assert all(line.split()[0] in ("make", "pip") for line in block.splitlines() if line.strip()), block
    with Emulator() as emu:
        env = {k: v for k, v in os.environ.items() if not k.startswith("CLOUDFLARE_")}
        env.update(
            CLOUDFLARE_BASE_URL=emu.base_url,
            CLOUDFLARE_API_TOKEN=emu.api_token,
            PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        )
        for block in runnable:
            folder = tmp_path / str(runnable.index(block))
            folder.mkdir()
            done = subprocess.run(
                ["bash", "-euo", "pipefail", "-c", block], capture_output=True, text=True, cwd=folder, env=env
            )
            assert done.returncode == 0, block + done.stdout + done.stderr


def test_readme_pytest_example_passes_under_pytest(tmp_path: Path) -> None:
    """The block with a test runs as a user's test suite would, with the installed plugin."""
    (block,) = [b for b in PYTHON if "def test_" in b]
    (tmp_path / "test_from_readme.py").write_text(block)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


def _session(block: str) -> list[tuple[str, str]]:
    """``$ command`` lines with the output printed under each."""
    steps: list[tuple[str, str]] = []
    for line in block.splitlines(keepends=True):
        if line.startswith("$ "):
            steps.append((line[2:].strip(), ""))
        else:
            command, out = steps[-1]
            steps[-1] = (command, out + line)
    return steps


@pytest.mark.parametrize("step", [s for block in CONSOLE for s in _session(block)], ids=lambda s: s[0][:60])
def test_readme_command_line_session(step: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    command, expected = step
    argv = shlex.split(command)
    assert argv[0] == "escpush"
    main(argv[1:])
    assert capsys.readouterr().out == expected


def test_readme_rust_excerpt_is_the_runnable_example() -> None:
    """Each line of the README's Rust block is in crates/escpush-http/examples/tour.rs, in order."""
    example = [line.strip() for line in (ROOT / "crates/escpush-http/examples/tour.rs").read_text().splitlines()]
    at = 0
    for line in (line.strip() for block in RUST for line in block.splitlines()):
        if not line:
            continue
        assert line in example[at:], f"README's Rust line is not in the example (in order): {line}"
        at = example.index(line, at) + 1


def test_the_command_line_section_names_every_command() -> None:
    """The README's list of commands is the parser's: a command added or renamed shows here."""
    import argparse

    from escpush.cli import build_parser

    section = README.split("covers the same ground for shells and CI jobs:", 1)[1].split("`demo`.", 1)[0] + "`demo`"
    listed: set[str] = set()
    for group, actions in re.findall(r"`([a-z]+)(?: ([a-z|-]+))?`", section):
        listed |= {f"{group} {a}" for a in actions.split("|")} if actions else {group}

    def commands(parser: argparse.ArgumentParser, prefix: str) -> set[str]:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs or prefix.count(" ") == 1:  # a command and its action (`logpush instant-logs`)
            return {prefix}
        return {n for name, sub in subs[0].choices.items() for n in commands(sub, f"{prefix} {name}".strip())}

    assert listed == commands(build_parser(), "")
