"""Every code block of the documentation site (docs/**/*.md) runs as a reader would run it, as
the README's do (tests/package/test_readme.py): each Python block alone in a fresh interpreter
with only escpush and the extras its page names before it (tests/extras.py), the output its
comments show being the output it prints; the pytest example through pytest; each shell block
of `escpush` commands in an empty folder against the emulator; the command-line sessions
against their printed output; the TOML jobs file through `escpush logpush apply --dry-run`;
the Rust excerpt against the example that `make test` runs. A `text` block is output or a
command over the reader's own files, shown and not run; a block with no language fails."""

from __future__ import annotations

import io
import os
import re
import shlex
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

from escpush.cli import main
from extras import allowed_distributions, blocked_modules, import_blocker, named_extras

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "hooks" not in p.parts)
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", flags=re.S | re.M)
LANGUAGES = {"python", "sh", "console", "rust", "toml", "text"}


class Block:
    def __init__(self, page: Path, language: str, code: str, before: str) -> None:
        self.page, self.language, self.code, self.before = page, language, code, before

    def __repr__(self) -> str:
        lines = [line for line in self.code.strip().splitlines() if line.strip()]
        return f"{self.page.relative_to(DOCS)}:{lines[-1][:40] if lines else ''}"


BLOCKS = [
    Block(page, m.group(1), m.group(2), text[: m.start()])
    for page in PAGES
    for text in [page.read_text()]
    for m in FENCE.finditer(text)
]


def of(language: str) -> list[Block]:
    return [b for b in BLOCKS if b.language == language]


def test_the_site_has_every_kind_of_example_and_each_block_names_its_language() -> None:
    assert len(of("python")) >= 20 and of("console") and of("sh") and of("rust") and of("toml")
    assert [b for b in BLOCKS if b.language not in LANGUAGES] == []


def _as_new_user(block: Block) -> str:
    """The block, run with only what escpush and the extras its page names before it (or its
    own comments) install."""
    comments = "\n".join(line for line in block.code.splitlines() if "#" in line)
    extras = named_extras(block.before + comments)
    return import_blocker(blocked_modules(allowed_distributions(extras))) + block.code


def shown_output(code: str) -> list[str]:
    """What a block's comments say its `print(...)` lines print, in order: the comment on the
    line of a `print(`, and the comment lines under it (a long output, broken over lines)."""
    comments: dict[int, str] = {}
    code_lines: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        if tok.type == tokenize.COMMENT:
            comments[tok.start[0]] = tok.string[1:].strip()
        elif tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER):
            code_lines.update(range(tok.start[0], tok.end[0] + 1))
    lines = code.splitlines()
    shown = []
    for number, line in enumerate(lines, 1):
        if not line.lstrip().startswith("print("):
            continue
        parts = [comments[number]] if number in comments else []
        after = number + 1
        while after in comments and after not in code_lines:
            parts.append(comments[after])
            after += 1
        if parts:
            shown.append(" ".join(parts))
    return shown


def _pattern(text: str) -> str:
    return ".*".join(re.escape(piece) for piece in text.split("..."))


def output_matches(shown: str, printed: str) -> bool:
    """Whether a comment shows a printed line: the same text (`...` standing for any text), or
    the same text followed by an explanation after `: ` or `; `."""
    candidates = [shown] + [shown[: m.start()] for m in re.finditer(r": |; ", shown)]
    return any(re.fullmatch(_pattern(c), printed) for c in candidates if c)


def check_output(code: str, stdout: str) -> None:
    printed = stdout.splitlines()
    at = 0
    for shown in shown_output(code):
        for i in range(at, len(printed)):
            if output_matches(shown, printed[i]):
                at = i + 1
                break
        else:
            raise AssertionError(f"the page shows `{shown}`, but the block printed (from line {at + 1}):\n{stdout}")


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("CLOUDFLARE_")}


@pytest.mark.parametrize("block", [b for b in of("python") if "def test_" not in b.code], ids=repr)
def test_python_block_runs_alone_and_prints_what_the_page_shows(block: Block, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _as_new_user(block)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=_env(),
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    check_output(block.code, done.stdout)
    if "logging.basicConfig" in block.code:  # the request lines, on stderr, as the comments show them
        shown = [line[2:] for line in block.code.splitlines() if line.startswith("# escpush ")]
        check_output("\n".join(f"print()  # {s}" for s in shown), done.stderr)
        assert "s3cret-value" not in done.stderr


def test_the_output_check_catches_a_wrong_comment() -> None:
    """What the check above stands on: a comment that is not what the block prints fails it."""
    check_output('print(1 + 2)  # 3: the sum\nprint("a b")  # a ... b', "3\na xyz b\n")
    for code, out in (("print(1 + 2)  # 4", "3\n"), ('print("x")\n# y', "x\n"), ("print(3)  # 3 221", "3\n")):
        with pytest.raises(AssertionError):
            check_output(code, out)


def test_the_pytest_example_passes_under_pytest(tmp_path: Path) -> None:
    (block,) = [b for b in of("python") if "def test_" in b.code]
    (tmp_path / "test_from_docs.py").write_text(block.code)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


def _emulator_env(emu: object) -> dict[str, str]:
    env = _env()
    env.update(
        CLOUDFLARE_BASE_URL=emu.base_url,  # type: ignore[attr-defined]
        CLOUDFLARE_API_TOKEN=emu.api_token,  # type: ignore[attr-defined]
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
    )
    return env


@pytest.mark.parametrize("block", of("sh"), ids=repr)
def test_shell_block_runs_in_an_empty_folder_against_the_emulator(block: Block, tmp_path: Path) -> None:
    """A block of `escpush` commands runs as written (against the emulator, as the page says to
    try it); the others are the install and build commands, which are not run here."""
    lines = [line for line in block.code.splitlines() if line.strip()]
    if not any(line.startswith("escpush ") for line in lines):
        assert all(line.split()[0] in ("make", "pip") for line in lines), block.code
        return
    from escpush.testing import Emulator

    with Emulator() as emu:
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", block.code],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=_emulator_env(emu),
        )
    assert done.returncode == 0, block.code + done.stdout + done.stderr


def _session(block: str) -> list[tuple[str, str]]:
    steps: list[tuple[str, str]] = []
    for line in block.splitlines(keepends=True):
        if line.startswith("$ "):
            steps.append((line[2:].strip(), ""))
        else:
            command, out = steps[-1]
            steps[-1] = (command, out + line)
    return steps


@pytest.mark.parametrize("step", [s for b in of("console") for s in _session(b.code)], ids=lambda s: s[0][:60])
def test_command_line_session(step: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    command, expected = step
    argv = shlex.split(command)
    assert argv[0] == "escpush"
    main(argv[1:])
    assert capsys.readouterr().out == expected


@pytest.mark.parametrize("block", of("toml"), ids=repr)
def test_toml_jobs_file_is_read_by_apply(block: Block, tmp_path: Path) -> None:
    """The jobs file as a page shows it: `escpush logpush apply --dry-run` plans it."""
    from escpush.testing import Emulator

    (tmp_path / "jobs.toml").write_text(block.code)
    with Emulator() as emu:
        done = subprocess.run(
            ["escpush", "logpush", "apply", "jobs.toml", "--zone", "023e105f4ecef8ad9ca31a8372d0c353", "--dry-run"],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=_emulator_env(emu),
        )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "create" in done.stdout, done.stdout


def test_rust_excerpts_are_the_runnable_example() -> None:
    """Each line of a page's Rust block is in crates/escpush-http/examples/tour.rs, in order."""
    example = [line.strip() for line in (ROOT / "crates/escpush-http/examples/tour.rs").read_text().splitlines()]
    for block in of("rust"):
        at = 0
        for line in (line.strip() for line in block.code.splitlines()):
            if not line:
                continue
            assert line in example[at:], f"{block!r}: a Rust line is not in the example (in order): {line}"
            at = example.index(line, at) + 1
