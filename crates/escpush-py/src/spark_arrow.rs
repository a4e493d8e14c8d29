//! The rows of `escpush.spark.select` as Arrow, built on the executor: its kept lines (NDJSON)
//! read into record batches of the columns asked and written as one Arrow IPC stream, which
//! pyarrow opens without parsing any JSON. The columns and their types are the driver's
//! (`escpush.dataset_schema(dataset, "pyarrow")`, chosen to the fields asked, sent as the
//! schema's IPC bytes), so the DataFrame's schema and the batches' have one source: core's
//! `ColumnType` of each field. Conversion only: serde_json reads the members a column takes,
//! each as written, and skips the rest.
//!
//! A value reads as Spark's JSON reader reads it (PERMISSIVE): one of another type than its
//! column's is null, but in a string column (or a list of strings' element) any value is its
//! JSON text as the line writes it; an integer column takes an integer `i64` holds (not
//! `1.0`, not `1e2`); a float column any number (past `f64`: infinite) and the strings
//! `NaN`, `Infinity` and `-Infinity` (`+INF`, `-INF`); a list of integers with an element of
//! another type is null whole. A kept line that is not a JSON object (the scanner keeps none)
//! reads as a row of nulls; one that is not UTF-8, with its bytes replaced as Spark does.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use arrow_array::builder::{BooleanBuilder, Float64Builder, Int64Builder, ListBuilder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_ipc::writer::StreamWriter;
use arrow_schema::{DataType, Field, SchemaRef};

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

/// Rows per record batch: large enough that a batch's fixed costs (its trip to the JVM)
/// vanish, small enough that a wide one stays a few megabytes.
pub(crate) const BATCH_ROWS: usize = 1 << 16;

/// One column being filled, by its Arrow type.
enum Column {
    Text(StringBuilder),
    Int(Int64Builder),
    Float(Float64Builder),
    Bool(BooleanBuilder),
    TextList(ListBuilder<StringBuilder>),
    IntList(ListBuilder<Int64Builder>),
}

impl Column {
    /// A column of `field`'s type; else the type, which no dataset column has.
    fn new(field: &Field) -> Result<Column, String> {
        Ok(match field.data_type() {
            DataType::Utf8 => Column::Text(StringBuilder::new()),
            DataType::Int64 => Column::Int(Int64Builder::new()),
            DataType::Float64 => Column::Float(Float64Builder::new()),
            DataType::Boolean => Column::Bool(BooleanBuilder::new()),
            DataType::List(item) if item.data_type() == &DataType::Utf8 => {
                Column::TextList(ListBuilder::new(StringBuilder::new()).with_field(item.clone()))
            }
            DataType::List(item) if item.data_type() == &DataType::Int64 => {
                Column::IntList(ListBuilder::new(Int64Builder::new()).with_field(item.clone()))
            }
            other => {
                return Err(format!(
                    "column `{}`: no dataset column is of type {other}",
                    field.name()
                ))
            }
        })
    }

    /// Appends `value` (the member's JSON text as the line writes it; None: the line has no
    /// such member) as the column reads it.
    fn push(&mut self, value: Option<&str>) {
        let value = value.filter(|v| *v != "null");
        match self {
            Column::Text(b) => b.append_option(value.and_then(as_text).as_deref()),
            Column::Int(b) => b.append_option(value.and_then(as_int)),
            Column::Float(b) => b.append_option(value.and_then(as_float)),
            Column::Bool(b) => b.append_option(value.and_then(|v| v.parse::<bool>().ok())),
            Column::TextList(b) => match value.and_then(items) {
                Some(items) => {
                    for item in items {
                        b.values().append_option(as_text(item.get()).as_deref());
                    }
                    b.append(true);
                }
                None => b.append_null(),
            },
            // Spark's reader reads a list with an element of another type as null, whole.
            Column::IntList(b) => match value.and_then(items).and_then(|items| {
                items
                    .iter()
                    .map(|i| {
                        if i.get() == "null" {
                            Some(None)
                        } else {
                            as_int(i.get()).map(Some)
                        }
                    })
                    .collect::<Option<Vec<_>>>()
            }) {
                Some(items) => {
                    b.values().extend(items);
                    b.append(true);
                }
                None => b.append_null(),
            },
        }
    }

    fn finish(&mut self) -> ArrayRef {
        match self {
            Column::Text(b) => Arc::new(b.finish()),
            Column::Int(b) => Arc::new(b.finish()),
            Column::Float(b) => Arc::new(b.finish()),
            Column::Bool(b) => Arc::new(b.finish()),
            Column::TextList(b) => Arc::new(b.finish()),
            Column::IntList(b) => Arc::new(b.finish()),
        }
    }
}

/// A string column's value (`value` not null): a string's text, any other value its JSON
/// text as written.
fn as_text(value: &str) -> Option<Cow<'_, str>> {
    if value == "null" {
        return None;
    }
    if !value.starts_with('"') {
        return Some(Cow::Borrowed(value));
    }
    match serde_json::from_str::<&str>(value) {
        Ok(text) => Some(Cow::Borrowed(text)),
        Err(_) => serde_json::from_str::<String>(value).ok().map(Cow::Owned), // escapes
    }
}

/// An integer column's value: an integer that `i64` holds (not `1.0`, not `1e2`).
fn as_int(value: &str) -> Option<i64> {
    value.parse().ok()
}

/// A float column's value: any number (past `f64`: infinite), or a string Spark's reader
/// reads as one (`NaN`, `Infinity`, `+INF`, `-Infinity`, `-INF`, ...).
fn as_float(value: &str) -> Option<f64> {
    match value.as_bytes().first() {
        Some(b'-' | b'0'..=b'9') => value.parse().ok(),
        Some(b'"') => match as_text(value)?.as_ref() {
            "NaN" => Some(f64::NAN),
            "Infinity" | "+Infinity" | "+INF" => Some(f64::INFINITY),
            "-Infinity" | "-INF" => Some(f64::NEG_INFINITY),
            _ => None,
        },
        _ => None,
    }
}

/// The elements of an array, each as written; None for any other value.
fn items(value: &str) -> Option<Vec<&RawValue>> {
    value
        .starts_with('[')
        .then(|| serde_json::from_str(value).ok())
        .flatten()
}

/// The schema the driver sent (pyarrow's `Schema.serialize()`), every column of a type a
/// dataset column has.
pub(crate) fn read_schema(bytes: &[u8]) -> Result<SchemaRef, String> {
    let schema = arrow_ipc::convert::try_schema_from_ipc_buffer(bytes)
        .map_err(|e| format!("schema: not an Arrow IPC schema: {e}"))?;
    for field in schema.fields() {
        Column::new(field)?;
    }
    Ok(Arc::new(schema))
}

/// The NDJSON lines of `ndjson` as record batches of `schema` (at most `batch_rows` rows
/// each), in one Arrow IPC stream; empty when there is no line.
pub(crate) fn ipc_stream(schema: &SchemaRef, ndjson: &[u8], batch_rows: usize) -> Result<Vec<u8>, String> {
    let ipc = |e: arrow_schema::ArrowError| format!("cannot write the Arrow batches: {e}");
    let index: HashMap<&str, usize> = schema
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| (f.name().as_str(), i))
        .collect();
    let mut columns = schema
        .fields()
        .iter()
        .map(|f| Column::new(f))
        .collect::<Result<Vec<_>, _>>()?;
    let mut out = Vec::new();
    let mut writer: Option<StreamWriter<&mut Vec<u8>>> = None;
    // The member of a line each column takes (the last one of its name, as serde_json's and
    // Spark's readers).
    let mut slots: Vec<Option<usize>> = vec![None; columns.len()];
    let mut lines = ndjson
        .split(|&b| b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .peekable();
    while lines.peek().is_some() {
        for line in lines.by_ref().take(batch_rows.max(1)) {
            let lossy;
            let mut cells = Vec::with_capacity(columns.len());
            if !read_line(line, &index, &mut cells) {
                // Not UTF-8 (Spark's reader too replaces what is not), or not an object: nulls.
                lossy = String::from_utf8_lossy(line).into_owned();
                cells.clear();
                read_line(lossy.as_bytes(), &index, &mut cells);
            }
            slots.fill(None);
            for (c, (i, _)) in cells.iter().enumerate() {
                slots[*i] = Some(c);
            }
            for (column, slot) in columns.iter_mut().zip(&slots) {
                column.push(slot.map(|c| cells[c].1.get()));
            }
        }
        let arrays: Vec<ArrayRef> = columns.iter_mut().map(Column::finish).collect();
        let batch = RecordBatch::try_new(schema.clone(), arrays).map_err(ipc)?;
        if writer.is_none() {
            writer = Some(StreamWriter::try_new(&mut out, schema).map_err(ipc)?);
        }
        if let Some(w) = writer.as_mut() {
            w.write(&batch).map_err(ipc)?;
        }
    }
    if let Some(mut w) = writer {
        w.finish().map_err(ipc)?;
    }
    Ok(out)
}

/// The members of `line` (a JSON object) that columns take, as `(column, value as written)`
/// in the line's order, into `cells`; the others are skipped unread. False when serde_json
/// refuses the line (not an object, not UTF-8).
fn read_line<'l>(line: &'l [u8], index: &HashMap<&str, usize>, cells: &mut Vec<(usize, &'l RawValue)>) -> bool {
    let mut de = serde_json::Deserializer::from_slice(line);
    let members = Members { index, cells };
    members.deserialize(&mut de).and_then(|()| de.end()).is_ok()
}

/// Reads an object's members into `cells`: those a column takes, the rest skipped.
struct Members<'a, 'i, 'de> {
    index: &'a HashMap<&'i str, usize>,
    cells: &'a mut Vec<(usize, &'de RawValue)>,
}

impl<'de> DeserializeSeed<'de> for Members<'_, '_, 'de> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Members<'_, '_, 'de> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(column) = map.next_key_seed(MemberName(self.index))? {
            match column {
                Some(i) => self.cells.push((i, map.next_value::<&'de RawValue>()?)),
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// A member's name read as the column that takes it, if one does (not copied).
struct MemberName<'a, 'i>(&'a HashMap<&'i str, usize>);

impl<'de> DeserializeSeed<'de> for MemberName<'_, '_> {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<usize>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for MemberName<'_, '_> {
    type Value = Option<usize>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member's name")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<Option<usize>, E> {
        Ok(self.0.get(name).copied())
    }
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use arrow_array::cast::AsArray;
    use arrow_array::types::{Float64Type, Int64Type};
    use arrow_array::Array;
    use arrow_ipc::reader::StreamReader;
    use arrow_schema::Schema;

    use super::*;

    fn schema() -> SchemaRef {
        let item = |t: DataType| Arc::new(Field::new("item", t, true));
        Arc::new(Schema::new(vec![
            Field::new("s", DataType::Utf8, true),
            Field::new("i", DataType::Int64, true),
            Field::new("f", DataType::Float64, true),
            Field::new("b", DataType::Boolean, true),
            Field::new("ls", DataType::List(item(DataType::Utf8)), true),
            Field::new("li", DataType::List(item(DataType::Int64)), true),
        ]))
    }

    /// The rows of `ndjson` as the builder reads them, each column's values as debug text.
    fn rows(ndjson: &str, batch_rows: usize) -> (usize, Vec<Vec<String>>) {
        let bytes = ipc_stream(&schema(), ndjson.as_bytes(), batch_rows).unwrap();
        if bytes.is_empty() {
            return (0, Vec::new());
        }
        let mut out = Vec::new();
        let mut batches = 0;
        for batch in StreamReader::try_new(Cursor::new(bytes), None).unwrap() {
            let batch = batch.unwrap();
            assert_eq!(batch.schema(), schema());
            batches += 1;
            for row in 0..batch.num_rows() {
                let c = batch.columns();
                let cell = |a: &dyn Array, v: String| if a.is_null(row) { "null".to_owned() } else { v };
                let s = c[0].as_string::<i32>();
                let i = c[1].as_primitive::<Int64Type>();
                let f = c[2].as_primitive::<Float64Type>();
                let b = c[3].as_boolean();
                let ls = c[4].as_list::<i32>();
                let li = c[5].as_list::<i32>();
                let list_s = |r: usize| {
                    let v = ls.value(r);
                    let v = v.as_string::<i32>();
                    format!(
                        "{:?}",
                        (0..v.len())
                            .map(|k| v.is_valid(k).then(|| v.value(k)))
                            .collect::<Vec<_>>()
                    )
                };
                let list_i = |r: usize| {
                    let v = li.value(r);
                    let v = v.as_primitive::<Int64Type>();
                    format!(
                        "{:?}",
                        (0..v.len())
                            .map(|k| v.is_valid(k).then(|| v.value(k)))
                            .collect::<Vec<_>>()
                    )
                };
                out.push(vec![
                    cell(s, s.value(row).to_owned()),
                    cell(i, i.value(row).to_string()),
                    cell(f, f.value(row).to_string()),
                    cell(b, b.value(row).to_string()),
                    cell(ls, list_s(row)),
                    cell(li, list_i(row)),
                ]);
            }
        }
        (batches, out)
    }

    #[test]
    fn values_of_their_columns_type_read_as_they_are() {
        let (_, got) = rows(
            r#"{"s":"a\u00e9\"","i":-9223372036854775808,"f":1.5,"b":true,"ls":["x",null],"li":[1,null,-0]}"#,
            10,
        );
        assert_eq!(
            got,
            [[
                "aé\"",
                "-9223372036854775808",
                "1.5",
                "true",
                r#"[Some("x"), None]"#,
                "[Some(1), None, Some(0)]"
            ]]
        );
    }

    #[test]
    fn other_values_read_as_sparks_reader_reads_them() {
        let lines = [
            // Any value in a string column (and a list of strings' element): its text as written.
            r#"{"s":{ "a" : [1, 2.50] },"ls":[{"y":1},3,true,"z"],"i":1.0,"f":"NaN","b":"true","li":[1,"x"]}"#,
            r#"{"s":1e3,"i":9223372036854775808,"f":1e400,"b":1,"ls":"x","li":[1.5]}"#,
            r#"{"s":[1, 2],"i":1E2,"f":"-INF","ls":{},"li":{"a":1}}"#,
            r#"{"s":true,"i":"5","f":3,"li":[]}"#,
        ];
        let (_, got) = rows(&lines.join("\n"), 10);
        assert_eq!(
            got[0],
            [
                r#"{ "a" : [1, 2.50] }"#,
                "null",
                "NaN",
                "null",
                r#"[Some("{\"y\":1}"), Some("3"), Some("true"), Some("z")]"#,
                "null"
            ]
        );
        assert_eq!(got[1], ["1e3", "null", "inf", "null", "null", "null"]);
        assert_eq!(got[2], ["[1, 2]", "null", "-inf", "null", "null", "null"]);
        assert_eq!(got[3], ["true", "null", "3", "null", "null", "[]"]);
    }

    #[test]
    fn nulls_missing_members_and_lines_that_are_not_objects_read_as_nulls() {
        let nulls = vec!["null"; 6];
        let text = "{\"s\":null,\"i\":null,\"f\":null,\"b\":null,\"ls\":null,\"li\":null}\n{\"other\":{\"s\":1}}\n[1]\nnot json\n";
        let (_, got) = rows(text, 10);
        assert_eq!(got, [nulls.clone(), nulls.clone(), nulls.clone(), nulls]);
    }

    #[test]
    fn a_member_named_twice_is_its_last_and_bad_utf8_is_replaced() {
        let mut text = br#"{"s":"a","i":1,"s":"b","i":2}"#.to_vec();
        text.extend_from_slice(b"\n{\"s\":\"x\xffy\",\"i\":3}\n");
        let bytes = ipc_stream(&schema(), &text, 10).unwrap();
        let batch = StreamReader::try_new(Cursor::new(bytes), None)
            .unwrap()
            .next()
            .unwrap()
            .unwrap();
        let s = batch.column(0).as_string::<i32>();
        assert_eq!((s.value(0), s.value(1)), ("b", "x\u{fffd}y"));
        assert_eq!(batch.column(1).as_primitive::<Int64Type>().values().to_vec(), [2, 3]);
    }

    #[test]
    fn rows_come_in_batches_of_at_most_batch_rows_and_none_is_empty() {
        let text = "{\"i\":1}\n\n{\"i\":2}\n{\"i\":3}\n  \n";
        let (batches, got) = rows(text, 2);
        assert_eq!((batches, got.len()), (2, 3));
        assert_eq!(rows("", 2), (0, Vec::new()));
        assert_eq!(rows("\n \n", 2), (0, Vec::new()));
    }

    #[test]
    fn a_schema_of_another_type_is_refused_by_name() {
        let schema = Schema::new(vec![Field::new("t", DataType::Int32, true)]);
        let mut bytes = Vec::new();
        StreamWriter::try_new(&mut bytes, &schema).unwrap().finish().unwrap();
        let err = read_schema(&bytes).unwrap_err();
        assert!(err.contains("column `t`") && err.contains("Int32"), "{err}");
        assert!(read_schema(b"nope")
            .unwrap_err()
            .starts_with("schema: not an Arrow IPC schema"));
    }
}
