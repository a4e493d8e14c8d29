//! The records of a transformer's local run (`escpush.run_transformer`), written as NDJSON:
//! `_RecordWriter` takes the engine's (DataFusion's) Arrow batches as IPC stream bytes
//! (pyarrow writes them) and appends one line per row, each value by core's rules
//! (`escpush_core::transformer::write_*`: members sorted by name, times RFC 3339 in UTC, a
//! float that holds an integer as one). Conversion only.

use std::fs::File;
use std::io::{BufWriter, Cursor, Write as _};
use std::path::PathBuf;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Date64Type, Decimal128Type, DecimalType, Float16Type, Float32Type, Float64Type, Int16Type, Int32Type,
    Int64Type, Int8Type, TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{Array, RecordBatch};
use arrow_ipc::reader::StreamReader;
use arrow_schema::{DataType, TimeUnit};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use escpush_core::transformer::{write_float, write_string, write_time};

/// Writes a local run's records into one NDJSON file, a batch at a time.
#[pyclass(name = "_RecordWriter", module = "escpush")]
pub(crate) struct RecordWriter {
    path: PathBuf,
    out: Option<BufWriter<File>>,
    line: Vec<u8>,
    records: u64,
}

#[pymethods]
impl RecordWriter {
    #[new]
    fn new(path: PathBuf) -> PyResult<Self> {
        let file =
            File::create(&path).map_err(|e| PyOSError::new_err(format!("cannot write {}: {e}", path.display())))?;
        Ok(RecordWriter {
            path,
            out: Some(BufWriter::with_capacity(1 << 20, file)),
            line: Vec::with_capacity(4096),
            records: 0,
        })
    }

    /// Appends the rows of an Arrow IPC stream (one or more batches); returns how many.
    fn write(&mut self, py: Python<'_>, ipc: &Bound<'_, PyBytes>) -> PyResult<u64> {
        let bytes = ipc.as_bytes();
        let (path, out, line) = (&self.path, &mut self.out, &mut self.line);
        let out = out
            .as_mut()
            .ok_or_else(|| PyValueError::new_err("the record writer is closed"))?;
        let written = py.detach(|| -> Result<u64, String> {
            let reader =
                StreamReader::try_new(Cursor::new(bytes), None).map_err(|e| format!("not an Arrow IPC stream: {e}"))?;
            let mut rows = 0;
            for batch in reader {
                let batch = batch.map_err(|e| format!("not an Arrow IPC stream: {e}"))?;
                rows += write_batch(&batch, line, out).map_err(|e| match e {
                    Failure::Io(e) => format!("cannot write {}: {e}", path.display()),
                    Failure::Type(message) => message,
                })?;
            }
            Ok(rows)
        });
        let written = written.map_err(PyValueError::new_err)?;
        self.records += written;
        Ok(written)
    }

    /// Flushes and closes the file; returns the records written.
    fn close(&mut self) -> PyResult<u64> {
        if let Some(mut out) = self.out.take() {
            out.flush()
                .map_err(|e| PyOSError::new_err(format!("cannot write {}: {e}", self.path.display())))?;
        }
        Ok(self.records)
    }

    fn __repr__(&self) -> String {
        format!(
            "_RecordWriter({:?}, records={}{})",
            self.path.display().to_string(),
            self.records,
            if self.out.is_none() { ", closed" } else { "" }
        )
    }
}

enum Failure {
    Io(std::io::Error),
    Type(String),
}

/// Writes every row of `batch` as a JSON object line, its columns sorted by name.
fn write_batch(batch: &RecordBatch, line: &mut Vec<u8>, out: &mut BufWriter<File>) -> Result<u64, Failure> {
    let schema = batch.schema();
    let mut columns: Vec<(&str, &dyn Array)> = schema
        .fields()
        .iter()
        .zip(batch.columns())
        .map(|(f, c)| (f.name().as_str(), c.as_ref()))
        .collect();
    columns.sort_by(|a, b| a.0.cmp(b.0));
    for (name, column) in &columns {
        writable(column.data_type()).map_err(|t| {
            Failure::Type(format!(
                "the transformer's column `{name}` holds {t}, which escpush cannot write as JSON"
            ))
        })?;
    }
    for row in 0..batch.num_rows() {
        line.clear();
        line.push(b'{');
        for (i, (name, column)) in columns.iter().enumerate() {
            if i > 0 {
                line.push(b',');
            }
            write_string(name, line);
            line.push(b':');
            write_value(*column, row, line);
        }
        line.extend_from_slice(b"}\n");
        out.write_all(line).map_err(Failure::Io)?;
    }
    Ok(batch.num_rows() as u64)
}

/// Whether [`write_value`] writes values of `t`; else the type, to name it.
fn writable(t: &DataType) -> Result<(), String> {
    match t {
        DataType::Null
        | DataType::Boolean
        | DataType::Int8
        | DataType::Int16
        | DataType::Int32
        | DataType::Int64
        | DataType::UInt8
        | DataType::UInt16
        | DataType::UInt32
        | DataType::UInt64
        | DataType::Float16
        | DataType::Float32
        | DataType::Float64
        | DataType::Utf8
        | DataType::LargeUtf8
        | DataType::Utf8View
        | DataType::Timestamp(..)
        | DataType::Date32
        | DataType::Date64
        | DataType::Decimal128(..) => Ok(()),
        DataType::Struct(fields) => fields.iter().try_for_each(|f| writable(f.data_type())),
        DataType::List(item) | DataType::LargeList(item) | DataType::FixedSizeList(item, _) => {
            writable(item.data_type())
        }
        other => Err(format!("Arrow type {other}")),
    }
}

fn int(n: impl std::fmt::Display, out: &mut Vec<u8>) {
    let _ = write!(out, "{n}");
}

/// The value at `row` of `array` (a type [`writable`] accepted) as JSON.
fn write_value(array: &dyn Array, row: usize, out: &mut Vec<u8>) {
    if array.is_null(row) {
        out.extend_from_slice(b"null");
        return;
    }
    match array.data_type() {
        DataType::Boolean => out.extend_from_slice(if array.as_boolean().value(row) {
            b"true"
        } else {
            b"false"
        }),
        DataType::Int8 => int(array.as_primitive::<Int8Type>().value(row), out),
        DataType::Int16 => int(array.as_primitive::<Int16Type>().value(row), out),
        DataType::Int32 => int(array.as_primitive::<Int32Type>().value(row), out),
        DataType::Int64 => int(array.as_primitive::<Int64Type>().value(row), out),
        DataType::UInt8 => int(array.as_primitive::<UInt8Type>().value(row), out),
        DataType::UInt16 => int(array.as_primitive::<UInt16Type>().value(row), out),
        DataType::UInt32 => int(array.as_primitive::<UInt32Type>().value(row), out),
        DataType::UInt64 => int(array.as_primitive::<UInt64Type>().value(row), out),
        DataType::Float16 => write_float(array.as_primitive::<Float16Type>().value(row).to_f64(), out),
        DataType::Float32 => write_float(f64::from(array.as_primitive::<Float32Type>().value(row)), out),
        DataType::Float64 => write_float(array.as_primitive::<Float64Type>().value(row), out),
        DataType::Utf8 => write_string(array.as_string::<i32>().value(row), out),
        DataType::LargeUtf8 => write_string(array.as_string::<i64>().value(row), out),
        DataType::Utf8View => write_string(array.as_string_view().value(row), out),
        DataType::Timestamp(unit, _) => {
            // Arrow keeps an instant in UTC whatever its zone; a time without one is read as UTC.
            let (value, per_second) = match unit {
                TimeUnit::Second => (array.as_primitive::<TimestampSecondType>().value(row), 1),
                TimeUnit::Millisecond => (array.as_primitive::<TimestampMillisecondType>().value(row), 1_000),
                TimeUnit::Microsecond => (array.as_primitive::<TimestampMicrosecondType>().value(row), 1_000_000),
                TimeUnit::Nanosecond => (
                    array.as_primitive::<TimestampNanosecondType>().value(row),
                    1_000_000_000,
                ),
            };
            let nanos = value.rem_euclid(per_second) * (1_000_000_000 / per_second);
            write_time(value.div_euclid(per_second), u32::try_from(nanos).unwrap_or(0), out);
        }
        DataType::Date32 => date(i64::from(array.as_primitive::<Date32Type>().value(row)) * 86_400, out),
        DataType::Date64 => date(array.as_primitive::<Date64Type>().value(row).div_euclid(1_000), out),
        DataType::Decimal128(precision, scale) => {
            let text =
                Decimal128Type::format_decimal(array.as_primitive::<Decimal128Type>().value(row), *precision, *scale);
            // An exact decimal's text is a JSON number; one that holds an integer, as one.
            let text = match text.split_once('.') {
                Some((whole, frac)) if frac.bytes().all(|b| b == b'0') => whole.to_owned(),
                _ => text,
            };
            out.extend_from_slice(text.as_bytes());
        }
        DataType::Struct(_) => {
            let array = array.as_struct();
            let mut members: Vec<(&str, &dyn Array)> = array
                .fields()
                .iter()
                .zip(array.columns())
                .map(|(f, c)| (f.name().as_str(), c.as_ref()))
                .collect();
            members.sort_by(|a, b| a.0.cmp(b.0));
            out.push(b'{');
            for (i, (name, child)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_string(name, out);
                out.push(b':');
                write_value(child, row, out);
            }
            out.push(b'}');
        }
        DataType::List(_) => items(array.as_list::<i32>().value(row).as_ref(), out),
        DataType::LargeList(_) => items(array.as_list::<i64>().value(row).as_ref(), out),
        DataType::FixedSizeList(..) => items(array.as_fixed_size_list().value(row).as_ref(), out),
        // Null, and (unreachable: `writable` refused them first) any other type.
        _ => out.extend_from_slice(b"null"),
    }
}

fn items(values: &dyn Array, out: &mut Vec<u8>) {
    out.push(b'[');
    for i in 0..values.len() {
        if i > 0 {
            out.push(b',');
        }
        write_value(values, i, out);
    }
    out.push(b']');
}

/// A date as `YYYY-MM-DD` (the day of `seconds` since the epoch).
fn date(seconds: i64, out: &mut Vec<u8>) {
    let text = escpush_filter::format_time(seconds.div_euclid(86_400) * 86_400);
    out.push(b'"');
    out.extend_from_slice(&text.as_bytes()[..text.find('T').unwrap_or(text.len())]);
    out.push(b'"');
}
