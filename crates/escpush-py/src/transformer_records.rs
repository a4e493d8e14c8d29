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
use arrow_array::{Array, ArrayRef, BooleanArray, OffsetSizeTrait, PrimitiveArray, RecordBatch};
use arrow_ipc::reader::StreamReader;
use arrow_schema::{DataType, Fields, TimeUnit};
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
    let columns = members(schema.fields(), batch.columns()).map_err(|(name, t)| {
        Failure::Type(format!(
            "the transformer's column `{name}` holds {t}, which escpush cannot write as JSON"
        ))
    })?;
    for row in 0..batch.num_rows() {
        line.clear();
        object(&columns, row, line);
        line.push(b'\n');
        out.write_all(line).map_err(Failure::Io)?;
    }
    Ok(batch.num_rows() as u64)
}

/// A member of an object as written: `"name":`, and its value's encoder.
type Member<'a> = (Vec<u8>, Enc<'a>);

/// The encoders of an object's members (a batch's columns, a struct's fields), sorted by
/// name; else the member whose type escpush does not write, and that type.
fn members<'a>(fields: &'a Fields, arrays: &'a [ArrayRef]) -> Result<Vec<Member<'a>>, (&'a str, String)> {
    let mut members = fields
        .iter()
        .zip(arrays)
        .map(|(field, array)| match Enc::new(array.as_ref()) {
            Ok(enc) => Ok((key(field.name()), enc)),
            Err(t) => Err((field.name().as_str(), t)),
        })
        .collect::<Result<Vec<_>, _>>()?;
    members.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(members)
}

/// The encoder of a list or a large list: its offsets and its values' encoder.
fn list<O: OffsetSizeTrait>(array: &dyn Array) -> Result<Enc<'_>, String> {
    let l = array.as_list::<O>();
    let offsets = l.value_offsets().iter().map(|o| o.as_usize()).collect();
    Ok(Enc::List(array, offsets, Box::new(Enc::new(l.values().as_ref())?)))
}

/// The object of row `row`: each member (sorted by name) and its value.
fn object(members: &[Member<'_>], row: usize, out: &mut Vec<u8>) {
    out.push(b'{');
    for (i, (name, member)) in members.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(name);
        member.write(row, out);
    }
    out.push(b'}');
}

/// A member's name as written before its value: `"name":`.
fn key(name: &str) -> Vec<u8> {
    let mut text = Vec::with_capacity(name.len() + 3);
    write_string(name, &mut text);
    text.push(b':');
    text
}

/// How one array's values are written, made once per batch (the downcasts, a struct's sorted
/// members) and then asked for each row.
enum Enc<'a> {
    Null,
    Bool(&'a BooleanArray),
    Int(&'a dyn Array, fn(&dyn Array, usize, &mut Vec<u8>)),
    Float(&'a dyn Array, fn(&dyn Array, usize) -> f64),
    Str(&'a dyn Array, fn(&dyn Array, usize) -> &str),
    /// A timestamp: its values, and how many a second.
    Time(PrimitiveArray<Int64Type>, i64),
    /// A date: its values as seconds since the epoch.
    Date(&'a dyn Array, fn(&dyn Array, usize) -> i64),
    Decimal(&'a PrimitiveArray<Decimal128Type>, u8, i8),
    Struct(&'a dyn Array, Vec<Member<'a>>),
    /// A list: its values' offsets (start of row `i` at `i`, end at `i + 1`) and their encoder.
    List(&'a dyn Array, Vec<usize>, Box<Enc<'a>>),
}

fn ints<T: arrow_array::ArrowPrimitiveType>(a: &dyn Array, i: usize, out: &mut Vec<u8>)
where
    T::Native: std::fmt::Display,
{
    let _ = write!(out, "{}", a.as_primitive::<T>().value(i));
}

impl<'a> Enc<'a> {
    /// The encoder of `array`, or the type escpush does not write, to name it.
    fn new(array: &'a dyn Array) -> Result<Enc<'a>, String> {
        Ok(match array.data_type() {
            DataType::Null => Enc::Null,
            DataType::Boolean => Enc::Bool(array.as_boolean()),
            DataType::Int8 => Enc::Int(array, ints::<Int8Type>),
            DataType::Int16 => Enc::Int(array, ints::<Int16Type>),
            DataType::Int32 => Enc::Int(array, ints::<Int32Type>),
            DataType::Int64 => Enc::Int(array, ints::<Int64Type>),
            DataType::UInt8 => Enc::Int(array, ints::<UInt8Type>),
            DataType::UInt16 => Enc::Int(array, ints::<UInt16Type>),
            DataType::UInt32 => Enc::Int(array, ints::<UInt32Type>),
            DataType::UInt64 => Enc::Int(array, ints::<UInt64Type>),
            DataType::Float16 => Enc::Float(array, |a, i| a.as_primitive::<Float16Type>().value(i).to_f64()),
            DataType::Float32 => Enc::Float(array, |a, i| f64::from(a.as_primitive::<Float32Type>().value(i))),
            DataType::Float64 => Enc::Float(array, |a, i| a.as_primitive::<Float64Type>().value(i)),
            DataType::Utf8 => Enc::Str(array, |a, i| a.as_string::<i32>().value(i)),
            DataType::LargeUtf8 => Enc::Str(array, |a, i| a.as_string::<i64>().value(i)),
            DataType::Utf8View => Enc::Str(array, |a, i| a.as_string_view().value(i)),
            DataType::Timestamp(unit, _) => {
                // Arrow keeps an instant in UTC whatever its zone; a time without one is read as UTC.
                let (values, per_second) = match unit {
                    TimeUnit::Second => (array.as_primitive::<TimestampSecondType>().reinterpret_cast(), 1),
                    TimeUnit::Millisecond => (
                        array.as_primitive::<TimestampMillisecondType>().reinterpret_cast(),
                        1_000,
                    ),
                    TimeUnit::Microsecond => (
                        array.as_primitive::<TimestampMicrosecondType>().reinterpret_cast(),
                        1_000_000,
                    ),
                    TimeUnit::Nanosecond => (
                        array.as_primitive::<TimestampNanosecondType>().reinterpret_cast(),
                        1_000_000_000,
                    ),
                };
                Enc::Time(values, per_second)
            }
            DataType::Date32 => Enc::Date(array, |a, i| {
                i64::from(a.as_primitive::<Date32Type>().value(i)) * 86_400
            }),
            DataType::Date64 => Enc::Date(array, |a, i| a.as_primitive::<Date64Type>().value(i).div_euclid(1_000)),
            DataType::Decimal128(precision, scale) => Enc::Decimal(array.as_primitive(), *precision, *scale),
            DataType::Struct(_) => {
                let s = array.as_struct();
                Enc::Struct(array, members(s.fields(), s.columns()).map_err(|(_, t)| t)?)
            }
            DataType::List(_) => list::<i32>(array)?,
            DataType::LargeList(_) => list::<i64>(array)?,
            DataType::FixedSizeList(_, size) => {
                let l = array.as_fixed_size_list();
                let size = usize::try_from(*size).unwrap_or(0);
                let start = |i: usize| usize::try_from(l.value_offset(i)).unwrap_or(0);
                let mut offsets: Vec<usize> = (0..l.len()).map(start).collect();
                offsets.push(offsets.last().map_or(0, |last| last + size));
                Enc::List(array, offsets, Box::new(Enc::new(l.values().as_ref())?))
            }
            other => return Err(format!("Arrow type {other}")),
        })
    }

    fn array(&self) -> Option<&dyn Array> {
        match self {
            Enc::Null => None,
            Enc::Bool(a) => Some(*a),
            Enc::Time(a, _) => Some(a),
            Enc::Decimal(a, ..) => Some(*a),
            Enc::Int(a, _)
            | Enc::Float(a, _)
            | Enc::Str(a, _)
            | Enc::Date(a, _)
            | Enc::Struct(a, _)
            | Enc::List(a, ..) => Some(*a),
        }
    }

    /// The value at `row` as JSON.
    fn write(&self, row: usize, out: &mut Vec<u8>) {
        match self.array() {
            Some(a) if !a.is_null(row) => {}
            _ => return out.extend_from_slice(b"null"),
        }
        match self {
            Enc::Null => out.extend_from_slice(b"null"),
            Enc::Bool(a) => out.extend_from_slice(if a.value(row) { b"true" } else { b"false" }),
            Enc::Int(a, f) => f(*a, row, out),
            Enc::Float(a, f) => write_float(f(*a, row), out),
            Enc::Str(a, f) => write_string(f(*a, row), out),
            Enc::Time(a, per_second) => {
                let value = a.value(row);
                let nanos = value.rem_euclid(*per_second) * (1_000_000_000 / per_second);
                write_time(value.div_euclid(*per_second), u32::try_from(nanos).unwrap_or(0), out);
            }
            Enc::Date(a, f) => date(f(*a, row), out),
            Enc::Decimal(a, precision, scale) => {
                let text = Decimal128Type::format_decimal(a.value(row), *precision, *scale);
                // An exact decimal's text is a JSON number; one that holds an integer, as one.
                let text = match text.split_once('.') {
                    Some((whole, frac)) if frac.bytes().all(|b| b == b'0') => whole.to_owned(),
                    _ => text,
                };
                out.extend_from_slice(text.as_bytes());
            }
            Enc::Struct(_, members) => object(members, row, out),
            Enc::List(_, offsets, items) => {
                out.push(b'[');
                for (n, i) in (offsets[row]..offsets[row + 1]).enumerate() {
                    if n > 0 {
                        out.push(b',');
                    }
                    items.write(i, out);
                }
                out.push(b']');
            }
        }
    }
}

/// A date as `YYYY-MM-DD` (the day of `seconds` since the epoch).
fn date(seconds: i64, out: &mut Vec<u8>) {
    let text = escpush_filter::format_time(seconds.div_euclid(86_400) * 86_400);
    out.push(b'"');
    out.extend_from_slice(&text.as_bytes()[..text.find('T').unwrap_or(text.len())]);
    out.push(b'"');
}
