//! Logpush Transformers (transformers.mdx): a job's SQL stage, checked before upload and run
//! on one record, in core (pure). The one owner of the contract: the client refuses before
//! sending and the emulator answers with the same [`check`]; the emulator's preview endpoint
//! answers [`preview`].
//!
//! - [`check`]: the SQL parsed by sqlparser-rs (the parser Apache DataFusion uses, and so
//!   Cloudflare Pipelines' SQL), held to the contract ([`TRANSFORMER_RULES`], each rule with
//!   its source), every column resolved against the `FROM` dataset's fields (escpush-filter's
//!   embedded schemas) and every expression typed; problems at their line and column, with a
//!   did-you-mean.
//! - [`preview`]: the delivered record(s) of one input record: an interpreter of the
//!   contract's subset (`eval.rs`), SQL's three-valued logic, objects' members sorted by
//!   name as the docs' delivered records are.
//!
//! Files: `rules.rs` (the rules table), `lower.rs` (sqlparser's tree to the checked query),
//! `ir.rs` (the checked query), `eval.rs` (the one-record interpreter); `record.rs` (a
//! transformer's record-level rules, [`RECORD_RULES`]: name, description, code, a job's
//! `transformer_id`, with the API's status of each refusal), `requests.rs` (the endpoints'
//! requests, [`TransformerOp`], and the typed readers of their answers), `to_filter.rs`
//! (between transformers and job filters), `input.rs` (what a local run scans before its
//! engine: the fields the SQL reads, [`CheckedTransformer::input`]), `write.rs` (how a
//! delivered record's values are written: [`write_float`], [`write_time`], [`write_string`]),
//! `line.rs` (the query run on log lines by a local run's scanner workers: [`LineTransformer`]).

mod eval;
mod expr;
mod input;
mod ir;
mod line;
mod lower;
mod record;
mod requests;
mod rules;
#[cfg(test)]
mod tests;
mod to_filter;
mod write;

use std::fmt;

use escpush_filter::{describe_problems, Json, Problem, ProblemCode};
use sqlparser::dialect::GenericDialect;
use sqlparser::parser::{Parser, ParserError};

pub use input::INPUT_FILE_BYTES;
pub use line::{LineError, LineTransformer};
pub use record::{
    code_problem, feature_refusal, job_transformer_refusal, ndjson_refusal, referenced_refusal, RecordRule,
    TransformerRefusal, TransformerSpec, TransformerUpdate, FEATURE_UNAVAILABLE, MAX_DESCRIPTION_BYTES, MAX_NAME_BYTES,
    RECORD_RULES,
};
pub use requests::{
    read_content, read_preview, read_transformer, read_transformer_deleted, read_transformer_list, read_versions,
    AssociatedJob, TransformerOp, TransformerRecord, TransformerVersion,
};
pub use rules::{TransformerRule, SDK_SOURCE, TRANSFORMERS_SOURCE, TRANSFORMER_RULES};
pub use to_filter::FilterForm;
pub use write::{float_json, time_text, write_float, write_string, write_time};

/// The most bytes of SQL a transformer holds: 10 KB (10 × 1,024), the docs' limit
/// (transformers.mdx, Limits: "SQL query size 10 KB", and its API errors: 413 past it).
/// The SDK 5.9's docstrings say 32 KB; escpush enforces the smaller, documented one, with
/// its status, so that nothing it passes is refused by the API for its size: a query the
/// SDK would send between the two is answered 413 by the documented API.
pub const MAX_CODE_BYTES: usize = 10 * 1024;

/// How deep the parser nests expressions before refusing (sqlparser's own guard; the
/// crate's stack-growing `recursive` feature is off).
const RECURSION_LIMIT: usize = 64;

/// A transformer's SQL that passed [`check`]: its dataset and the checked query.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckedTransformer {
    dataset: &'static escpush_filter::Dataset,
    code: String,
    query: ir::Query,
}

impl CheckedTransformer {
    /// The dataset its `FROM` names (the transformer record's `dataset`).
    pub fn dataset(&self) -> &str {
        self.dataset.name()
    }

    /// The dataset's scope (zone or account).
    pub fn scope(&self) -> escpush_filter::DatasetScope {
        self.dataset.scope()
    }

    /// The SQL as given.
    pub fn code(&self) -> &str {
        &self.code
    }

    /// The records the job delivers for one input record (a JSON object): none when the
    /// `WHERE` drops it, one, or several after `unnest`.
    pub fn run(&self, input: &Json) -> Result<Vec<Json>, TransformerProblems> {
        let Json::Object(members) = input else {
            return Err(TransformerProblems::one(Problem::new(
                "input",
                ProblemCode::NotAnObject,
                format!(
                    "a preview's input is one log record, a JSON object, not {}",
                    input.kind()
                ),
            )));
        };
        let rows = eval::run(&self.query, members).map_err(|message| {
            TransformerProblems::one(Problem::new(
                "input",
                ProblemCode::InvalidValue,
                format!("the transformer failed on this record: {message}"),
            ))
        })?;
        Ok(rows
            .into_iter()
            .map(|row| eval::sorted(row.iter().map(|(k, v)| ((*k).to_owned(), eval::to_json(v))).collect()))
            .collect())
    }
}

/// What is wrong with a transformer's SQL: one problem or more, each with its place
/// (`line 3, column 9`), code, message and did-you-mean.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TransformerProblems {
    pub problems: Vec<Problem>,
}

impl TransformerProblems {
    fn one(problem: Problem) -> Self {
        TransformerProblems {
            problems: vec![problem],
        }
    }

    /// The HTTP status the API answers for them: 413 for the size, else 400
    /// (transformers.mdx, API errors).
    pub fn status(&self) -> u16 {
        if self.problems.iter().any(|p| p.code == ProblemCode::TooLarge) {
            413
        } else {
            400
        }
    }
}

impl fmt::Display for TransformerProblems {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&describe_problems("invalid transformer SQL", &self.problems))
    }
}

impl std::error::Error for TransformerProblems {}

/// Checks a transformer's SQL against the contract and its dataset's schema.
pub fn check(code: &str) -> Result<CheckedTransformer, TransformerProblems> {
    let rule = |id: &str| {
        let r = TRANSFORMER_RULES.iter().find(|r| r.id == id).map_or("", |r| r.source);
        format!("rule `{id}`: {r}")
    };
    if code.len() > MAX_CODE_BYTES {
        return Err(TransformerProblems::one(Problem::new(
            "",
            ProblemCode::TooLarge,
            format!(
                "the SQL is {} bytes, more than the {MAX_CODE_BYTES} a transformer holds ({})",
                code.len(),
                rule("size")
            ),
        )));
    }
    let statements = Parser::new(&GenericDialect {})
        .with_recursion_limit(RECURSION_LIMIT)
        .try_with_sql(code)
        .and_then(|mut p| p.parse_statements())
        .map_err(|e| TransformerProblems::one(syntax_problem(&e, code, &rule("syntax"))))?;
    let statement = match statements.as_slice() {
        [one] => one,
        [] => {
            return Err(TransformerProblems::one(Problem::new(
                "",
                ProblemCode::MissingMember,
                format!(
                    "the SQL holds no statement: a transformer is one `SELECT ... FROM <dataset>` ({})",
                    rule("one_select")
                ),
            )))
        }
        [_, second, ..] => {
            use sqlparser::ast::Spanned as _;
            return Err(TransformerProblems::one(Problem::new(
                lower::at(second.span()),
                ProblemCode::Unsupported,
                format!(
                    "a second statement: a transformer is one query ({})",
                    rule("one_statement")
                ),
            )));
        }
    };
    let mut lower = lower::Lower::new();
    let query = lower.statement(statement);
    match (query, lower.dataset) {
        (Some(query), Some(dataset)) if lower.problems.is_empty() => Ok(CheckedTransformer {
            dataset,
            code: code.to_owned(),
            query,
        }),
        _ if !lower.problems.is_empty() => Err(TransformerProblems {
            problems: lower.problems,
        }),
        _ => Err(TransformerProblems::one(Problem::new(
            "",
            ProblemCode::UnknownDataset,
            format!("the query reads no log-push dataset ({})", rule("from_dataset")),
        ))),
    }
}

/// The delivered record(s) of one input record: what the preview endpoint answers.
pub fn preview(code: &str, input: &Json) -> Result<Vec<Json>, TransformerProblems> {
    check(code)?.run(input)
}

/// A parser's error as a problem at its line and column (sqlparser ends its message with
/// `at Line: L, Column: C`; an error at the end of the text, "found: EOF", has none and is
/// placed just past the last character).
fn syntax_problem(error: &ParserError, code: &str, rule: &str) -> Problem {
    let text = match error {
        ParserError::TokenizerError(t) | ParserError::ParserError(t) => t.clone(),
        ParserError::RecursionLimitExceeded => format!("expressions nested deeper than {RECURSION_LIMIT}"),
    };
    let (message, path) = if let Some(at) = text.rfind(" at Line: ") {
        let place = &text[at + " at Line: ".len()..];
        let mut numbers = place.split(", Column: ").map(|n| n.trim().parse::<u64>().unwrap_or(1));
        let line = numbers.next().unwrap_or(1);
        let column = numbers.next().unwrap_or(1);
        (text[..at].to_owned(), format!("line {line}, column {column}"))
    } else {
        let line = code.lines().count().max(1);
        let column = code.lines().last().map_or(0, |l| l.chars().count()) + 1;
        (text, format!("line {line}, column {column}"))
    };
    Problem::new(path, ProblemCode::InvalidSyntax, format!("{message} ({rule})"))
}
