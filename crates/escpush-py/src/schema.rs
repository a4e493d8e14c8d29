//! The embedded datasets from Python: `escpush.datasets`, `escpush.dataset_fields`,
//! `escpush.field_operators` (what a filter may do with each field), and
//! `escpush.dataset_schema` (a dataset's columns as the engines that query pushed logs take
//! them, with the types the SQL of `Filter.to_sql` assumes).

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use escpush_filter::{
    create_table, dataset_columns, datasets as core_datasets, Dataset, DatasetScope, Dialect, FieldSchema, Operator,
};

use crate::convert::Text;
use crate::errors;
use crate::filter::{dataset_arg, scope_arg};

/// Formats built in Python (`escpush._presentation.dataset_schema`, by `escpush._schemas`) from
/// the column list this gives, each by its package.
const OBJECT_FORMATS: [&str; 3] = ["pyarrow", "polars", "pyspark"];

/// The columns of `dataset` as `format` gives them: `CREATE TABLE` text for a SQL dialect
/// (`duckdb`, `spark`, `clickhouse`, ...), or a `pyarrow.Schema`, a polars `Schema`, a
/// pyspark `StructType` for `pyarrow`, `polars`, `pyspark`: for those three this gives the
/// columns as `[(name, column type)]`, which `escpush.dataset_schema` (Python) builds the
/// package's object from.
#[pyfunction]
#[pyo3(
    name = "_dataset_schema",
    signature = (dataset, format=Text("duckdb".into()), *, scope=None, table=None),
    text_signature = "(dataset, format='duckdb', *, scope=None, table=None)"
)]
pub fn dataset_schema(
    py: Python<'_>,
    dataset: Text,
    format: Text,
    scope: Option<Text>,
    table: Option<Text>,
) -> PyResult<Bound<'_, PyAny>> {
    let dataset = &*dataset;
    let format = &*format;
    let table = table.as_deref();
    let scope = scope
        .as_deref()
        .map(|s| s.parse::<DatasetScope>().map_err(|e| errors::core_error(py, &e)))
        .transpose()?;
    let ds = Dataset::get(dataset, scope).map_err(|e| errors::core_error(py, &e))?;
    if OBJECT_FORMATS.contains(&format) {
        if table.is_some() {
            return Err(errors::invalid_input(
                py,
                format!("a {format} schema has no table name; leave `table` out"),
            ));
        }
        let columns = dataset_columns(ds)
            .into_iter()
            .map(|(name, col)| PyTuple::new(py, [name, col.as_str()]))
            .collect::<PyResult<Vec<_>>>()?;
        return Ok(columns.into_pyobject(py)?.into_any());
    }
    let dialect: Dialect = format.parse().map_err(|_| {
        errors::invalid_input(
            py,
            format!(
                "`{format}` is not a schema format; use pyarrow, polars, pyspark or a SQL dialect ({})",
                Dialect::ALL.map(Dialect::as_str).join(", ")
            ),
        )
    })?;
    let ddl = create_table(ds, dialect, table).map_err(|e| errors::core_error(py, &e))?;
    Ok(ddl.into_pyobject(py)?.into_any())
}

/// Every SQL dialect core knows, as `(name, (alias, ...))` in core's order: the command
/// line's `--dialect` choices and help, written once (core's `Dialect`).
pub fn sql_dialects(py: Python<'_>) -> PyResult<Bound<'_, PyTuple>> {
    let each = Dialect::ALL
        .into_iter()
        .map(|d| (d.as_str(), PyTuple::new(py, d.aliases())?).into_pyobject(py))
        .collect::<PyResult<Vec<_>>>()?;
    PyTuple::new(py, each)
}

/// The name of the SQL dialect `name` names (a name or an alias, in any case), else
/// `InvalidInput` with core's message; for the command line, which checks `--dialect` as it
/// reads it.
#[pyfunction]
pub fn _sql_dialect(py: Python<'_>, name: Text) -> PyResult<&'static str> {
    name.parse::<Dialect>()
        .map(Dialect::as_str)
        .map_err(|e| errors::core_error(py, &e))
}

/// The names of every embedded Logpush dataset (of one scope, if given).
#[pyfunction]
#[pyo3(signature = (scope=None))]
pub fn datasets(py: Python<'_>, scope: Option<Text>) -> PyResult<Vec<String>> {
    let scope = scope_arg(py, scope.as_deref())?;
    let mut names: Vec<String> = core_datasets()
        .iter()
        .filter(|d| scope.is_none_or(|s| d.scope() == s))
        .map(|d| d.name().to_owned())
        .collect();
    names.sort();
    names.dedup();
    Ok(names)
}

/// The fields of a dataset, name → documented type (`"string"`, `"int"`, `"array[string]"`, ...);
/// `"unknown"` for a field whose type Cloudflare's docs do not give (validation reports it as
/// `untyped_field`).
#[pyfunction]
#[pyo3(signature = (dataset, scope=None))]
pub fn dataset_fields(py: Python<'_>, dataset: Text, scope: Option<Text>) -> PyResult<Py<PyDict>> {
    each_field(py, &dataset, scope.as_deref(), |f| {
        Ok(pyo3::types::PyString::new(py, f.field_type().as_str()).into_any())
    })
}

/// Every field of a dataset → the operators a filter may apply to it, in the order of SPEC
/// table B.1 (core's `FieldSchema::operators`): its type's, none for a field that cannot be
/// filtered or has no documented type.
#[pyfunction]
#[pyo3(signature = (dataset, scope=None))]
pub fn field_operators(py: Python<'_>, dataset: Text, scope: Option<Text>) -> PyResult<Py<PyDict>> {
    each_field(py, &dataset, scope.as_deref(), |f| {
        let ops: Vec<&str> = f.operators().into_iter().map(Operator::as_str).collect();
        ops.into_pyobject(py)
    })
}

/// The fields of the dataset named `dataset`, in the docs' order, each name → `value(field)`.
fn each_field<'py>(
    py: Python<'py>,
    dataset: &str,
    scope: Option<&str>,
    value: impl Fn(&FieldSchema) -> PyResult<Bound<'py, PyAny>>,
) -> PyResult<Py<PyDict>> {
    let ds = dataset_arg(py, Some(dataset), scope)?.expect("a dataset was named");
    let dict = PyDict::new(py);
    for f in ds.fields() {
        dict.set_item(f.name(), value(f)?)?;
    }
    Ok(dict.unbind())
}

/// Every operator as `(name, meaning, takes_a_set)`, in the order of SPEC table B.1 (core's
/// `Operator`): what a form offers and how it reads the value.
pub fn operator_table(py: Python<'_>) -> PyResult<Bound<'_, PyTuple>> {
    let rows = Operator::ALL
        .iter()
        .map(|op| (op.as_str(), op.meaning(), op.takes_set()).into_pyobject(py))
        .collect::<PyResult<Vec<_>>>()?;
    PyTuple::new(py, rows)
}

/// The name among `candidates` closest to `given` (core's did-you-mean rule), or None: for
/// the command line's commands and options.
#[pyfunction]
pub fn _closest(given: &str, candidates: Vec<String>) -> Option<String> {
    let names: Vec<&str> = candidates.iter().map(String::as_str).collect();
    escpush_filter::suggest::closest_name(given, &names).map(str::to_owned)
}
