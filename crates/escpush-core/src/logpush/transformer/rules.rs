//! The rules a transformer's SQL is held to before upload, one row each with its source:
//! what `check` refuses (and the emulator with it), printed in `docs/transformer-rules.md`
//! (`tests/transformer_doc.rs`).

/// Where the contract is written.
pub const TRANSFORMERS_SOURCE: &str = "cloudflare/cloudflare-docs:src/content/docs/logs/logpush/transformers.mdx";
/// Where the SDK gives its limit of the SQL.
pub const SDK_SOURCE: &str = "cloudflare-python 5.9: src/cloudflare/types/logpush/transformer_preview_params.py";

/// One rule of a transformer's SQL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TransformerRule {
    /// A stable name (`one_select`), quoted in the problem's message.
    pub id: &'static str,
    /// What the rule asks, in a few words.
    pub rule: &'static str,
    /// Where it is written: the page and its section.
    pub source: &'static str,
}

macro_rules! rules {
    ($($id:ident = $rule:literal, $source:literal;)*) => {
        /// Every rule of a transformer's SQL, in the order `check` applies them.
        pub const TRANSFORMER_RULES: &[TransformerRule] = &[
            $(TransformerRule { id: stringify!($id), rule: $rule, source: $source },)*
        ];
    };
}

rules! {
    size = "the SQL is at most `MAX_CODE_BYTES` (10,240) bytes: the docs' 10 KB, past which the API answers 413; the SDK's 32 KB is not enforced (a query between them is refused by the API)", "transformers.mdx, Limits and API errors (413); SDK 5.9 says 32 KB";
    syntax = "the SQL reads as SQL (Pipelines' dialect, DataFusion's parser: sqlparser-rs, generic dialect), with its line and column", "transformers.mdx, Validation (invalid syntax)";
    one_statement = "one statement: a single query per transformer", "transformers.mdx, Not supported (multiple statements)";
    one_select = "the statement is a `SELECT` (with `WITH` common table expressions); no `UNION`, `VALUES`, `INSERT`, `LIMIT`, `DISTINCT`", "transformers.mdx, The SQL transformer contract";
    from_dataset = "the `FROM` names one log-push dataset (or a CTE over it), the job's; one dataset in the whole query", "transformers.mdx, The SQL transformer contract (FROM); Validation (unknown datasets)";
    no_joins = "no joins (`JOIN`, a second table in `FROM`, `CROSS JOIN UNNEST`: write `unnest(x)` in the projection)", "transformers.mdx, Not supported (joins)";
    no_subqueries = "no subqueries (`IN (SELECT ...)`, `EXISTS`, a query in an expression or in `FROM`)", "transformers.mdx, Not supported (subqueries)";
    no_aggregation = "no aggregation: `GROUP BY`, `HAVING`, aggregate functions (`COUNT`, `SUM`, `AVG`, `MIN`, `MAX`, ...)", "transformers.mdx, Not supported (aggregation)";
    no_windows = "no window functions (`OVER`, `QUALIFY`, `WINDOW`)", "transformers.mdx, Not supported (window functions)";
    no_order_by = "no `ORDER BY`", "transformers.mdx, Not supported (ORDER BY)";
    known_fields = "every column is a field of the dataset (or of the CTE it reads), with a did-you-mean; names are case-sensitive as written", "transformers.mdx, Validation (unknown fields)";
    types = "operators and functions get values of their types (a text field compared with a number, `UPPER` of an integer, `LIKE` on a number, a `WHERE` that is not a condition are refused)", "transformers.mdx, Validation (wrong types)";
    known_functions = "scalar functions from the documented list and DataFusion's common ones escpush evaluates (`UPPER`, `LOWER`, `COALESCE`, `CAST`, `extract`, `to_timestamp`, `named_struct`, `unnest`, ...); any other is refused as unsupported", "transformers.mdx, Supported SQL (scalar functions)";
    unnest = "`unnest` is a projection's whole expression, at most one in a `SELECT`", "transformers.mdx, Supported SQL (UNNEST)";
}

/// The rule named `id`.
pub(crate) fn rule(id: &str) -> &'static TransformerRule {
    TRANSFORMER_RULES
        .iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| unreachable!("no transformer rule {id}"))
}
