"""What a new user has, installing escpush from its wheel with the extras a text names: the
README's blocks (tests/package/test_readme.py) and the notebooks (test_notebooks.py) run with
every other installed package made impossible to import, so that a block needing a package
that no extra named before it provides fails as it would for that user (``ModuleNotFoundError``,
or escpush's ``ImportError`` naming the extra), whatever the test venv holds.

The extras are pyproject.toml's, but the project's own (``test``, ``bench``, ``lint``, ``docs``); a
package is what an extra installs: its requirements and theirs, as the installed metadata
says. An extra is named as ``escpush[name]`` (``escpush[a,b]``), or as `` `[name]` `` after one.
"""

from __future__ import annotations

import importlib.metadata
import re
import sys
from functools import cache
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
OWN_EXTRAS = frozenset({"test", "bench", "lint", "docs"})
_NAMED = re.compile(r"escpush\[([A-Za-z0-9_,-]+)\]|`\[([A-Za-z0-9_,-]+)\]`")


@cache
def user_extras() -> dict[str, tuple[str, ...]]:
    """The extras a user may install: name -> the requirements it adds."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return {k: tuple(v) for k, v in project["optional-dependencies"].items() if k not in OWN_EXTRAS}


def named_extras(text: str) -> set[str]:
    """The user extras ``text`` names."""
    found = {name for match in _NAMED.findall(text) for group in match for name in group.split(",") if name}
    return found & set(user_extras())


def _closure(requirements: list[str], extras: frozenset[str] = frozenset({""})) -> set[str]:
    """The distributions these requirements install (the installed ones; markers evaluated here)."""
    seen: set[str] = set()
    todo = [(Requirement(r), extras) for r in requirements]
    while todo:
        req, active = todo.pop()
        if req.marker is not None and not any(req.marker.evaluate({"extra": e}) for e in active):
            continue
        name = canonicalize_name(req.name)
        if name in seen:
            continue
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        seen.add(name)
        wanted = frozenset({"", *req.extras})
        todo.extend((Requirement(r), wanted) for r in dist.requires or [])
    return seen


@cache
def _installs(extra: str) -> frozenset[str]:
    return frozenset(_closure(list(user_extras()[extra])))


def allowed_distributions(extras: set[str] | frozenset[str], *, also: tuple[str, ...] = ()) -> set[str]:
    """escpush and what it requires, the extras' distributions, and ``also`` (``ipykernel``, for
    a notebook, whose kernel a user has) with what they require."""
    allowed = _closure(["escpush", *also])
    for extra in extras:
        allowed |= _installs(extra)
    return allowed


def blocked_modules(allowed: set[str]) -> list[str]:
    """The installed top-level modules of distributions outside ``allowed`` (a module that
    several distributions share is left alone when one of them is allowed)."""
    blocked = []
    for module, dists in importlib.metadata.packages_distributions().items():
        if module.isidentifier() and not {canonicalize_name(d) for d in dists} & allowed:
            blocked.append(module)
    return sorted(blocked)


# Run before a block: imports of the listed top-level modules fail from then on as if they
# were not installed (modules imported before, as a kernel's own, are left alone).
# ``import_blocker(blocked)`` gives the code; it defines ``_escpush_blocked``, a set the caller
# may change between cells.
_BLOCKER = """
import importlib.util as _importlib_util
import sys as _sys


class _EscpushNotInstalled:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in _escpush_blocked:
            raise ModuleNotFoundError(
                f"No module named {name!r} (not installed by escpush or the extras named before this block)",
                name=name,
            )
        return None


_escpush_blocked = set(BLOCKED)
_sys.meta_path.insert(0, _EscpushNotInstalled())


if not hasattr(_importlib_util.find_spec, "_escpush_real"):
    # A package that is not installed is None to importlib.util.find_spec, which packages
    # use to look for an optional one (pyspark for numpy, when a SparkContext starts); an
    # import of it still raises the message above.
    def _escpush_find_spec(name, package=None, _real=_importlib_util.find_spec):
        if name.partition(".")[0] in _escpush_blocked:
            return None
        return _real(name, package)

    _escpush_find_spec._escpush_real = _importlib_util.find_spec
    _importlib_util.find_spec = _escpush_find_spec
"""


def import_blocker(blocked: list[str]) -> str:
    return _BLOCKER.replace("BLOCKED", repr(sorted(blocked)))
