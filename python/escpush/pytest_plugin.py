"""The pytest plugin of escpush (registered through the ``pytest11`` entry point).

It provides the fixture ``escpush_emulator``: a running :class:`escpush.testing.Emulator`,
fresh for each test and stopped after it::

    def test_my_script(escpush_emulator):
        client = escpush_emulator.client()
        client.zone("z1").esc.disable()
        assert escpush_emulator.state()["zones"]["z1"]["esc"]["always"]
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .testing import Emulator

__all__ = ["escpush_emulator"]


@pytest.fixture
def escpush_emulator() -> Iterator[Emulator]:
    """A running ESC API emulator on 127.0.0.1, stopped after the test."""
    with Emulator() as emu:
        yield emu
