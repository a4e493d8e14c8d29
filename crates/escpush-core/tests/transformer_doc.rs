//! `docs/transformer-rules.md` is the rendering of core's transformer rules (`TRANSFORMER_RULES`,
//! `MAX_CODE_BYTES`, each rule with its source): this test fails when the two differ.
//! `ESCPUSH_BLESS=1 cargo test -p escpush-core --test transformer_doc` writes it again.

mod common;

use std::fmt::Write as _;

use escpush_core::transformer::{MAX_CODE_BYTES, SDK_SOURCE, TRANSFORMERS_SOURCE, TRANSFORMER_RULES};

fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

fn render() -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "# Logpush transformers: the rules of their SQL\n\n\
         A transformer is one SQL query a job runs on every batch before delivery (`{TRANSFORMERS_SOURCE}`). \
         escpush checks it before upload with one owner, core's `transformer::check` \
         (`crates/escpush-core/src/logpush/transformer/`): the client refuses before sending and the emulator \
         answers with the same check. The SQL is parsed by sqlparser-rs 0.62, the parser Apache DataFusion 55 \
         uses (Cloudflare Pipelines' SQL is built on DataFusion), with its generic dialect; names are kept as \
         written. Each problem names its line and column, a code, the rule and its source. This page is \
         generated from the table (`crates/escpush-core/tests/transformer_doc.rs` fails when they differ).\n\n\
         ## The rules\n\n| rule | what it asks | source |\n|---|---|---|\n"
    );
    for r in TRANSFORMER_RULES {
        let _ = writeln!(out, "| `{}` | {} | {} |", r.id, cell(r.rule), cell(r.source));
    }
    let _ = write!(
        out,
        "\n## The size limit\n\n`MAX_CODE_BYTES` = {MAX_CODE_BYTES}: the docs' 10 KB, past which the API answers 413 \
         (transformers.mdx, Limits and API errors). The SDK's docstrings (`{SDK_SOURCE}`) say 32 KB; escpush \
         enforces the smaller, documented limit, so that nothing it passes is refused for its size.\n\n\
         ## Preview\n\n`transformer::preview` (Python `escpush.preview_transformer`) runs the SQL on one record \
         with escpush's own interpreter of the contract's subset (SQL's three-valued logic; objects' members \
         sorted by name, as the docs' delivered records are; `extract(epoch ...)` of a whole second an integer, \
         as the docs deliver `unix_ts`). The docs' two worked examples reproduce exactly (a test of core).\n\n\
         ## Run on local logs\n\n`escpush.run_transformer(code, paths)` and `escpush logpush transformer preview \
         --sample PATHS` run the SQL in escpush's scanner by default (`engine=\"escpush\"`): the same \
         interpreter, `transformer::LineTransformer`, in every worker, each line walked once, the part of the \
         `WHERE` a job filter can say (`CheckedTransformer::prefilter`) first and only the fields the SQL reads \
         taken from a line; a line the query fails on stops the run naming its input and line. \
         `engine=\"datafusion\"` runs it with Apache DataFusion's Python wheel (`pip install \
         'escpush[transform]'`), not the `datafusion` crate behind a cargo feature: the crate and its \
         dependencies take tens of minutes to build on two cores and would add tens of megabytes to every \
         escpush wheel, while DataFusion's wheel is prebuilt and optional (datafusion 55.0.0, manylinux x86_64: \
         a 43.0 MB wheel, 128 MB installed, measured 2026-11-29). DataFusion is the engine whose answers the \
         tests compare: the two engines write the same bytes on SQL that uses every construct the contract \
         allows (`tests/transformer/test_local_run.py`).\n\n\
         ## Between filters and transformers\n\n`Filter.to_transformer(dataset=, fields=)` prints the transformer \
         that delivers what a job with that filter and `field_names` delivers (proven on DataFusion against \
         `Filter.matches`, `tests/sql/test_transformer.py`). The other way, `escpush.transformer_to_filter(code)` \
         reads a transformer that only filters back as a job filter and `field_names`, with a note: the filter is \
         free, a transformer is billed per GB of input (pricing.mdx; the rate is core's `PRICES`).\n"
    );
    out
}

#[test]
fn the_transformer_page_is_the_rules_table() {
    common::page_is_current("docs/transformer-rules.md", &render(), "transformer_doc");
}
