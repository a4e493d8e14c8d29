"""What an ESC state says has one owner, ``escpush._format.ESC_STATES`` (issue 34): the command
line's status line and the notebook display's explanation read it; they had a wording each."""

from __future__ import annotations

import pytest

from escpush import _format
from escpush.cli import main
from escpush.testing import Emulator

ZONE = "023e105f4ecef8ad9ca31a8372d0c353"


def test_every_state_has_its_words_and_both_places_read_them(
    escpush_emulator: Emulator, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    esc = escpush_emulator.client().zone(ZONE).esc
    for name in ("CLOUDFLARE_API_KEY", "CLOUDFLARE_EMAIL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CLOUDFLARE_BASE_URL", escpush_emulator.base_url)
    monkeypatch.setenv("CLOUDFLARE_API_TOKEN", escpush_emulator.api_token)
    seen = []
    for change in (esc.enable, lambda: esc.set_secret("a-test-secret-1"), esc.disable):
        change()
        status = esc.status()
        seen.append(status.state)
        words = _format.ESC_STATES[status.state]
        # Each place shows the table's words: changed there, they change in both.
        monkeypatch.setitem(_format.ESC_STATES, status.state, _format.EscWords("LINE-WORDS", "EXPLAINED-WORDS"))
        assert "EXPLAINED-WORDS" in status._repr_html_()
        assert main(["esc", "status", "--zone", ZONE]) == 0
        assert capsys.readouterr().out.startswith(f"zone {ZONE}: LINE-WORDS")
        monkeypatch.setitem(_format.ESC_STATES, status.state, words)
    assert seen == ["enabled", "secret", "disabled"]
    assert set(_format.ESC_STATES) == set(seen)
