//! `_repr_html_` of the native classes. The HTML is made in one place for every class,
//! native or not: `escpush/_display.py`. This passes it the object and what only the
//! core knows.

use pyo3::prelude::*;

/// Calls the renderer `name` of `escpush._display` with `args`.
pub(crate) fn html<'py, A>(py: Python<'py>, name: &str, args: A) -> PyResult<String>
where
    A: pyo3::call::PyCallArgs<'py>,
{
    py.import("escpush._display")?.getattr(name)?.call1(args)?.extract()
}
