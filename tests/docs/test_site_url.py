"""The site's address is written once (escpush._docs.SITE_URL): the site's build takes it from
there, and the messages that send a reader to a page name an existing page and heading."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import escpush._docs as docs

ROOT = Path(__file__).resolve().parents[2]


def _slug(heading: str) -> str:
    """The anchor Python-Markdown's toc gives a heading."""
    text = re.sub(r"[`*]", "", heading).strip().lower()
    return re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", text))


def test_the_site_build_takes_its_address_from_the_package() -> None:
    spec = importlib.util.spec_from_file_location("site_hook", ROOT / "docs/hooks/site.py")
    assert spec and spec.loader
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    assert hook.on_config({"site_url": None})["site_url"] == docs.SITE_URL
    assert not re.search(r"^site_url:", (ROOT / "mkdocs.yml").read_text(), flags=re.M)
    host = docs.SITE_URL.split("//")[1].split("/")[0]
    written = [p for p in (ROOT / "python").rglob("*.py") if host in p.read_text()]
    assert written == [ROOT / "python/escpush/_docs.py"]


def test_every_page_a_message_names_exists_with_its_heading() -> None:
    calls = [
        m.groups()
        for p in (ROOT / "python").rglob("*.py")
        for m in re.finditer(r"\b_?page\(\s*'([\w/-]+)'(?:,\s*'([\w-]+)')?\)", p.read_text())
    ]
    assert len(calls) >= 2
    for name, anchor in calls:
        page = ROOT / "docs" / f"{name}.md"
        assert page.exists(), name
        if anchor:
            headings = re.findall(r"^#+ (.+)$", page.read_text(), flags=re.M)
            assert anchor in {_slug(h) for h in headings}, (name, anchor)


def test_a_missing_extra_names_the_page_of_the_extras() -> None:
    code = (
        "import sys; sys.modules['pandas'] = None\n"
        "import escpush\n"
        "try:\n"
        "    escpush.field('A').__eq__(1).scan('-').to_pandas()\n"
        "except ImportError as err:\n"
        "    print(err)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, input="", check=True)
    assert "pip install 'escpush[pandas]'" in done.stdout, done.stdout + done.stderr
    assert docs.page("install", "the-extras") in done.stdout, done.stdout


def test_the_command_line_help_names_the_site_and_the_esc_page(capsys: object) -> None:
    """`escpush --help` ends with the site's address, and `escpush esc --help` says ESC is
    deprecated with the address of the page that says more."""
    import pytest

    from escpush.cli import main

    for argv, address in ((["--help"], docs.SITE_URL), (["esc", "--help"], docs.page("esc"))):
        with pytest.raises(SystemExit):
            main(argv)
        out = capsys.readouterr().out  # type: ignore[attr-defined]
        assert address in out, out
    assert "deprecated" in out


def test_the_readme_links_into_the_site_at_existing_pages() -> None:
    """The README (the landing page, on PyPI too) links into the site at its address: each link
    names a page of docs/ (and a heading of it), so a page renamed breaks this, not a reader."""
    readme = (ROOT / "README.md").read_text()
    links = re.findall(re.escape(docs.SITE_URL) + r"([\w/-]*?)/?(?:#([\w-]+))?\)", readme)
    assert len(links) >= 10
    for name, anchor in links:
        page = ROOT / "docs" / (f"{name}.md" if name else "index.md")
        assert page.exists(), name
        if anchor:
            headings = re.findall(r"^#+ (.+)$", page.read_text(), flags=re.M)
            assert anchor in {_slug(h) for h in headings}, (name, anchor)
    other = {m for m in re.findall(r"https://[\w.]+\.github\.io/[\w/-]*", readme)}
    assert all(url.startswith(docs.SITE_URL) for url in other), other
