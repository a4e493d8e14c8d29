"""The build hooks of the documentation site (mkdocs.yml ``hooks:``).

``site_url`` is escpush's own constant (``escpush._docs.SITE_URL``), read from its source so
that the site builds without the extension module; the generated pages (the command line's
reference, troubleshooting) are written before the build reads ``docs/``, from the code.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def site_url() -> str:
    tree = ast.parse((ROOT / "python/escpush/_docs.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "SITE_URL" for t in node.targets):
            return str(ast.literal_eval(node.value))
    raise RuntimeError("python/escpush/_docs.py defines no SITE_URL")


def on_config(config: Any, **_: Any) -> Any:
    config["site_url"] = site_url()
    return config
