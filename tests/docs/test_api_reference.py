"""The API reference (docs/reference/) documents every public name of escpush, escpush.testing,
escpush.widget and escpush.spark: each page renders its module, read as the site reads it
(griffe, from the `.pyi` stub of the native module and the package's `.py` files), and every
name of the module's `__all__`, and every public member of a public class, has a docstring
there. A name added without one fails here."""

from __future__ import annotations

import importlib
from pathlib import Path

import griffe
import pytest

ROOT = Path(__file__).resolve().parents[2]
MODULES = {"escpush": "escpush", "escpush.testing": "testing", "escpush.widget": "widget", "escpush.spark": "spark"}


def _package() -> griffe.Module:
    return griffe.load("escpush", search_paths=[str(ROOT / "python")], allow_inspection=False, resolve_aliases=True)


def undocumented(module: griffe.Module, names: list[str]) -> list[str]:
    """The names of `module`, and the public members of its classes, that the site would show
    without a docstring."""
    module_name = module.path
    missing = []
    for name in names:
        obj = module[name]
        target = obj.final_target if obj.is_alias else obj
        if not (target.docstring and target.docstring.value.strip()):
            missing.append(f"{module_name}.{name}")
        if target.is_class:
            for member_name, member in target.members.items():
                if member_name.startswith("_"):
                    continue
                member = member.final_target if member.is_alias else member
                if not (member.docstring and member.docstring.value.strip()):
                    missing.append(f"{module_name}.{name}.{member_name}")
    return missing


@pytest.mark.parametrize("module_name", MODULES)
def test_every_public_name_is_documented_on_the_site(module_name: str) -> None:
    page = (ROOT / "docs/reference" / f"{MODULES[module_name]}.md").read_text()
    assert f"::: {module_name}\n" in page
    names = list(importlib.import_module(module_name).__all__)
    assert names
    package = _package()
    module = package if module_name == "escpush" else package[module_name.split(".", 1)[1]]
    assert undocumented(module, names) == []


def test_a_name_without_a_docstring_is_found(tmp_path: Path) -> None:
    """What the check stands on: a public function without a docstring is reported."""
    (tmp_path / "undocumented_pkg").mkdir()
    (tmp_path / "undocumented_pkg/__init__.py").write_text(
        'def documented() -> None:\n    """Said."""\n\n\ndef bare() -> None:\n    pass\n\n\n'
        'class Thing:\n    """A thing."""\n\n    def said(self) -> None:\n        """Said."""\n\n'
        "    def unsaid(self) -> None:\n        pass\n"
    )
    module = griffe.load("undocumented_pkg", search_paths=[str(tmp_path)], allow_inspection=False)
    assert undocumented(module, ["documented", "bare", "Thing"]) == [
        "undocumented_pkg.bare",
        "undocumented_pkg.Thing.unsaid",
    ]
