"""The package as a whole: version, exports, and the stub file against the built module."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import escpush
from escpush import _escpush

ROOT = Path(__file__).resolve().parents[2]


def test_version_comes_from_cargo_toml() -> None:
    cargo = (ROOT / "Cargo.toml").read_text()
    version = next(line.split('"')[1] for line in cargo.splitlines() if line.startswith("version = "))
    assert escpush.__version__ == version


def test_all_names_exist() -> None:
    for name in escpush.__all__:
        assert hasattr(escpush, name), name


def test_stub_file_matches_the_module() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "escpush._escpush"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_default_limits_are_cores() -> None:
    def conditions(n: int) -> escpush.Filter:
        where = {"or": [{"key": "ClientCountry", "operator": "eq", "value": "cn"}] * n}
        return escpush.Filter.from_dict({"where": where})

    at, over = conditions(escpush.DEFAULT_MAX_OPERATORS), conditions(escpush.DEFAULT_MAX_OPERATORS + 1)
    assert "too_many_operators" not in {p["code"] for p in at.problems()}
    assert "too_many_operators" in {p["code"] for p in over.problems()}
    assert escpush.DEFAULT_MAX_BYTES > 0


def test_the_test_hooks_are_built_for_the_tests_and_left_out_of_wheels() -> None:
    """`_error_kinds` and `_raise_error` are the cargo feature `test-hooks`: `make develop`
    (so `make test` and `make lint`) builds them, wheels do not."""
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib
    maturin = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["maturin"]
    assert "test-hooks" not in maturin.get("features", []), "wheels must not ship the test hooks"
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^TEST_FEATURES := test-hooks$", makefile, re.M), "the Makefile names the feature"
    develop = makefile.split("\ndevelop:", 1)[1].split("\n\n", 1)[0]
    assert "maturin develop" in develop and "--features $(TEST_FEATURES)" in develop, develop
    cargo = (ROOT / "crates" / "escpush-py" / "Cargo.toml").read_text()
    assert re.search(r"^\[features\]\n(#.*\n)*test-hooks = \[\]$", cargo, re.M), "the crate declares it"
    # Under `make test` (and CI) the tests that use them must run, not skip.
    if os.environ.get("CI") or os.environ.get("ESCPUSH_REQUIRE_ENGINES"):
        assert hasattr(_escpush, "_raise_error") and hasattr(_escpush, "_error_kinds"), "build with `make develop`"


def test_no_rust_code_imports_the_python_package_by_name() -> None:
    """Python lends the native module what it calls back (``_register`` in ``escpush/__init__.py``):
    exception classes, ``Job``, renderers, schema builders. A call goes Python → native and
    back through those objects, never through an import of ``escpush.*`` from Rust."""
    by_name = re.compile(r"""import_exception!\s*\(\s*escpush|\.import\(\s*"escpush|intern!\([^)]*"escpush\.""")
    # However the import is spelled (`PyModule::import(py, ...)`, a `const`, `intern!`), its
    # name is a string literal naming the package: none but the classes' `module = "escpush"`
    # (what they are shown as), the transport's log target (the name of a logger, which
    # `logging.getLogger` makes on demand: nothing is imported) and messages.
    literal = re.compile(r'"escpush(\.[A-Za-z_]+)*"')
    log_target = re.compile(r'^pub const LOG_TARGET: &str = "escpush";$')
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in sorted((ROOT / "crates").glob("*/src/**/*.rs"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if not line.lstrip().startswith("//")
        and not log_target.match(line.strip())
        and (by_name.search(line) or (literal.search(line) and not re.search(r'module\s*=\s*"escpush', line)))
    ]
    assert found == []


def test_the_registered_python_side_is_the_documented_one_and_import_stays_lean() -> None:
    code = (
        "import sys, escpush\n"
        "lazy = [m for m in ('escpush._display', 'escpush._schemas', 'escpush.spark') if m in sys.modules]\n"
        "print(lazy)\n"
        "from escpush import errors, Filter\n"
        "try:\n"
        "    Filter.parse('{}')\n"
        "except errors.FilterError as e:\n"
        "    print(type(e) is errors.FilterError, type(e).__module__)\n"
        'print(Filter.parse(\'{"where": {"key": "a", "operator": "eq", "value": 1}}\')._repr_html_()[:19])\n'
        "print('escpush._display' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["[]", "True escpush.errors", '<div class="escpush', "True"], done.stdout


def test_presentation_is_python_calling_native_never_native_calling_python() -> None:
    """Issue 34: the native classes give data; their HTML, DataFrames and plots are Python
    methods (``escpush._presentation``), and the native module is lent no renderer to call."""
    import inspect

    from escpush import EscAssessment, EscStatus, Filter, ScanResult

    shown = {
        Filter: ("_repr_html_", "to_polars", "to_pyspark"),
        ScanResult: ("_repr_html_", "to_pandas", "to_polars", "plot"),
        EscStatus: ("_repr_html_",),
        EscAssessment: ("_repr_html_", "plot"),
    }
    for cls, names in shown.items():
        for name in names:
            method = getattr(cls, name)
            assert inspect.isfunction(method), f"{cls.__name__}.{name} is native: {method!r}"
            assert method.__module__ == "escpush._presentation", (cls, name)
    # What the package still lends: classes, raised or built (no function is called back).
    assert list(inspect.signature(_escpush._register).parameters) == ["errors", "job"]
    # A dataset's schema objects too: native gives the columns, Python builds the object.
    assert escpush.dataset_schema.__module__ == "escpush._presentation"
    columns = _escpush._dataset_schema("http_requests", "polars")
    assert isinstance(columns, list) and ("EdgeResponseStatus", "int") in columns


def test_no_production_file_is_past_750_lines() -> None:
    """Issue 34: a production file past 750 lines is split along a seam of its concepts
    (the binding's logpush.rs was 911: the Logpush class, LogpullOptions, job records, plans;
    core's hcl.rs 985, plan.rs 859, fields.rs 982, the line evaluator's program.rs 790).
    Every crate's sources count up to their ``#[cfg(test)] mod`` (a file's unit tests are
    not production), and a file of tests (``tests.rs``) not at all. Two files are one by
    their nature: the stub of the one native module (stubtest reads it as
    ``escpush._escpush``) and the filter builder's front end (anywidget loads one ES module)."""
    whole = {"python/escpush/_escpush.pyi", "python/escpush/widget/builder.js"}
    rust = [p for p in (ROOT / "crates").glob("*/src/**/*.rs") if p.name != "tests.rs"]
    assert len(rust) > 100, "the crates' sources are where this test looks"

    def production(path: Path) -> int:
        lines = path.read_text(encoding="utf-8").splitlines()
        tests = (i for i, line in enumerate(lines[:-1]) if line == "#[cfg(test)]" and lines[i + 1].startswith("mod "))
        return next(tests, len(lines))

    long = {str(p.relative_to(ROOT)): n for p in rust if (n := production(p)) > 750}
    python = [p for p in (ROOT / "python" / "escpush").rglob("*") if p.suffix in (".py", ".pyi", ".js", ".css")]
    long |= {
        str(p.relative_to(ROOT)): n for p in python if (n := len(p.read_text(encoding="utf-8").splitlines())) > 750
    }
    assert set(long) <= whole, long
