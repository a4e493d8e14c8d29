"""Helpers of the command-line tests: one command's result, and the fixtures `cli` (runs
`escpush.cli.main` in-process) and `api` (the emulator, with the CLOUDFLARE_* variables
pointing at it), which conftest.py registers."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable

import pytest

from escpush.cli import main
from escpush.testing import Emulator


class Run:
    """One command's exit status, stdout and stderr."""

    def __init__(self, code: int, out: str, err: str) -> None:
        self.code, self.out, self.err = code, out, err

    def json(self) -> object:
        return json.loads(self.out)

    def error(self) -> dict[str, object]:
        data = json.loads(self.err)
        assert isinstance(data, dict)
        error = data["error"]
        assert isinstance(error, dict)
        return error


Cli = Callable[..., Run]


def cli_fixture(capsys: pytest.CaptureFixture[str]) -> Cli:
    def run(*argv: str, stdin: str | bytes | None = None) -> Run:
        saved = sys.stdin
        if isinstance(stdin, bytes):  # a binary stdin, as a pipe gives it (with .buffer)
            sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
        elif stdin is not None:
            sys.stdin = io.StringIO(stdin)
        try:
            code = main(list(argv))
        except SystemExit as exit:  # a usage error: argparse's way out, with its status
            code = exit.code if isinstance(exit.code, int) else 1
        finally:
            sys.stdin = saved
        out, err = capsys.readouterr()
        return Run(code, out, err)

    return run


def api_fixture(escpush_emulator: Emulator, monkeypatch: pytest.MonkeyPatch) -> Emulator:
    """The emulator, with the CLOUDFLARE_* variables pointing at it (token credentials)."""
    for name in ("CLOUDFLARE_API_KEY", "CLOUDFLARE_EMAIL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CLOUDFLARE_BASE_URL", escpush_emulator.base_url)
    monkeypatch.setenv("CLOUDFLARE_API_TOKEN", escpush_emulator.api_token)
    return escpush_emulator
