"""Every `escpush.testing.Emulator` the test session starts, and the traffic each received
that no test has had checked yet: tests/conftest.py hooks the class so that its log is read
before `close()`, `clear_requests()` and `reset()` forget it, and checks each test's share at
the test's teardown."""

from __future__ import annotations

import functools
import json
import weakref
from collections.abc import Callable
from typing import Any

from escpush.testing import Emulator

Entry = dict[str, Any]


def _identity(entry: Entry) -> str:
    """What tells two logged requests apart (when each arrived, to the sub-microsecond)."""
    return json.dumps([entry.get("received"), entry.get("method"), entry.get("path"), entry.get("body")])


class Tracker:
    def __init__(self) -> None:
        self._live: weakref.WeakSet[Emulator] = weakref.WeakSet()
        # Per emulator, the entries of its log already taken (those still in the log).
        self._seen: weakref.WeakKeyDictionary[Emulator, set[str]] = weakref.WeakKeyDictionary()
        self._pending: list[Entry] = []

    def started(self, emu: Emulator) -> None:
        self._live.add(emu)
        self._seen[emu] = set()

    def harvest(self, emu: Emulator) -> None:
        """Keeps what `emu` logged since the last harvest (before its log is forgotten). The
        log is a ring (`log_capacity`): what it dropped before a harvest goes unchecked."""
        if emu not in self._live or not emu._server.running:
            return
        log = emu.requests()
        seen = self._seen.get(emu, set())
        ids = [_identity(e) for e in log]
        self._pending.extend(e for e, i in zip(log, ids) if i not in seen)
        self._seen[emu] = set(ids)

    def waiting(self) -> int:
        """How many entries were harvested and not taken yet."""
        return len(self._pending)

    def take(self) -> list[Entry]:
        """Everything logged since the last call, by every emulator still running too."""
        for emu in list(self._live):
            self.harvest(emu)
        out, self._pending = self._pending, []
        return out


TRACKER = Tracker()


def install() -> None:
    """Hooks `Emulator` so that `TRACKER` sees every instance and reads each log in time."""
    if getattr(Emulator, "_conformance_hooked", False):
        return

    def before(method: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(method)
        def wrapper(self: Emulator, *args: Any, **kwargs: Any) -> Any:
            TRACKER.harvest(self)
            return method(self, *args, **kwargs)

        return wrapper

    init = Emulator.__init__

    @functools.wraps(init)
    def hooked_init(self: Emulator, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        TRACKER.started(self)

    Emulator.__init__ = hooked_init  # type: ignore[method-assign]
    for name in ("close", "clear_requests", "reset"):
        setattr(Emulator, name, before(getattr(Emulator, name)))
    Emulator._conformance_hooked = True  # type: ignore[attr-defined]
