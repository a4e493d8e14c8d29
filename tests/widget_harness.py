"""A page on loopback that runs the filter builder's front end against its Python widget, with
no Jupyter server: the browser test (tests/widget/test_browser.py) and the screenshot script
(scripts/widget_screenshot.py) use it.

The page loads the widget's ES module as anywidget would, with a model of anywidget's face
(``get``, ``set``, ``save_changes``, ``on``, ``off``, ``send``). What the page saves is handed to
the widget as a kernel hands it a front end's message (ipywidgets' ``_handle_msg``, so
``set_state`` with its property lock); what the widget sends goes through its comm, replaced
here by one that queues the messages for the page to fetch (a long poll). Both ways are the
ipywidgets protocol's ``update`` messages, as in a notebook.
"""

from __future__ import annotations

import json
import logging
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>escpush filter builder</title>
<link rel="icon" href="data:,">
<style>
  body { margin: 0; padding: 24px; background: #eef0f3; }
</style>
<style id="widget-css"></style>
</head>
<body>
<div id="widget"></div>
<script type="module">
const values = await (await fetch("/state")).json();
document.getElementById("widget-css").textContent = values._css || "";
const listeners = new Map();
let pending = {};
let version = 0;
let syncing = Promise.resolve();
const emit = (name) => (listeners.get(`change:${name}`) || []).slice().forEach((cb) => cb());
const model = {
  get: (name) => values[name],
  set: (name, value) => {
    const changed = JSON.stringify(values[name]) !== JSON.stringify(value);
    values[name] = value;
    pending[name] = value;
    if (changed) emit(name);
  },
  save_changes: () => {
    const state = pending;
    pending = {};
    window.harness.sent += 1;
    syncing = syncing.then(() =>
      fetch("/sync", { method: "POST", body: JSON.stringify(state) }).then(() => (window.harness.synced += 1)),
    );
  },
  on: (event, cb) => listeners.set(event, [...(listeners.get(event) || []), cb]),
  off: (event, cb) => listeners.set(event, (listeners.get(event) || []).filter((c) => c !== cb)),
  send: () => {},
};
window.harness = { sent: 0, synced: 0, received: 0, model };
const widget = (await import("/widget.js")).default;
widget.render({ model, el: document.getElementById("widget") });
window.harness.ready = true;
for (;;) {
  let answer;
  try {
    answer = await (await fetch(`/poll?since=${version}`)).json();
  } catch (err) {
    break;  // the harness stopped
  }
  version = answer.version;
  for (const state of answer.updates) {
    for (const [name, value] of Object.entries(state)) {
      const changed = JSON.stringify(values[name]) !== JSON.stringify(value);
      values[name] = value;
      if (changed) emit(name);
    }
    window.harness.received += 1;
  }
}
</script>
</body>
</html>
"""


class _Comm:
    """A comm that queues the widget's ``update`` messages for the page."""

    def __init__(self, bridge: Bridge) -> None:
        self.comm_id = uuid.uuid4().hex
        self._bridge = bridge
        self._on_msg: Any = None

    def send(self, data: dict[str, Any] | None = None, buffers: Any = None, **_: Any) -> None:
        if data and data.get("method") == "update":
            self._bridge.push(data["state"])

    def on_msg(self, callback: Any) -> None:
        self._on_msg = callback

    def handle(self, state: dict[str, Any]) -> None:
        self._on_msg({"content": {"data": {"method": "update", "state": state, "buffer_paths": []}}, "buffers": []})

    def close(self, *_: Any, **__: Any) -> None:
        pass


class _Errors(logging.Handler):
    """What the widget logs as it handles a message (ipywidgets logs an exception there
    instead of raising it): a test fails on any."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(self.format(record))


class Bridge:
    """Serves ``widget`` (an anywidget) to a page on 127.0.0.1; ``url`` once started.
    ``errors`` lists what the widget logged while handling the page's messages."""

    def __init__(self, widget: Any) -> None:
        self.widget = widget
        self._errors = _Errors()
        widget.log.addHandler(self._errors)
        self._updates: list[dict[str, Any]] = []
        self._changed = threading.Condition()
        self._stopping = False
        self._comm = _Comm(self)
        widget.comm = self._comm
        bridge = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _answer(self, body: bytes, kind: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                try:
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the page went away (the test ended) while a poll waited

            def do_GET(self) -> None:
                url = urlparse(self.path)
                if url.path == "/":
                    self._answer(PAGE.encode(), "text/html; charset=utf-8")
                elif url.path == "/widget.js":
                    self._answer(str(bridge.widget._esm).encode(), "text/javascript; charset=utf-8")
                elif url.path == "/state":
                    state = bridge.widget.get_state()
                    state["_css"] = str(bridge.widget._css)
                    self._answer(json.dumps(state).encode(), "application/json")
                elif url.path == "/poll":
                    since = int(parse_qs(url.query).get("since", ["0"])[0])
                    version, updates = bridge.wait(since, timeout=5.0)
                    self._answer(json.dumps({"version": version, "updates": updates}).encode(), "application/json")
                else:
                    self.send_error(404)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                state = json.loads(self.rfile.read(length))
                bridge._comm.handle(state)
                self._answer(b"{}", "application/json")

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/"

    @property
    def errors(self) -> list[str]:
        return list(self._errors.records)

    def push(self, state: dict[str, Any]) -> None:
        with self._changed:
            self._updates.append(state)
            self._changed.notify_all()

    def wait(self, since: int, timeout: float) -> tuple[int, list[dict[str, Any]]]:
        with self._changed:
            self._changed.wait_for(lambda: len(self._updates) > since or self._stopping, timeout)
            return len(self._updates), self._updates[since:]

    def __enter__(self) -> Bridge:  # noqa: PYI034 - a final class
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        with self._changed:
            self._stopping = True
            self._changed.notify_all()
        self._server.shutdown()
        self._server.server_close()
        self.widget.log.removeHandler(self._errors)


def chromium_paths(root: Path) -> tuple[str, str]:
    """Debian's chromium and chromedriver, installed by scripts/ensure-chromium.sh if missing."""
    import shutil
    import subprocess

    out = subprocess.run(
        ["bash", str(root / "scripts" / "ensure-chromium.sh")], check=True, capture_output=True, text=True
    )
    chromium = out.stdout.strip().splitlines()[-1]
    driver = shutil.which("chromedriver")
    assert driver, "scripts/ensure-chromium.sh installed no chromedriver"
    return chromium, driver


def start_chromium(root: Path, width: int = 1280, height: int = 900) -> Any:
    """A headless Chromium driven by selenium (no download: Debian's browser and driver)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium, driver = chromium_paths(root)
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        f"--window-size={width},{height}",
        "--force-device-scale-factor=1",
        "--hide-scrollbars",
    ):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(executable_path=driver), options=options)
