//! A dataset's fields as typed table columns, for the engines that query pushed logs: the
//! [`ColumnType`] each documented field type is stored as, and the `CREATE TABLE` statement
//! of a dataset in a [`Dialect`] (its SQL types are the dialect's, in `dialect.rs`). The SQL
//! printer (`mod.rs`) assumes exactly these types.
//!
//! | documented type | column | why |
//! |---|---|---|
//! | `string` | string | |
//! | `int` | 64-bit integer | |
//! | `float` | double | |
//! | `bool` | boolean | |
//! | `array[string]`, `array[int]` | array of string / of 64-bit integer | |
//! | `int or string` | string | timestamps: an integer is stored as its decimal text |
//! | `object`, `array[object]`, undocumented | string | the JSON text; filters never read it |

use super::dialect::{Dialect, Table};
use crate::dataset::{Dataset, FieldType};
use crate::error::Error;

/// How a field is stored in a table (see the [module docs](self)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ColumnType {
    /// Text.
    String,
    /// A 64-bit signed integer.
    Int,
    /// A double.
    Float,
    /// A boolean.
    Bool,
    /// An array of text.
    StringArray,
    /// An array of 64-bit integers.
    IntArray,
    /// `int or string`: text, an integer stored as its decimal digits.
    IntOrString,
    /// An object, or a field without a documented type: its JSON text.
    Json,
}

impl ColumnType {
    /// The column a documented field type is stored in.
    pub fn of(field_type: FieldType) -> ColumnType {
        match field_type {
            FieldType::String => ColumnType::String,
            FieldType::Int => ColumnType::Int,
            FieldType::Float => ColumnType::Float,
            FieldType::Bool => ColumnType::Bool,
            FieldType::StringArray => ColumnType::StringArray,
            FieldType::IntArray => ColumnType::IntArray,
            FieldType::IntOrString => ColumnType::IntOrString,
            FieldType::Object | FieldType::ObjectArray | FieldType::Unknown => ColumnType::Json,
        }
    }

    /// A short name for bindings that build their own schema objects (`"array[string]"`).
    pub fn as_str(self) -> &'static str {
        match self {
            ColumnType::String => "string",
            ColumnType::Int => "int",
            ColumnType::Float => "float",
            ColumnType::Bool => "bool",
            ColumnType::StringArray => "array[string]",
            ColumnType::IntArray => "array[int]",
            ColumnType::IntOrString => "int or string",
            ColumnType::Json => "json",
        }
    }

    /// The column's SQL type in a dialect; `None` for the transformer dialect, which reads
    /// the dataset itself, and for polars, whose frames are typed by a polars schema.
    pub fn sql_type(self, dialect: Dialect) -> Option<&'static str> {
        let Table::Typed { types, .. } = dialect.spec().table else {
            return None;
        };
        Some(match self {
            ColumnType::String | ColumnType::IntOrString | ColumnType::Json => types.text,
            ColumnType::Int => types.int,
            ColumnType::Float => types.float,
            ColumnType::Bool => types.bool,
            ColumnType::StringArray => types.string_array,
            ColumnType::IntArray => types.int_array,
        })
    }
}

/// Every field of a dataset with the column it is stored in, in the documentation's order.
pub fn columns(dataset: &Dataset) -> Vec<(&str, ColumnType)> {
    dataset
        .fields()
        .iter()
        .map(|f| (f.name(), ColumnType::of(f.field_type())))
        .collect()
}

/// `CREATE TABLE` for a dataset in a dialect, every field a column of the type the SQL
/// printer assumes. `table` defaults to the dataset's name (dotted names are quoted part by
/// part).
pub fn create_table(dataset: &Dataset, dialect: Dialect, table: Option<&str>) -> Result<String, Error> {
    let (types, suffix) = match dialect.spec().table {
        Table::Typed { types, suffix } => (types, suffix),
        Table::Untyped(why) => {
            return Err(Error::InvalidInput {
                what: "dialect",
                message: why.into(),
            })
        }
    };
    let mut out = format!(
        "CREATE TABLE {} (\n",
        dialect.quote_table(table.unwrap_or(dataset.name()))
    );
    let cols = columns(dataset);
    for (i, (name, col)) in cols.iter().enumerate() {
        out.push_str("  ");
        out.push_str(&dialect.quote_ident(name));
        out.push(' ');
        out.push_str(col.sql_type(dialect).unwrap_or(types.text));
        out.push_str(if i + 1 < cols.len() { ",\n" } else { "\n" });
    }
    out.push(')');
    out.push_str(suffix);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_documented_type_has_a_column_in_every_dialect() {
        let http = Dataset::get("http_requests", None).unwrap();
        let ddl = create_table(http, Dialect::DuckDb, None).unwrap();
        assert!(
            ddl.starts_with("CREATE TABLE \"http_requests\" (\n  \"AISecurityCustomTopicCategories\" VARCHAR,\n"),
            "{ddl}"
        );
        assert!(ddl.contains("  \"BotDetectionIDs\" BIGINT[],\n"));
        assert!(ddl.contains("  \"EdgeResponseStatus\" BIGINT,\n"));
        assert!(ddl.contains("  \"ClientRequestHost\" VARCHAR,\n"));
        assert!(ddl.ends_with("\n)"));
        let ch = create_table(http, Dialect::ClickHouse, Some("logs")).unwrap();
        assert!(ch.contains("`SecurityActions` Array(Nullable(String))"));
        assert!(ch.ends_with(") ENGINE = MergeTree ORDER BY tuple()"));
        assert!(create_table(http, Dialect::Transformer, None).is_err());
        assert!(create_table(http, Dialect::Polars, None).is_err());
        for d in Dialect::ALL {
            for (_, col) in columns(http) {
                assert_eq!(
                    col.sql_type(d).is_none(),
                    matches!(d, Dialect::Transformer | Dialect::Polars)
                );
            }
        }
    }
}
