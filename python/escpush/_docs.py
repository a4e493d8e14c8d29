"""Where escpush's documentation site lives: the one place its address is written.

Messages that send a reader to a topic (an extra to install, a page that explains a refusal)
name the page with :func:`page`; ``mkdocs.yml``'s ``site_url`` is set from :data:`SITE_URL` by
the site's build hook (``docs/hooks/site.py``), so that the two never differ.
"""

from __future__ import annotations

SITE_URL = "https://escpush.github.io/escpush/"


def page(name: str, anchor: str = "") -> str:
    """The address of the site's page ``name`` (``"install"``, ``"reference/cli"``), with
    ``#anchor`` when given."""
    return f"{SITE_URL}{name.strip('/')}/" + (f"#{anchor}" if anchor else "")
