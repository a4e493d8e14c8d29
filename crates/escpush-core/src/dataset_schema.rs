//! A dataset's fields as typed table columns, for the engines that query pushed logs: the
//! SQL [`Dialect`]s, the [`ColumnType`] each documented field type is stored as, and the
//! `CREATE TABLE` statement of a dataset in a dialect. The SQL printer
//! (`filter/print/sql.rs`) assumes exactly these types.
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

use std::fmt;
use std::str::FromStr;

use crate::dataset::{Dataset, FieldType};
use crate::error::Error;

/// A SQL dialect the printer writes for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Dialect {
    /// DuckDB.
    DuckDb,
    /// Apache DataFusion.
    DataFusion,
    /// Spark SQL (Databricks), with its default parser settings.
    Spark,
    /// ClickHouse.
    ClickHouse,
    /// Google BigQuery (GoogleSQL).
    BigQuery,
    /// Snowflake.
    Snowflake,
    /// Trino, and Amazon Athena (engine version 3).
    Trino,
    /// PostgreSQL.
    Postgres,
    /// Logpush SQL transformers: the portable subset (no arrays, no functions).
    Transformer,
    /// polars' SQL expressions (`polars.sql_expr`), for `Filter.to_polars`.
    Polars,
}

impl Dialect {
    /// Every dialect, in the order the documentation lists them.
    pub const ALL: [Dialect; 10] = [
        Dialect::DuckDb,
        Dialect::DataFusion,
        Dialect::Spark,
        Dialect::ClickHouse,
        Dialect::BigQuery,
        Dialect::Snowflake,
        Dialect::Trino,
        Dialect::Postgres,
        Dialect::Transformer,
        Dialect::Polars,
    ];

    /// The dialect's name (`"duckdb"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::DuckDb => "duckdb",
            Dialect::DataFusion => "datafusion",
            Dialect::Spark => "spark",
            Dialect::ClickHouse => "clickhouse",
            Dialect::BigQuery => "bigquery",
            Dialect::Snowflake => "snowflake",
            Dialect::Trino => "trino",
            Dialect::Postgres => "postgres",
            Dialect::Transformer => "transformer",
            Dialect::Polars => "polars",
        }
    }

    /// `name` quoted as an identifier of this dialect (`"ClientIP"`, `` `ClientIP` ``).
    pub fn quote_ident(self, name: &str) -> String {
        match self {
            Dialect::Spark | Dialect::BigQuery | Dialect::ClickHouse => {
                let escaped = if self == Dialect::Spark {
                    name.replace('`', "``")
                } else {
                    name.replace('\\', "\\\\").replace('`', "\\`")
                };
                format!("`{escaped}`")
            }
            _ => format!("\"{}\"", name.replace('"', "\"\"")),
        }
    }

    /// A table name, `part` or `part.part.part`, each part quoted.
    pub fn quote_table(self, name: &str) -> String {
        name.split('.')
            .map(|p| self.quote_ident(p))
            .collect::<Vec<_>>()
            .join(".")
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Dialect {
    type Err = Error;

    /// A dialect by name, case-insensitive; `athena` is `trino`, `databricks` is `spark`,
    /// `postgresql` is `postgres`.
    fn from_str(s: &str) -> Result<Self, Error> {
        let lower = s.trim().to_ascii_lowercase();
        let alias = match lower.as_str() {
            "athena" => Some(Dialect::Trino),
            "databricks" | "sparksql" => Some(Dialect::Spark),
            "postgresql" => Some(Dialect::Postgres),
            _ => None,
        };
        alias
            .or_else(|| Dialect::ALL.into_iter().find(|d| d.as_str() == lower))
            .ok_or_else(|| Error::InvalidInput {
                what: "dialect",
                message: format!(
                    "`{}` is not a SQL dialect; use one of {}",
                    crate::suggest::cut(s),
                    Dialect::ALL.map(Dialect::as_str).join(", ")
                ),
            })
    }
}

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
            _ => ColumnType::Json,
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
        use ColumnType as C;
        use Dialect as D;
        let text = matches!(self, C::String | C::IntOrString | C::Json);
        Some(match (dialect, self) {
            (D::Transformer | D::Polars, _) => return None,
            (D::ClickHouse, C::Int) => "Nullable(Int64)",
            (D::ClickHouse, C::Float) => "Nullable(Float64)",
            (D::ClickHouse, C::Bool) => "Nullable(Bool)",
            (D::ClickHouse, C::StringArray) => "Array(Nullable(String))",
            (D::ClickHouse, C::IntArray) => "Array(Nullable(Int64))",
            (D::ClickHouse, _) => "Nullable(String)",
            (D::BigQuery, C::Int) => "INT64",
            (D::BigQuery, C::Float) => "FLOAT64",
            (D::BigQuery, C::Bool) => "BOOL",
            (D::BigQuery, C::StringArray) => "ARRAY<STRING>",
            (D::BigQuery, C::IntArray) => "ARRAY<INT64>",
            (D::BigQuery | D::Spark, _) if text => "STRING",
            (D::Spark, C::StringArray) => "ARRAY<STRING>",
            (D::Spark, C::IntArray) => "ARRAY<BIGINT>",
            (D::Snowflake, C::StringArray | C::IntArray) => "ARRAY",
            (D::Trino, C::StringArray) => "ARRAY(VARCHAR)",
            (D::Trino, C::IntArray) => "ARRAY(BIGINT)",
            (D::Postgres, C::StringArray) => "TEXT[]",
            (D::Postgres, C::IntArray) => "BIGINT[]",
            (D::Postgres, C::Float) => "DOUBLE PRECISION",
            (D::Postgres, _) if text => "TEXT",
            (_, C::StringArray) => "VARCHAR[]",
            (_, C::IntArray) => "BIGINT[]",
            (_, C::Int) => "BIGINT",
            (_, C::Float) => "DOUBLE",
            (_, C::Bool) => "BOOLEAN",
            (_, _) => "VARCHAR",
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
    let refused = match dialect {
        Dialect::Transformer => {
            "Logpush transformers read the dataset itself; there is no table to create (use a dialect of the \
             engine the logs land in)"
        }
        Dialect::Polars => "polars frames have no CREATE TABLE; type them with the polars schema of the dataset",
        _ => "",
    };
    if !refused.is_empty() {
        return Err(Error::InvalidInput {
            what: "dialect",
            message: refused.into(),
        });
    }
    let mut out = format!(
        "CREATE TABLE {} (\n",
        dialect.quote_table(table.unwrap_or(dataset.name()))
    );
    let cols = columns(dataset);
    for (i, (name, col)) in cols.iter().enumerate() {
        out.push_str("  ");
        out.push_str(&dialect.quote_ident(name));
        out.push(' ');
        out.push_str(col.sql_type(dialect).unwrap_or("VARCHAR"));
        out.push_str(if i + 1 < cols.len() { ",\n" } else { "\n" });
    }
    out.push(')');
    if dialect == Dialect::ClickHouse {
        out.push_str(" ENGINE = MergeTree ORDER BY tuple()");
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dialect_names_round_trip_and_aliases() {
        for d in Dialect::ALL {
            assert_eq!(d.as_str().parse::<Dialect>().unwrap(), d);
            assert_eq!(d.as_str().to_uppercase().parse::<Dialect>().unwrap(), d);
        }
        assert_eq!("athena".parse::<Dialect>().unwrap(), Dialect::Trino);
        assert_eq!("Databricks".parse::<Dialect>().unwrap(), Dialect::Spark);
        let err = "mysql".parse::<Dialect>().unwrap_err().to_string();
        assert!(
            err.starts_with("invalid dialect: `mysql` is not a SQL dialect; use one of duckdb,"),
            "{err}"
        );
    }

    #[test]
    fn identifiers_are_quoted_so_no_name_escapes() {
        assert_eq!(Dialect::DuckDb.quote_ident("a\"b"), "\"a\"\"b\"");
        assert_eq!(Dialect::Spark.quote_ident("a`b"), "`a``b`");
        assert_eq!(Dialect::BigQuery.quote_ident("a`b\\"), "`a\\`b\\\\`");
        assert_eq!(Dialect::Trino.quote_table("cat.db.logs"), "\"cat\".\"db\".\"logs\"");
    }

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
