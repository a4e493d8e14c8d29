# escpush: `make help` lists the targets. Two commands set up a fresh machine:
#   make test    build everything and run every Rust and Python test
#   make demo    build and run the main job against the embedded emulator
# and `make dist` builds what a release publishes (the wheel and the sdist, checked).
.DEFAULT_GOAL := help
SHELL := /bin/bash

VENV    ?= .venv
PYTHON  := $(VENV)/bin/python
export VIRTUAL_ENV := $(abspath $(VENV))
# Cargo's own default; named here so that `make` and maturin share one target dir.
export CARGO_TARGET_DIR ?= $(abspath target)

.PHONY: help
help: ## List the targets
	@grep -hE '^[a-zA-Z_-]+:.*?## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*?## "}; {printf "  \033[36m%-12s\033[0m %s\n", $$1, $$2}'

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PYTHON) -m pip install --quiet --upgrade pip
	$(PYTHON) -m pip install --quiet "maturin>=1.9.4,<2"
	touch $@

.PHONY: venv
venv: $(VENV)/.installed ## Create .venv with maturin

# The test hooks of the native module (tests/client/test_errors.py) are a cargo feature: on here,
# off in wheels (pyproject.toml's [tool.maturin] features).
TEST_FEATURES := test-hooks

.PHONY: develop
develop: $(VENV)/.installed ## Build the extension (debug, with its test hooks) and install escpush and its test deps into .venv
	$(VENV)/bin/maturin develop --quiet --extras test --features $(TEST_FEATURES)

.PHONY: release
release: $(VENV)/.installed ## Build the extension with optimisations into .venv (for benchmarks)
	$(VENV)/bin/maturin develop --quiet --release --extras test

.PHONY: test
test: test-rust test-python ## Build and run every Rust and Python test

.PHONY: test-rust
test-rust: ## Rust tests and the runnable tour example; the core stays free of pyo3 and ureq
	cargo test --workspace --exclude escpush-py --quiet
	cargo test -p escpush-scan --features job --quiet
	cargo run --quiet -p escpush-http --example tour > /dev/null
	@for c in escpush-filter escpush-core; do if cargo tree -p $$c -e normal | grep -E 'pyo3|ureq'; then \
		echo "$$c must not depend on pyo3 or ureq" >&2; exit 1; fi; done
	@if cargo tree -p escpush-scan -e normal | grep -E 'escpush-core'; then \
		echo "escpush-scan with its default features needs the filter language alone (escpush-filter), not escpush-core (only its \`job\` feature, a preview, does)" >&2; exit 1; fi

.PHONY: test-python
test-python: develop ## pytest (includes the stub check and the notebooks)
	# The binding's few pure conversions with unit tests (select's Arrow rows: spark_arrow.rs); the rest is
	# pytest's. Here, not in test-rust: pyo3's build needs the venv's Python, which `develop` makes.
	cargo test -p escpush-py --lib --quiet spark_arrow
	ESCPUSH_REQUIRE_ENGINES=1 $(PYTHON) -m pytest -q   # every engine the test extra installs must be there: none skips

# The demo needs escpush alone: no test extra, no test hooks (a first build compiles the
# Rust crates: about 5 minutes on 2 cores; later ones take seconds).
.PHONY: demo
demo: $(VENV)/.installed ## Build escpush (without the test extra) and run the demo against the embedded emulator
	@test -d $(CARGO_TARGET_DIR)/debug || echo "make demo: the first build compiles the Rust crates (about 5 minutes on 2 cores)"
	$(VENV)/bin/maturin develop --quiet
	$(PYTHON) -m escpush demo

# Release artifacts: the abi3 wheel (one for every CPython from 3.9 on this platform; about 8
# minutes on 2 cores) and the sdist, in dist/, checked by twine as PyPI would render them.
# .github/workflows/release.yml builds the wheels of every platform the same way.
DIST ?= dist

.PHONY: dist
dist: $(VENV)/.installed ## Build the release wheel and the sdist into dist/ and check them with twine
	rm -rf $(DIST)
	$(VENV)/bin/maturin build --quiet --release --out $(DIST)
	$(VENV)/bin/maturin sdist --out $(DIST)
	$(PYTHON) -m pip install --quiet "twine>=6.1"
	$(PYTHON) -m twine check --strict $(DIST)/*

# What a user gets from `pip install escpush`: the wheel of dist/ in an empty venv (no
# test extra, no checkout on the path), its command and its demo.
.PHONY: check-wheel
check-wheel: ## Install dist/*.whl into an empty venv and run escpush from it (after make dist)
	rm -rf $(DIST)/venv
	python3 -m venv $(DIST)/venv
	$(DIST)/venv/bin/python -m pip install --quiet $(DIST)/*.whl
	cd $(DIST) && venv/bin/escpush --version
	cd $(DIST) && venv/bin/escpush filter validate 'EdgeResponseStatus >= 500' --dataset http_requests
	cd $(DIST) && venv/bin/python -c "import escpush, sys; assert escpush.__file__.startswith(sys.prefix), escpush.__file__; print(escpush.field('EdgeResponseStatus') >= 500)"
	cd $(DIST) && venv/bin/escpush demo > /dev/null
	rm -rf $(DIST)/venv

# The reusable crates as crates.io would take them (each built from its package alone).
.PHONY: package-crates
package-crates: ## cargo package escpush-filter, escpush-core, escpush-terraform, escpush-http and escpush-scan (metadata, readme, a build of each)
	@# cargo unpacks the crates it packages under $$CARGO_HOME/registry/src/-<hash of this checkout's
	@# target/package/tmp-registry>/ and reuses an unpacking of the same name and version: a checkout at
	@# the path of an earlier run would verify that run's sources (CI once built the pre-split
	@# escpush-core so). Our own crates' unpackings go first; cargo makes them anew from the .crate files.
	rm -rf "$${CARGO_HOME:-$$HOME/.cargo}"/registry/src/-*/escpush-*
	cargo package --quiet --allow-dirty -p escpush-filter -p escpush-core -p escpush-terraform -p escpush-http -p escpush-scan

# The documentation site (mkdocs.yml, docs/): the `docs` extra into .venv, then a strict build
# into site/ (a warning, a broken link or an unresolved reference fails it). Its generated
# pages are committed and checked by tests/docs; `make docs-pages` writes them anew.
.PHONY: docs
docs: develop ## Build the documentation site strictly into site/ (installs the docs extra)
	$(VENV)/bin/maturin develop --quiet --extras test,docs --features $(TEST_FEATURES)
	NO_MKDOCS_2_WARNING=1 $(PYTHON) -m mkdocs build --strict --quiet

.PHONY: docs-pages
docs-pages: develop ## Write the generated pages of the site (the command line, troubleshooting)
	$(PYTHON) scripts/docs_pages.py

.PHONY: docs-screenshots
docs-screenshots: docs ## Screenshots of the built site's main pages in headless Chromium, into docs/images/site/
	$(PYTHON) scripts/screenshot_docs.py

.PHONY: lint
lint: develop ## rustfmt, clippy (warnings denied), ruff, stub check, mypy --strict
	cargo fmt --all --check
	cargo clippy --workspace --all-targets --features escpush-py/$(TEST_FEATURES) --quiet -- -D warnings
	cargo clippy -p escpush-py --quiet -- -D warnings   # and as wheels build it
	$(PYTHON) -m pip install --quiet "ruff>=0.5"
	$(VENV)/bin/ruff check python tests scripts benches notebooks
	$(VENV)/bin/ruff format --check python tests scripts benches notebooks
	$(PYTHON) -m mypy.stubtest escpush._escpush
	$(PYTHON) -m mypy --strict python/escpush

.PHONY: fmt
fmt: ## Format Rust and Python sources
	cargo fmt --all
	$(PYTHON) -m pip install --quiet "ruff>=0.5"
	$(VENV)/bin/ruff format python tests scripts benches notebooks

.PHONY: bench
bench: $(VENV)/.installed ## Run the committed benchmarks (figures go to stdout)
	$(VENV)/bin/maturin develop --quiet --release --extras test,bench
	$(PYTHON) benches/run.py

.PHONY: clean
clean: ## Remove build outputs and .venv
	cargo clean
	rm -rf $(VENV) $(DIST) site .pytest_cache .ruff_cache .mypy_cache .hypothesis

# The fuzz campaign (not part of `make test`): every cargo-fuzz target of fuzz/ in turn, each
# for FUZZ_RUNS executions, from a scratch corpus (fuzz/corpus/<target>, ignored by git) that
# starts as a copy of the committed seeds (fuzz/seeds/<target>). Needs the nightly toolchain;
# installs cargo-fuzz if it is missing. FUZZ_SANITIZER is address (the default: memory errors
# and leaks) or leak (leaks only, about 2.5 times faster); FUZZ_SECONDS caps each target's
# time (0: no cap). The campaign of RELIABILITY.md:
#   nice -n 10 make fuzz FUZZ_RUNS=10000000 FUZZ_SANITIZER=leak
FUZZ_RUNS      ?= 100000
FUZZ_SECONDS   ?= 0
FUZZ_SANITIZER ?= address
FUZZ_TARGETS   ?= $(sort $(basename $(notdir $(wildcard fuzz/fuzz_targets/*.rs))))
FUZZ_FLAGS     ?= -rss_limit_mb=2048 -timeout=10 -print_final_stats=1

.PHONY: fuzz
fuzz: ## Fuzz every target FUZZ_RUNS times (default 100000; FUZZ_TARGETS to choose), from the seeds
	@command -v cargo-fuzz > /dev/null || cargo install cargo-fuzz --locked
	@set -e; for t in $(FUZZ_TARGETS); do \
		mkdir -p fuzz/corpus/$$t; \
		cp -n fuzz/seeds/$$t/* fuzz/corpus/$$t/ 2> /dev/null || true; \
		start=$$(date +%s); \
		if ! (cd fuzz && CARGO_TARGET_DIR=$(abspath fuzz/target/$(FUZZ_SANITIZER)) cargo +nightly fuzz run \
				-s $(FUZZ_SANITIZER) $$t corpus/$$t -- -runs=$(FUZZ_RUNS) -max_total_time=$(FUZZ_SECONDS) \
				$(FUZZ_FLAGS)) > fuzz/corpus/$$t.log 2>&1; then \
			tail -n 40 fuzz/corpus/$$t.log; echo "fuzz: $$t failed; the input is in fuzz/artifacts/$$t/" >&2; exit 1; \
		fi; \
		echo "$$t: $$(( $$(date +%s) - start )) s wall, $$(grep -E '^#[0-9]+[[:space:]]+DONE' fuzz/corpus/$$t.log | tail -n 1)"; \
	done
