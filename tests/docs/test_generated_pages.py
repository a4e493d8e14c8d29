"""The site's generated pages are current (scripts/docs_pages.py, `make docs-pages`): the command
line's reference from its parsers, and troubleshooting from the code, so that no command,
exception, Rust error or problem code is missing from them."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("docs_pages", ROOT / "scripts/docs_pages.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["docs_pages"] = module
    spec.loader.exec_module(module)
    return module


def test_the_generated_pages_are_current() -> None:
    for path, text in _script().pages().items():
        assert path.read_text() == text, f"{path.relative_to(ROOT)} is out of date: run `make docs-pages`"


def test_the_cli_page_has_every_command() -> None:
    import argparse

    from escpush.cli import build_parser

    page = (ROOT / "docs/reference/cli.md").read_text()

    def walk(parser: argparse.ArgumentParser, path: str) -> None:
        assert f"`{path}`" in page, path
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, f"{path} {name}")

    walk(build_parser(), "escpush")


def test_troubleshooting_has_every_error_and_problem_code() -> None:
    import escpush.errors
    from escpush import _escpush

    page = (ROOT / "docs/troubleshooting.md").read_text()
    problem_rs = (ROOT / "crates/escpush-filter/src/problem.rs").read_text()
    codes = re.findall(r'ProblemCode::\w+ => "(\w+)"', problem_rs)
    assert len(codes) >= 30
    for code in codes:
        assert f"| `{code}` |" in page, code
    for name in escpush.errors.__all__:
        if name != "FilterProblem":
            assert f"| `{name}` |" in page, name
    for kind in _escpush._error_kinds():
        assert f"::{kind.split('.')[1]}` |" in page, kind


def test_a_problem_code_without_a_fix_fails_the_generation() -> None:
    script = _script()
    fixes = dict(script.CODE_FIXES)
    del script.CODE_FIXES["too_large"]
    try:
        try:
            script.troubleshooting()
        except SystemExit as stop:
            assert "too_large" in str(stop)
        else:
            raise AssertionError("a code without a fix was written")
    finally:
        script.CODE_FIXES.clear()
        script.CODE_FIXES.update(fixes)
