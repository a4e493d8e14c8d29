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
mod display;
mod emulator;
mod errors;
mod esc;
mod field;
mod filter;
mod logpush;
mod scan;
mod schema;

#[pymodule]
fn _escpush(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<filter::PyFilter>()?;
    m.add_class::<field::PyField>()?;
    m.add_class::<logpush::PyLogpullOptions>()?;
    m.add_class::<logpush::PyLogpush>()?;
    m.add_function(wrap_pyfunction!(logpush::redact_destination_conf, m)?)?;
    m.add_function(wrap_pyfunction!(logpush::_redact_job, m)?)?;
    m.add_function(wrap_pyfunction!(logpush::_job_filter, m)?)?;
    // Rules the CLI and the displays show or build on, from core so they are written once.
    let limits = escpush_core::Limits::default();
    m.add("DEFAULT_MAX_OPERATORS", limits.max_operators)?;
    m.add("DEFAULT_MAX_BYTES", limits.max_bytes)?;
    m.add("_JOB_FIELDS", logpush::job_field_table(m.py())?)?;
    // What is secret and how it is shown (core's redact module), for the displays.
    m.add("_MASK", escpush_core::MASK)?;
    m.add(
        "_SECRET_BODY_KEYS",
        pyo3::types::PyTuple::new(m.py(), escpush_core::redact::secret_body_keys())?,
    )?;
    m.add(
        "_SECRET_HEADERS",
        pyo3::types::PyTuple::new(m.py(), escpush_core::redact::SECRET_HEADERS)?,
    )?;
    m.add("_ESC_COOKIE_NAME", escpush_core::ESC_COOKIE_NAME)?;
    m.add_class::<scan::PyScanResult>()?;
    m.add_function(wrap_pyfunction!(field::field, m)?)?;
    m.add_function(wrap_pyfunction!(schema::datasets, m)?)?;
    m.add_function(wrap_pyfunction!(schema::dataset_fields, m)?)?;
    m.add_class::<client::PyClient>()?;
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
    // Test hooks: every Rust error variant raised through the one mapping in errors.rs.
    m.add_function(wrap_pyfunction!(errors::_error_kinds, m)?)?;
    m.add_function(wrap_pyfunction!(errors::_raise_error, m)?)?;
    m.add_function(wrap_pyfunction!(schema::dataset_schema, m)?)?;
    // The strict reader of documents a person writes (apply files), for the CLI.
    m.add_function(wrap_pyfunction!(convert::_load_json, m)?)?;
    Ok(())
}
