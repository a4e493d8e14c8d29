//! The SQL dialects, each described once. A [`DialectSpec`] holds every choice a dialect
//! makes: its names, how it quotes identifiers and writes strings, its column types, how it
//! spells the text and array tests, how it tells integers in text apart, and what it cannot
//! express. The printer (`mod.rs`) and `CREATE TABLE` (`table.rs`) read these fields and
//! never match on a dialect, so nothing falls back to another dialect's SQL.
//!
//! Adding a dialect: a line in `dialects!` below and its `DialectSpec`; the compiler names
//! every field the new description must fill.

use std::fmt;
use std::str::FromStr;

use crate::error::Error;

/// Declares [`Dialect`] with one variant per line, [`Dialect::ALL`] in that order, and
/// `Dialect::spec`, which gives each variant its description.
macro_rules! dialects {
    ($($(#[$doc:meta])* $variant:ident => $spec:ident,)*) => {
        /// A SQL dialect the printer writes for.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Dialect {
            $($(#[$doc])* $variant,)*
        }

        impl Dialect {
            /// Every dialect, in the order the documentation lists them.
            pub const ALL: [Dialect; [$(Dialect::$variant),*].len()] = [$(Dialect::$variant),*];

            /// The dialect's description: everything it chooses.
            pub(crate) fn spec(self) -> &'static DialectSpec {
                match self {
                    $(Dialect::$variant => &$spec,)*
                }
            }
        }
    };
}

dialects! {
    /// DuckDB.
    DuckDb => DUCKDB,
    /// Apache DataFusion.
    DataFusion => DATAFUSION,
    /// Spark SQL (Databricks), with its default parser settings.
    Spark => SPARK,
    /// ClickHouse.
    ClickHouse => CLICKHOUSE,
    /// Google BigQuery (GoogleSQL).
    BigQuery => BIGQUERY,
    /// Snowflake.
    Snowflake => SNOWFLAKE,
    /// Trino, and Amazon Athena (engine version 3).
    Trino => TRINO,
    /// PostgreSQL.
    Postgres => POSTGRES,
    /// Logpush SQL transformers: the portable subset (no arrays, no functions).
    Transformer => TRANSFORMER,
    /// polars' SQL expressions (`polars.sql_expr`), for `Filter.to_polars`.
    Polars => POLARS,
}

/// Everything a dialect chooses. Templates name their parts in braces (`{col}`, `{lit}`, ...),
/// filled by [`fill`].
#[derive(Debug)]
pub(crate) struct DialectSpec {
    /// The name (`"duckdb"`): lower case, as `FromStr` and `Display` spell it.
    pub name: &'static str,
    /// Other names that parse as this dialect (lower case).
    pub aliases: &'static [&'static str],
    /// How an identifier (a column, a part of a table name) is quoted.
    pub ident: IdentQuote,
    /// How a string literal is written.
    pub strings: StringLiteral,
    /// The columns of `CREATE TABLE`, or why the dialect has no table to create.
    pub table: Table,
    /// What `SELECT * FROM ...` reads.
    pub query_from: QueryFrom,
    /// `startsWith` on a text column (`{col}`, `{lit}`).
    pub starts_with: TextTest,
    /// `endsWith` on a text column.
    pub ends_with: TextTest,
    /// `contains` on a text column.
    pub contains: TextTest,
    /// How the integers an `int or string` column holds as text are read.
    pub int_text: IntCast,
    /// `contains` / `in` on an array column.
    pub arrays: ArrayTest,
}

/// How an identifier is quoted.
#[derive(Clone, Copy, Debug)]
pub(crate) enum IdentQuote {
    /// `"name"`, a `"` doubled (standard SQL).
    DoubleQuote,
    /// `` `name` ``, a `` ` `` doubled (Spark).
    BacktickDoubled,
    /// `` `name` ``, a `` ` `` and a `\` escaped with a backslash (BigQuery, ClickHouse).
    BacktickEscaped,
}

/// How a string literal holding any text is written, so that no value can change the statement.
#[derive(Clone, Copy, Debug)]
pub(crate) enum StringLiteral {
    /// Standard SQL: `'...'`, a quote doubled, a backslash plain. With `chr`, each control
    /// character outside the quotes as `chr(n)`, joined with `||`; without (the dialect has
    /// no `chr`), inside them, where it is a plain character. A NUL is refused unless `nul`.
    Standard { chr: bool, nul: bool },
    /// `'...'` with backslash escapes: `\'`, `\\`, each control character as `control`
    /// writes it; with `dollar`, `$` as `\u0024` (Spark substitutes `${...}` in the text of
    /// every statement it parses).
    Backslash { control: ControlEscape, dollar: bool },
}

/// How a backslash-escaped literal writes a control character.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ControlEscape {
    /// `\uXXXX`.
    Unicode,
    /// `\xHH` for each byte of its UTF-8 (ClickHouse strings are bytes: `\xHH` is one byte).
    Utf8Bytes,
    /// `\xHH` below U+0080, `\uXXXX` above (Snowflake).
    AsciiHex,
}

/// The column types of a dialect's tables.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Table {
    /// `CREATE TABLE` with these types, and what follows the column list.
    Typed { types: SqlTypes, suffix: &'static str },
    /// No table to create: why, and what to use instead.
    Untyped(&'static str),
}

/// The SQL type of each [`ColumnType`](super::ColumnType).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SqlTypes {
    /// Text, `int or string` and JSON text.
    pub text: &'static str,
    pub int: &'static str,
    pub float: &'static str,
    pub bool: &'static str,
    pub string_array: &'static str,
    pub int_array: &'static str,
}

/// What a query reads.
#[derive(Clone, Copy, Debug)]
pub(crate) enum QueryFrom {
    /// A table: the one named (each dotted part quoted), else the dataset's name.
    Table,
    /// The job's dataset, by its name unquoted; naming a table is refused with this message.
    Dataset(&'static str),
}

/// A `startsWith` / `endsWith` / `contains` test on text.
#[derive(Clone, Copy, Debug)]
pub(crate) enum TextTest {
    /// A call: `{col}` the column, `{lit}` the text as a literal.
    Call(&'static str),
    /// `LIKE` with `%`, `_` and `\` escaped, `ESCAPE '\'`.
    Like,
    /// A call whose `{re}` is a regular expression matching only the text, as a literal
    /// (polars reads the argument of `strpos` as a regular expression, and has no other
    /// substring test).
    LiteralRegex(&'static str),
}

/// How integers held as text (`int or string` columns) are told apart and compared.
#[derive(Clone, Copy, Debug)]
pub(crate) enum IntCast {
    /// `int`: the text as a 64-bit integer, NULL for other text (`{col}`); `back`: that
    /// integer as text again (`{int}`); `regex`: the whole text matches a regular expression.
    /// Beyond 64 bits, an integer's sign decides.
    Try {
        int: &'static str,
        back: &'static str,
        regex: FullMatch,
    },
    /// `canonical`: the text is an integer's canonical text (`{col}`); `int`: then that
    /// integer, of any size (`{col}`, `{canonical}`).
    Exact { canonical: &'static str, int: &'static str },
    /// The dialect cannot tell an integer from text (it has no cast).
    Unsupported,
}

/// The whole text of `{col}` matches the regular expression `{re}` (a literal), which is the
/// pattern between `anchors` (a dialect that matches the whole text needs none; Java's `$`
/// also matches before a final line break, so Spark and Trino use `\A` and `\z`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct FullMatch {
    pub call: &'static str,
    pub anchors: (&'static str, &'static str),
}

/// `contains` / `in` on an array column: true when any element is one of the values.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ArrayTest {
    /// One value: `one` (`{col}`, `{x}`); several: `any` (`{col}`, `{list}` the values joined
    /// by `, `, `{type}` the column's SQL type).
    OneOrAny { one: &'static str, any: &'static str },
    /// Each value by `each` (`{col}`, `{x}`), joined by `OR`: where the dialect has no
    /// test of several (polars) or its test misreads a NULL element (ClickHouse's `hasAny`
    /// reads one as `''` or `0`; `has` does not).
    Each(&'static str),
    /// The dialect has no arrays.
    Unsupported,
}

/// The types of the dialects whose names follow standard SQL (DuckDB, DataFusion).
const STANDARD_TYPES: SqlTypes = SqlTypes {
    text: "VARCHAR",
    int: "BIGINT",
    float: "DOUBLE",
    bool: "BOOLEAN",
    string_array: "VARCHAR[]",
    int_array: "BIGINT[]",
};

/// `TRY_CAST` to `BIGINT` and back to `VARCHAR`.
const TRY_CAST_BIGINT: (&str, &str) = ("TRY_CAST({col} AS BIGINT)", "CAST({int} AS VARCHAR)");

/// `regexp_like` with `^` and `$` (RE2, Rust's `regex`).
const REGEXP_LIKE: FullMatch = FullMatch {
    call: "regexp_like({col}, {re})",
    anchors: ("^", "$"),
};

const DUCKDB: DialectSpec = DialectSpec {
    name: "duckdb",
    aliases: &[],
    ident: IdentQuote::DoubleQuote,
    strings: StringLiteral::Standard { chr: true, nul: true },
    table: Table::Typed {
        types: STANDARD_TYPES,
        suffix: "",
    },
    query_from: QueryFrom::Table,
    starts_with: TextTest::Call("starts_with({col}, {lit})"),
    ends_with: TextTest::Call("ends_with({col}, {lit})"),
    contains: TextTest::Call("contains({col}, {lit})"),
    int_text: IntCast::Try {
        int: TRY_CAST_BIGINT.0,
        back: TRY_CAST_BIGINT.1,
        // DuckDB matches the whole text.
        regex: FullMatch {
            call: "regexp_full_match({col}, {re})",
            anchors: ("", ""),
        },
    },
    arrays: ArrayTest::OneOrAny {
        one: "list_contains({col}, {x})",
        any: "list_has_any({col}, [{list}])",
    },
};

const DATAFUSION: DialectSpec = DialectSpec {
    name: "datafusion",
    aliases: &[],
    ident: IdentQuote::DoubleQuote,
    strings: StringLiteral::Standard { chr: true, nul: true },
    table: Table::Typed {
        types: STANDARD_TYPES,
        suffix: "",
    },
    query_from: QueryFrom::Table,
    starts_with: TextTest::Call("starts_with({col}, {lit})"),
    ends_with: TextTest::Call("ends_with({col}, {lit})"),
    contains: TextTest::Call("strpos({col}, {lit}) > 0"),
    int_text: IntCast::Try {
        int: TRY_CAST_BIGINT.0,
        back: TRY_CAST_BIGINT.1,
        regex: REGEXP_LIKE,
    },
    arrays: ArrayTest::OneOrAny {
        one: "array_has({col}, {x})",
        any: "array_has_any({col}, make_array({list}))",
    },
};

const SPARK: DialectSpec = DialectSpec {
    name: "spark",
    aliases: &["databricks", "sparksql"],
    ident: IdentQuote::BacktickDoubled,
    strings: StringLiteral::Backslash {
        control: ControlEscape::Unicode,
        dollar: true,
    },
    table: Table::Typed {
        types: SqlTypes {
            text: "STRING",
            int: "BIGINT",
            float: "DOUBLE",
            bool: "BOOLEAN",
            string_array: "ARRAY<STRING>",
            int_array: "ARRAY<BIGINT>",
        },
        suffix: "",
    },
    query_from: QueryFrom::Table,
    starts_with: TextTest::Call("startswith({col}, {lit})"),
    ends_with: TextTest::Call("endswith({col}, {lit})"),
    contains: TextTest::Call("contains({col}, {lit})"),
    int_text: IntCast::Try {
        int: "try_cast({col} AS BIGINT)",
        back: "CAST({int} AS STRING)",
        regex: FullMatch {
            call: "{col} RLIKE {re}",
            anchors: ("\\A", "\\z"),
        },
    },
    arrays: ArrayTest::OneOrAny {
        one: "array_contains({col}, {x})",
        any: "arrays_overlap({col}, array({list}))",
    },
};

const CLICKHOUSE: DialectSpec = DialectSpec {
    name: "clickhouse",
    aliases: &[],
    ident: IdentQuote::BacktickEscaped,
    strings: StringLiteral::Backslash {
        control: ControlEscape::Utf8Bytes,
        dollar: false,
    },
    table: Table::Typed {
        types: SqlTypes {
            text: "Nullable(String)",
            int: "Nullable(Int64)",
            float: "Nullable(Float64)",
            bool: "Nullable(Bool)",
            string_array: "Array(Nullable(String))",
            int_array: "Array(Nullable(Int64))",
        },
        suffix: " ENGINE = MergeTree ORDER BY tuple()",
    },
    query_from: QueryFrom::Table,
    starts_with: TextTest::Call("startsWith({col}, {lit})"),
    ends_with: TextTest::Call("endsWith({col}, {lit})"),
    contains: TextTest::Call("position({col}, {lit}) > 0"),
    int_text: IntCast::Try {
        int: "toInt64OrNull({col})",
        back: "toString({int})",
        regex: FullMatch {
            call: "match({col}, {re})",
            anchors: ("^", "$"),
        },
    },
    arrays: ArrayTest::Each("has({col}, {x})"),
};

const BIGQUERY: DialectSpec = DialectSpec {
    name: "bigquery",
    aliases: &[],
    ident: IdentQuote::BacktickEscaped,
    strings: StringLiteral::Backslash {
        control: ControlEscape::Unicode,
        dollar: false,
    },
    table: Table::Typed {
        types: SqlTypes {
            text: "STRING",
            int: "INT64",
            float: "FLOAT64",
            bool: "BOOL",
            string_array: "ARRAY<STRING>",
            int_array: "ARRAY<INT64>",
        },
        suffix: "",
    },
    query_from: QueryFrom::Table,
    starts_with: TextTest::Call("STARTS_WITH({col}, {lit})"),
    ends_with: TextTest::Call("ENDS_WITH({col}, {lit})"),
    contains: TextTest::Call("STRPOS({col}, {lit}) > 0"),
    int_text: IntCast::Try {
        int: "SAFE_CAST({col} AS INT64)",
        back: "CAST({int} AS STRING)",
        regex: FullMatch {
            call: "REGEXP_CONTAINS({col}, {re})",
            anchors: ("^", "$"),
        },
    },
    arrays: ArrayTest::OneOrAny {
        one: "{x} IN UNNEST({col})",
        any: "EXISTS(SELECT 1 FROM UNNEST({col}) AS e WHERE e IN ({list}))",
    },
};

const SNOWFLAKE: DialectSpec = DialectSpec {
    name: "snowflake",
    aliases: &[],
    ident: IdentQuote::DoubleQuote,
    strings: StringLiteral::Backslash {
        control: ControlEscape::AsciiHex,
        dollar: false,
    },
    table: Table::Typed {
        types: SqlTypes {
            text: "VARCHAR",
            int: "BIGINT",
            float: "DOUBLE",
            bool: "BOOLEAN",
            string_array: "ARRAY",
            int_array: "ARRAY",
        },
        suffix: "",
    },
    query_from: QueryFrom::Table,
    starts_with: TextTest::Call("STARTSWITH({col}, {lit})"),
    ends_with: TextTest::Call("ENDSWITH({col}, {lit})"),
    contains: TextTest::Call("CONTAINS({col}, {lit})"),
    int_text: IntCast::Try {
        int: TRY_CAST_BIGINT.0,
        back: TRY_CAST_BIGINT.1,
        // Snowflake matches the whole text.
        regex: FullMatch {
            call: "REGEXP_LIKE({col}, {re})",
            anchors: ("", ""),
        },
    },
    arrays: ArrayTest::OneOrAny {
        one: "ARRAY_CONTAINS(TO_VARIANT({x}), {col})",
        any: "ARRAYS_OVERLAP({col}, ARRAY_CONSTRUCT({list}))",
    },
};

const TRINO: DialectSpec = DialectSpec {
    name: "trino",
    aliases: &["athena"],
    ident: IdentQuote::DoubleQuote,
    strings: StringLiteral::Standard { chr: true, nul: true },
    table: Table::Typed {
        types: SqlTypes {
            string_array: "ARRAY(VARCHAR)",
            int_array: "ARRAY(BIGINT)",
            ..STANDARD_TYPES
        },
        suffix: "",
    },
    query_from: QueryFrom::Table,
    starts_with: TextTest::Call("starts_with({col}, {lit})"),
    ends_with: TextTest::Like,
    contains: TextTest::Call("strpos({col}, {lit}) > 0"),
    int_text: IntCast::Try {
        int: TRY_CAST_BIGINT.0,
        back: TRY_CAST_BIGINT.1,
        regex: FullMatch {
            call: "regexp_like({col}, {re})",
            anchors: ("\\A", "\\z"),
        },
    },
    arrays: ArrayTest::OneOrAny {
        one: "contains({col}, {x})",
        any: "arrays_overlap({col}, ARRAY[{list}])",
    },
};

const POSTGRES: DialectSpec = DialectSpec {
    name: "postgres",
    aliases: &["postgresql"],
    ident: IdentQuote::DoubleQuote,
    strings: StringLiteral::Standard { chr: true, nul: false },
    table: Table::Typed {
        types: SqlTypes {
            text: "TEXT",
            int: "BIGINT",
            float: "DOUBLE PRECISION",
            bool: "BOOLEAN",
            string_array: "TEXT[]",
            int_array: "BIGINT[]",
        },
        suffix: "",
    },
    query_from: QueryFrom::Table,
    starts_with: TextTest::Call("starts_with({col}, {lit})"),
    ends_with: TextTest::Like,
    contains: TextTest::Call("strpos({col}, {lit}) > 0"),
    // NUMERIC holds every integer.
    int_text: IntCast::Exact {
        canonical: "({col} ~ '^-?(0|[1-9][0-9]*)$' AND {col} <> '-0')",
        int: "CASE WHEN {canonical} THEN CAST({col} AS NUMERIC) END",
    },
    arrays: ArrayTest::OneOrAny {
        one: "{x} = ANY({col})",
        any: "{col} && CAST(ARRAY[{list}] AS {type})",
    },
};

const TRANSFORMER: DialectSpec = DialectSpec {
    name: "transformer",
    aliases: &[],
    ident: IdentQuote::DoubleQuote,
    strings: StringLiteral::Standard { chr: false, nul: false },
    table: Table::Untyped(
        "Logpush transformers read the dataset itself; there is no table to create (use a dialect of the \
         engine the logs land in)",
    ),
    query_from: QueryFrom::Dataset("a Logpush transformer reads the job's dataset; leave the table out"),
    starts_with: TextTest::Like,
    ends_with: TextTest::Like,
    contains: TextTest::Like,
    int_text: IntCast::Unsupported,
    arrays: ArrayTest::Unsupported,
};

const POLARS: DialectSpec = DialectSpec {
    name: "polars",
    aliases: &[],
    ident: IdentQuote::DoubleQuote,
    strings: StringLiteral::Standard { chr: false, nul: true },
    table: Table::Untyped("polars frames have no CREATE TABLE; type them with the polars schema of the dataset"),
    query_from: QueryFrom::Table,
    starts_with: TextTest::Call("starts_with({col}, {lit})"),
    ends_with: TextTest::Call("ends_with({col}, {lit})"),
    contains: TextTest::LiteralRegex("regexp_like({col}, {re})"),
    int_text: IntCast::Try {
        int: TRY_CAST_BIGINT.0,
        back: TRY_CAST_BIGINT.1,
        regex: REGEXP_LIKE,
    },
    arrays: ArrayTest::Each("array_contains({col}, {x})"),
};

impl Dialect {
    /// The dialect's name (`"duckdb"`).
    pub fn as_str(self) -> &'static str {
        self.spec().name
    }

    /// The other names the dialect parses from (`athena` for Trino).
    pub fn aliases(self) -> &'static [&'static str] {
        self.spec().aliases
    }

    /// `name` quoted as an identifier of this dialect (`"ClientIP"`, `` `ClientIP` ``).
    pub fn quote_ident(self, name: &str) -> String {
        match self.spec().ident {
            IdentQuote::DoubleQuote => format!("\"{}\"", name.replace('"', "\"\"")),
            IdentQuote::BacktickDoubled => format!("`{}`", name.replace('`', "``")),
            IdentQuote::BacktickEscaped => format!("`{}`", name.replace('\\', "\\\\").replace('`', "\\`")),
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

    /// A dialect by name or alias, case-insensitive, spaces around ignored (`athena` is
    /// `trino`, `databricks` and `sparksql` are `spark`, `postgresql` is `postgres`).
    fn from_str(s: &str) -> Result<Self, Error> {
        let lower = s.trim().to_ascii_lowercase();
        Dialect::ALL
            .into_iter()
            .find(|d| d.as_str() == lower || d.aliases().contains(&lower.as_str()))
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

/// `template` with each `{name}` of `parts` replaced by its text, in one pass: a part's text
/// is never read as a template (a column named `{lit}` stays as it is).
pub(crate) fn fill(template: &str, parts: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + parts.iter().map(|(_, v)| v.len()).sum::<usize>());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let part = after.find('}').and_then(|close| {
            parts
                .iter()
                .find(|(name, _)| *name == &after[..close])
                .map(|p| (close, p.1))
        });
        if let Some((close, text)) = part {
            out.push_str(text);
            rest = &after[close + 1..];
        } else {
            // A brace of the SQL itself (none of the templates has one today).
            out.push('{');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dialect_names_round_trip_and_aliases() {
        for d in Dialect::ALL {
            assert_eq!(d.as_str().parse::<Dialect>().unwrap(), d);
            assert_eq!(d.as_str().to_uppercase().parse::<Dialect>().unwrap(), d);
            for alias in d.aliases() {
                assert_eq!(alias.parse::<Dialect>().unwrap(), d);
            }
        }
        assert_eq!("athena".parse::<Dialect>().unwrap(), Dialect::Trino);
        assert_eq!("Databricks".parse::<Dialect>().unwrap(), Dialect::Spark);
        assert_eq!(" postgresql ".parse::<Dialect>().unwrap(), Dialect::Postgres);
        let err = "mysql".parse::<Dialect>().unwrap_err().to_string();
        assert!(
            err.starts_with("invalid dialect: `mysql` is not a SQL dialect; use one of duckdb,"),
            "{err}"
        );
    }

    #[test]
    fn every_name_and_alias_is_one_dialects() {
        let mut seen = std::collections::BTreeSet::new();
        for d in Dialect::ALL {
            let spec = d.spec();
            for name in std::iter::once(&spec.name).chain(spec.aliases) {
                assert_eq!(name.to_ascii_lowercase(), *name, "{name}");
                assert!(seen.insert(*name), "`{name}` names two dialects");
            }
        }
    }

    #[test]
    fn identifiers_are_quoted_so_no_name_escapes() {
        assert_eq!(Dialect::DuckDb.quote_ident("a\"b"), "\"a\"\"b\"");
        assert_eq!(Dialect::Spark.quote_ident("a`b"), "`a``b`");
        assert_eq!(Dialect::BigQuery.quote_ident("a`b\\"), "`a\\`b\\\\`");
        assert_eq!(Dialect::Trino.quote_table("cat.db.logs"), "\"cat\".\"db\".\"logs\"");
    }

    /// The printer and `CREATE TABLE` read the descriptions: no code outside them names a
    /// dialect, so none can fall back on another's SQL.
    #[test]
    fn no_code_outside_the_descriptions_names_a_dialect() {
        for (file, text) in [
            ("mod.rs", include_str!("mod.rs")),
            ("table.rs", include_str!("table.rs")),
        ] {
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            for (n, line) in code.lines().enumerate() {
                let named = line.match_indices("Dialect::").any(|(at, m)| {
                    let next = line[at + m.len()..].chars().next();
                    next.is_some_and(char::is_uppercase) && !line[at + m.len()..].starts_with("ALL")
                });
                assert!(!named && !line.contains("use Dialect as"), "{file}:{}: {line}", n + 1);
            }
        }
    }

    #[test]
    fn templates_are_filled_in_one_pass() {
        assert_eq!(
            fill("f({col}, {lit})", &[("col", "\"{lit}\""), ("lit", "'x'")]),
            "f(\"{lit}\", 'x')"
        );
        assert_eq!(fill("{a}{b}{", &[("a", "1"), ("b", "2")]), "12{");
        assert_eq!(fill("x{unknown}y", &[("a", "1")]), "x{unknown}y");
    }
}
