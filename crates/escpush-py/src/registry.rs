//! What the Python package lends the native module: its exception classes and `Job`, classes
//! the native module raises or builds (no function is called back). Presentation is not lent: `_repr_html_`, the
//! DataFrames and the plots are Python methods that `escpush/_presentation.py` puts on the
//! native classes, which give their data as plain values (Python calls native, not back). `escpush/__init__.py` hands them
//! over once, at import, through `_register(...)`; nothing here imports the package by name,
//! so a call goes Python → native and back only through objects Python gave.
//!
//! The classes stay defined in Python (`escpush/errors.py`, `escpush/_job.py`), their
//! documented home: there they inherit from both `EscpushError` and `ValueError`, carry their
//! methods and pickle under their own `__module__`.

use std::sync::{Arc, RwLock};

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyType};
use pyo3::PyErrArguments;

/// The exception classes the native module raises, each defined in `escpush/errors.py`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ErrorClass {
    Escpush,
    Filter,
    InvalidInput,
    Api,
    Authentication,
    NotFound,
    RateLimit,
    Server,
    Transport,
    Scan,
    Terminated,
}

impl ErrorClass {
    const ALL: [ErrorClass; 11] = [
        ErrorClass::Escpush,
        ErrorClass::Filter,
        ErrorClass::InvalidInput,
        ErrorClass::Api,
        ErrorClass::Authentication,
        ErrorClass::NotFound,
        ErrorClass::RateLimit,
        ErrorClass::Server,
        ErrorClass::Transport,
        ErrorClass::Scan,
        ErrorClass::Terminated,
    ];

    /// The class's name in `escpush.errors`, the key `_register(errors=...)` gives it under.
    const fn name(self) -> &'static str {
        match self {
            ErrorClass::Escpush => "EscpushError",
            ErrorClass::Filter => "FilterError",
            ErrorClass::InvalidInput => "InvalidInput",
            ErrorClass::Api => "ApiError",
            ErrorClass::Authentication => "AuthenticationError",
            ErrorClass::NotFound => "NotFoundError",
            ErrorClass::RateLimit => "RateLimitError",
            ErrorClass::Server => "ServerError",
            ErrorClass::Transport => "TransportError",
            ErrorClass::Scan => "ScanError",
            ErrorClass::Terminated => "Terminated",
        }
    }

    /// An exception of this class with `args`, raised lazily (as `new_err`).
    pub(crate) fn new_err<A>(self, py: Python<'_>, args: A) -> PyErr
    where
        A: PyErrArguments + Send + Sync + 'static,
    {
        match Registry::get() {
            Ok(r) => PyErr::from_type(r.errors[self as usize].bind(py).clone(), args),
            Err(e) => e,
        }
    }

    /// Whether `err` is an instance of this class.
    pub(crate) fn is_instance(self, py: Python<'_>, err: &PyErr) -> bool {
        Registry::get().is_ok_and(|r| err.is_instance(py, r.errors[self as usize].bind(py)))
    }
}

/// Everything `_register` hands over.
#[derive(Debug)]
pub(crate) struct Registry {
    /// Indexed by [`ErrorClass`].
    errors: Vec<Py<PyType>>,
    /// `escpush.Job`: a stored job as Python sees it.
    pub(crate) job: Py<PyAny>,
}

/// Set by `_register` (again on a reload of the package, which makes new classes).
static REGISTRY: RwLock<Option<Arc<Registry>>> = RwLock::new(None);

impl Registry {
    /// What the package registered, or the error to raise when it has not (the native
    /// module used before `import escpush` finished).
    pub(crate) fn get() -> PyResult<Arc<Registry>> {
        let held = REGISTRY.read().unwrap_or_else(std::sync::PoisonError::into_inner);
        held.clone().ok_or_else(|| {
            PyRuntimeError::new_err("escpush._escpush is used before `import escpush` registered its Python side")
        })
    }
}

/// Called once by `escpush/__init__.py`: the exception classes by name (every class of
/// [`ErrorClass`], or a `KeyError` naming the one missing) and `Job`.
#[pyfunction]
#[pyo3(signature = (*, errors, job))]
pub fn _register(errors: &Bound<'_, PyDict>, job: Py<PyAny>) -> PyResult<()> {
    let errors = ErrorClass::ALL
        .iter()
        .map(|class| {
            let value = errors
                .get_item(class.name())?
                .ok_or_else(|| pyo3::exceptions::PyKeyError::new_err(class.name()))?;
            Ok(value.cast_into::<PyType>()?.unbind())
        })
        .collect::<PyResult<Vec<_>>>()?;
    let registry = Registry { errors, job };
    *REGISTRY.write().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Arc::new(registry));
    Ok(())
}

/// `escpush.Job(dict)`.
pub(crate) fn job(py: Python<'_>, dict: Py<PyAny>) -> PyResult<Py<PyAny>> {
    Registry::get()?.job.call1(py, (dict,))
}
