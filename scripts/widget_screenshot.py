"""Renders the filter builder widget (escpush.widget.FilterBuilder) in headless Chromium and
saves a PNG of it: docs/images/filter-builder.png, the picture the README shows.

    .venv/bin/python scripts/widget_screenshot.py [OUT.png]

The widget is opened on a filter with a nested group and an ``in`` list, with a sample of
generated http_requests logs, so that the picture shows the rows, the problems panel, the
limits, the text form, the JSON and what the filter keeps on the sample. It runs the widget's
front end through tests/widget_harness.py (no Jupyter server) and Debian's chromium and
chromedriver (scripts/ensure-chromium.sh installs them if missing).
"""

from __future__ import annotations

import gzip
import io
import json
import os
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from PIL import Image  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as ec  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from escpush import field  # noqa: E402
from escpush.widget import FilterBuilder  # noqa: E402
from widget_harness import Bridge, start_chromium  # noqa: E402

OPEN_LIST = "[data-testid=field-list]:not([hidden])"


def write_sample(folder: Path, lines: int = 20_000) -> Path:
    """A day of log-push batches of http_requests lines, made up but shaped like real ones."""
    rng = random.Random(29)
    hosts = ["www.example.com", "shop.example.com", "api.example.com", "static.example.net", "blog.example.org"]
    countries = ["us", "de", "gb", "fr", "cn", "ru", "br", "in", "jp"]
    paths = ["/", "/health", "/api/v1/orders", "/api/v1/cart", "/static/app.js", "/login", "/search"]
    statuses = [200] * 30 + [301, 304, 404, 404, 500, 502, 503, 504]
    batch = folder / "20261122"
    batch.mkdir(parents=True)
    per_file = lines // 4
    for n in range(4):
        name = f"20261122T{n:02d}0000Z_20261122T{n:02d}5959Z_{n:08x}.log.gz"
        with gzip.open(batch / name, "wt") as out:
            for _ in range(per_file):
                record = {
                    "ClientRequestHost": rng.choice(hosts),
                    "ClientRequestPath": rng.choice(paths),
                    "ClientCountry": rng.choice(countries),
                    "EdgeResponseStatus": rng.choice(statuses),
                    "ClientASN": rng.choice([13335, 15169, 16509, 8075, 4134]),
                    "EdgeResponseBytes": rng.randrange(200, 90_000),
                    "WorkerSubrequest": rng.random() < 0.1,
                }
                out.write(json.dumps(record) + "\n")
    return folder


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "images" / "filter-builder.png"
    out.parent.mkdir(parents=True, exist_ok=True)
    f = (
        field("ClientRequestHost").ends_with(".example.com")
        & (field("EdgeResponseStatus") >= 500)
        & (field("ClientRequestPath").not_starts_with("/health") | field("ClientCountry").is_in(["cn", "ru"]))
    )
    with tempfile.TemporaryDirectory() as tmp:
        write_sample(Path(tmp) / "logs")
        os.chdir(tmp)  # the sample shown as a notebook names it: logs/
        builder = FilterBuilder("http_requests", filter=f, sample="logs/", breakdown="ClientRequestHost", debounce=0.0)
        builder.wait_for_sample(60)
        with Bridge(builder) as bridge:
            driver = start_chromium(ROOT, width=1280, height=1000)
            try:
                driver.get(bridge.url)
                wait = WebDriverWait(driver, 30)
                wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "[data-testid=sample-share]")))
                # The field list open on the last row, as a person sees it while choosing.
                row = driver.find_elements(By.CSS_SELECTOR, "[data-testid=row]")[-1]
                row.find_element(By.CSS_SELECTOR, "[data-testid=field]").click()
                wait.until(ec.visibility_of_element_located((By.CSS_SELECTOR, OPEN_LIST)))
                box = driver.execute_script(
                    "const r = document.querySelector('.ep-builder').getBoundingClientRect();"
                    "const list = document.querySelector(arguments[0]).getBoundingClientRect();"
                    "return [r.left, r.top, r.right, Math.max(r.bottom, list.bottom)];",
                    OPEN_LIST,
                )
                margin = 16
                left, top, right, bottom = (int(v) for v in box)
                driver.set_window_size(right + 2 * margin + 40, bottom + 2 * margin + 160)
                image = Image.open(io.BytesIO(driver.get_screenshot_as_png()))
                image.crop((left - margin, top - margin, right + margin, bottom + margin)).save(out)
            finally:
                driver.quit()
    print(out)


if __name__ == "__main__":
    main()
