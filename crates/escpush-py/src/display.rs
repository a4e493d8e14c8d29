//! `_repr_html_` of the native classes. The HTML is made in one place for every class,
//! native or not: `escpush/_display.py`, whose renderers the package registers at import
//! (`render_html`, see `registry.rs`). This passes it the object and what only the core
//! knows.

use pyo3::prelude::*;
use pyo3::types::PyTuple;
use pyo3::BoundObject;

use crate::registry::Registry;

/// The HTML of the renderer `name` of `escpush._display` called with `args`.
pub(crate) fn html<'py, A>(py: Python<'py>, name: &str, args: A) -> PyResult<String>
where
    A: IntoPyObject<'py, Target = PyTuple>,
    A::Error: Into<PyErr>,
{
    let args: Bound<'py, PyTuple> = args.into_pyobject(py).map_err(Into::into)?.into_bound();
    Registry::get()?.render_html.call1(py, (name, args))?.extract(py)
}
