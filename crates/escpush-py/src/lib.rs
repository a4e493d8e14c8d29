//! The native module `escpush._escpush`. It converts between Python and the Rust
//! crates and nothing more: escpush-core decides, escpush-http moves bytes.
#![forbid(unsafe_code)]
// pyo3 hands every argument over by value: a `convert::Text` (a `str` argument checked for
// lone surrogates) or `convert::Int` is owned even where it is only read.
#![allow(clippy::needless_pass_by_value)]

use pyo3::prelude::*;

mod assess;
mod client;
mod convert;
mod cost;
mod delivery;
mod emulator;
mod errors;
mod esc;
mod field;
mod filter;
mod job;
mod logging;
mod logpull_options;
mod logpush;
mod plan;
mod preview;
mod registry;
mod scan;
mod scan_result;
mod schema;
mod signals;
mod spark;
mod spark_arrow;
mod transformer;
mod transformer_records;
mod transformer_sql;

/// Transformers: the API's (`account.logpush.transformers` and its record) and the SQL's
/// (check, preview, the way back to a filter, the local run's prefilter).
fn transformers(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<transformer::PyTransformers>()?;
    m.add_class::<transformer::PyTransformer>()?;
    m.add_function(wrap_pyfunction!(transformer_sql::check_transformer, m)?)?;
    m.add_function(wrap_pyfunction!(transformer_sql::preview_transformer, m)?)?;
    m.add_function(wrap_pyfunction!(transformer_sql::transformer_to_filter, m)?)?;
    m.add_function(wrap_pyfunction!(transformer_sql::_transformer_prefilter, m)?)?;
    m.add_function(wrap_pyfunction!(transformer_sql::_transformer_input, m)?)?;
    m.add_function(wrap_pyfunction!(transformer_sql::_transformer_run, m)?)?;
    m.add_class::<transformer_records::RecordWriter>()
}

#[pymodule]
fn _escpush(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // The Python side (exception classes, `Job`, renderers), lent by `escpush/__init__.py`.
    m.add_function(wrap_pyfunction!(registry::_register, m)?)?;
    m.add_class::<filter::PyFilter>()?;
    m.add_class::<field::PyField>()?;
    m.add_class::<logpull_options::PyLogpullOptions>()?;
    m.add_class::<logpush::PyLogpush>()?;
    transformers(m)?;
    // What a job costs (core's pricing): the table, a sample's month, an account's sum.
    m.add_class::<cost::PyPricing>()?;
    m.add_class::<cost::PyCost>()?;
    m.add_class::<cost::PyCostChange>()?;
    m.add_function(wrap_pyfunction!(cost::project_cost, m)?)?;
    m.add_function(wrap_pyfunction!(cost::account_cost, m)?)?;
    m.add_function(wrap_pyfunction!(cost::monthly_cost, m)?)?;
    m.add_function(wrap_pyfunction!(cost::_format_gb, m)?)?;
    m.add_function(wrap_pyfunction!(job::redact_destination_conf, m)?)?;
    m.add_function(wrap_pyfunction!(job::_redact_job, m)?)?;
    m.add_function(wrap_pyfunction!(job::_job_filter, m)?)?;
    m.add_function(wrap_pyfunction!(plan::check_terraform_plan, m)?)?;
    // Rules the CLI and the displays show or build on, from core so they are written once.
    let limits = escpush_filter::Limits::default();
    m.add("DEFAULT_MAX_OPERATORS", limits.max_operators)?;
    m.add("DEFAULT_MAX_BYTES", limits.max_bytes)?;
    m.add("_JOB_FIELDS", job::job_field_table(m.py())?)?;
    // The export formats and filter forms (core's names), the CLI's `--format` and `--filter-form` choices.
    m.add(
        "_EXPORT_FORMATS",
        pyo3::types::PyTuple::new(m.py(), escpush_terraform::ExportFormat::NAMES)?,
    )?;
    m.add(
        "_FILTER_FORMS",
        pyo3::types::PyTuple::new(m.py(), escpush_terraform::FilterForm::NAMES)?,
    )?;
    // A scan's most worker threads (escpush-scan's), the CLI's `--threads` range.
    m.add("_MAX_SCAN_THREADS", escpush_scan::MAX_THREADS)?;
    // How a secret is shown (escpush-filter's mask), for the displays.
    m.add("_MASK", escpush_filter::MASK)?;
    m.add(
        "_SECRET_BODY_KEYS",
        pyo3::types::PyTuple::new(m.py(), escpush_core::secret_body_keys())?,
    )?;
    m.add(
        "_SECRET_HEADERS",
        pyo3::types::PyTuple::new(m.py(), escpush_core::SECRET_HEADERS)?,
    )?;
    m.add("_ESC_COOKIE_NAME", escpush_core::ESC_COOKIE_NAME)?;
    // The transport's log target, the name of the Python logger its events go to.
    m.add("_LOG_TARGET", escpush_http::LOG_TARGET)?;
    // The command line's default account, and core's did-you-mean for its commands and options.
    m.add("_ENV_ACCOUNT_ID", escpush_http::ENV_ACCOUNT_ID)?;
    m.add_function(wrap_pyfunction!(schema::_closest, m)?)?;
    // The scopes' names, zone first: the CLI's `--scope` choices.
    let scopes: Vec<&str> = escpush_filter::DatasetScope::ALL.iter().map(|k| k.as_str()).collect();
    m.add("_SCOPES", pyo3::types::PyTuple::new(m.py(), scopes)?)?;
    // Every endpoint, its name to `METHOD /{scope}/template`: what the CLI's help names.
    let endpoints = pyo3::types::PyDict::new(m.py());
    for e in escpush_core::Endpoint::ALL {
        endpoints.set_item(format!("{e:?}"), format!("{} {}", e.method(), e.template()))?;
    }
    m.add("_ENDPOINTS", endpoints)?;
    m.add_class::<scan::PyScanResult>()?;
    m.add_class::<preview::PyPreviewResult>()?;
    m.add_function(wrap_pyfunction!(preview::preview_job, m)?)?;
    m.add_function(wrap_pyfunction!(scan_result::_percents, m)?)?;
    spark::register(m)?;
    m.add_function(wrap_pyfunction!(field::field, m)?)?;
    m.add_function(wrap_pyfunction!(schema::datasets, m)?)?;
    m.add_function(wrap_pyfunction!(schema::dataset_fields, m)?)?;
    m.add_function(wrap_pyfunction!(schema::field_operators, m)?)?;
    // The operators with their meaning and value shape (core's), for the widget's form.
    m.add("_OPERATORS", schema::operator_table(m.py())?)?;
    m.add_class::<client::PyClient>()?;
    // The client's defaults and range, escpush-http's builder's, for `help()`, the stub's
    // test and the command line's options.
    m.add("DEFAULT_TIMEOUT", escpush_http::DEFAULT_TIMEOUT.as_secs_f64())?;
    m.add("DEFAULT_MAX_RETRIES", escpush_http::DEFAULT_MAX_RETRIES)?;
    // The assessment's waits (core's), for `esc assess`'s options.
    m.add("_DEFAULT_SETTLE", escpush_core::DEFAULT_SETTLE_SECS)?;
    m.add("_DEFAULT_FETCH_TIMEOUT", escpush_core::DEFAULT_FETCH_TIMEOUT_SECS)?;
    m.add("MAX_RETRIES", escpush_http::MAX_RETRIES)?;
    m.add(
        "_DEFAULT_RETRY_BACKOFF",
        escpush_http::DEFAULT_RETRY_BACKOFF.as_secs_f64(),
    )?;
    m.add(
        "_DEFAULT_MAX_RETRY_AFTER",
        escpush_http::DEFAULT_MAX_RETRY_AFTER.as_secs_f64(),
    )?;
    m.add_function(wrap_pyfunction!(client::_check_client_settings, m)?)?;
    m.add_class::<client::PyScope>()?;
    m.add_class::<client::PyZone>()?;
    m.add_class::<client::PyAccount>()?;
    m.add_class::<esc::PyEsc>()?;
    m.add_class::<esc::PyEscStatus>()?;
    m.add_class::<esc::PyEscDisabled>()?;
    m.add_function(wrap_pyfunction!(esc::esc_cookie, m)?)?;
    m.add_class::<emulator::PyEmulatorServer>()?;
    m.add_class::<assess::PyEscAssessment>()?;
    m.add(
        "_ESC_IGNORED_HEADERS",
        pyo3::types::PyTuple::new(m.py(), escpush_core::DEFAULT_IGNORED_HEADERS)?,
    )?;
    m.add_function(wrap_pyfunction!(assess::esc_replacements, m)?)?;
    // SIGTERM and SIGHUP as `escpush.Terminated`, for the command line's own states.
    m.add_class::<signals::PyTerminating>()?;
    // Test hooks (the `test-hooks` feature, off in wheels): every Rust error variant raised
    // through the one mapping in errors.rs.
    #[cfg(feature = "test-hooks")]
    errors::hooks::register(m)?;
    m.add_function(wrap_pyfunction!(schema::dataset_schema, m)?)?;
    // The SQL dialects and their aliases (core's), for `escpush filter sql --dialect`.
    m.add("_SQL_DIALECTS", schema::sql_dialects(m.py())?)?;
    m.add_function(wrap_pyfunction!(schema::_sql_dialect, m)?)?;
    // The strict reader of documents a person writes (apply files), for the CLI.
    m.add_function(wrap_pyfunction!(convert::_load_json, m)?)?;
    Ok(())
}
