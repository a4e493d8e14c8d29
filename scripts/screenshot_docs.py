"""Screenshots of the built documentation site's main pages (`make docs-screenshots`, after
`make docs`): headless Chromium (Debian's, installed by scripts/ensure-chromium.sh when missing)
renders each page of site/ from a loopback server, light and dark, into docs/images/site/.

    python scripts/screenshot_docs.py [--out DIR] [--width 1280] [--height 1000]
"""

from __future__ import annotations

import argparse
import functools
import http.server
import subprocess
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The main pages: the landing page, a guide, a generated page, the API reference.
PAGES = {
    "home": "",
    "first-filter": "first-filter/",
    "scanning": "scanning/",
    "troubleshooting": "troubleshooting/",
    "api-reference": "reference/escpush/",
    "cli-reference": "reference/cli/",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=ROOT / "site")
    parser.add_argument("--out", type=Path, default=ROOT / "docs/images/site")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=1000)
    args = parser.parse_args()
    if not (args.site / "index.html").exists():
        raise SystemExit(f"no built site in {args.site}: run `make docs` first")
    chromium = subprocess.run(
        ["bash", str(ROOT / "scripts/ensure-chromium.sh")], check=True, capture_output=True, text=True
    ).stdout.strip()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(args.site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    args.out.mkdir(parents=True, exist_ok=True)
    try:
        for name, path in PAGES.items():
            for scheme in ("light", "dark"):
                out = args.out / f"{name}-{scheme}.png"
                with tempfile.TemporaryDirectory() as profile:
                    subprocess.run(
                        [
                            chromium,
                            "--headless",
                            "--no-sandbox",
                            "--disable-gpu",
                            "--hide-scrollbars",
                            f"--user-data-dir={profile}",
                            f"--window-size={args.width},{args.height}",
                            f"--force-dark-mode={'true' if scheme == 'dark' else 'false'}",
                            "--blink-settings=preferredColorScheme=" + ("0" if scheme == "dark" else "1"),
                            "--virtual-time-budget=3000",
                            f"--screenshot={out}",
                            f"http://127.0.0.1:{server.server_port}/{path}",
                        ],
                        check=True,
                        capture_output=True,
                        timeout=120,
                    )
                print(out.relative_to(ROOT) if out.is_relative_to(ROOT) else out)
    finally:
        server.shutdown()


if __name__ == "__main__":
    main()
