//! sqlparser's tree to a checked [`Query`]: the contract of transformers.mdx applied node by
//! node (`rules.rs` names each rule), every column resolved against the dataset's fields
//! (or an earlier CTE's columns) and every expression typed; problems at their line and
//! column.

use escpush_filter::{suggest, Dataset, Problem, ProblemCode};
use sqlparser::ast::{
    self, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, GroupByExpr, ObjectNamePart, SelectItem, SetExpr,
    Spanned, Statement, TableFactor,
};
use sqlparser::tokenizer::Span;

use super::ir::{Item, Query, Source, Stage, Ty, E};
use super::rules::rule;

/// The columns a stage reads: a dataset's fields or an earlier stage's output.
#[derive(Clone, Debug)]
pub(crate) enum Columns {
    Dataset(&'static Dataset),
    Named(Vec<(String, Ty)>),
}

impl Columns {
    pub(crate) fn get(&self, name: &str) -> Option<Ty> {
        match self {
            Columns::Dataset(d) => d.field(name).map(|f| Ty::of_field(f.field_type())),
            Columns::Named(cols) => cols.iter().find(|(n, _)| n == name).map(|(_, t)| t.clone()),
        }
    }

    pub(crate) fn suggest(&self, name: &str) -> Option<String> {
        match self {
            Columns::Dataset(d) => d.suggest_field(name).map(str::to_owned),
            Columns::Named(cols) => suggest::closest(name, cols.iter().map(|(n, _)| (n.as_str(), n.clone()))),
        }
    }

    pub(crate) fn all(&self) -> Vec<(String, Ty)> {
        match self {
            Columns::Dataset(d) => d
                .fields()
                .iter()
                .map(|f| (f.name().to_owned(), Ty::of_field(f.field_type())))
                .collect(),
            Columns::Named(cols) => cols.clone(),
        }
    }
}

/// The lowering of one query: its problems so far and the dataset its `FROM` names.
pub(crate) struct Lower {
    pub(crate) problems: Vec<Problem>,
    pub(crate) dataset: Option<&'static Dataset>,
    stage_columns: Vec<(String, Columns)>,
    /// Where the whole query starts, for a node without a position of its own.
    fallback: Span,
}

/// `line L, column C`: the path of a problem in the SQL (1-based, as sqlparser counts).
pub(crate) fn at(span: Span) -> String {
    format!("line {}, column {}", span.start.line.max(1), span.start.column.max(1))
}

impl Lower {
    pub(crate) fn new() -> Self {
        Lower {
            problems: Vec::new(),
            dataset: None,
            stage_columns: Vec::new(),
            fallback: Span::empty(),
        }
    }

    pub(crate) fn problem(&mut self, span: Span, code: ProblemCode, rule_id: &str, message: impl std::fmt::Display) {
        let span = if span.start.line == 0 { self.fallback } else { span };
        let rule = rule(rule_id);
        self.problems.push(Problem::new(
            at(span),
            code,
            format!("{message} (rule `{}`: {})", rule.id, rule.source),
        ));
    }

    pub(crate) fn unsupported(&mut self, span: Span, rule_id: &str, what: impl std::fmt::Display) {
        self.problem(
            span,
            ProblemCode::Unsupported,
            rule_id,
            format!("{what} is not supported in a transformer"),
        );
    }

    /// The one statement's query, lowered.
    pub(crate) fn statement(&mut self, statement: &Statement) -> Option<Query> {
        self.fallback = statement.span();
        let Statement::Query(query) = statement else {
            let word = statement.to_string();
            let word = word.split_whitespace().next().unwrap_or("").to_uppercase();
            self.unsupported(
                statement.span(),
                "one_select",
                format_args!("a `{}` statement (a transformer is one `SELECT`)", suggest::cut(&word)),
            );
            return None;
        };
        let mut stages = Vec::new();
        if let Some(with) = &query.with {
            if with.recursive {
                self.unsupported(with.with_token.0.span, "one_select", "`WITH RECURSIVE`");
            }
            for cte in &with.cte_tables {
                let name = cte.alias.name.value.clone();
                if !cte.alias.columns.is_empty() {
                    self.unsupported(cte.alias.name.span, "one_select", "a CTE's column list");
                }
                if let Some(stage) = self.query(&cte.query, Some(name), &mut stages) {
                    stages.push(stage);
                }
            }
        }
        let main = self.query_body(query, None, &stages)?;
        stages.push(main);
        Some(Query { stages })
    }

    fn query(&mut self, query: &ast::Query, name: Option<String>, stages: &mut [Stage]) -> Option<Stage> {
        if query.with.is_some() {
            self.unsupported(query.span(), "no_subqueries", "a `WITH` inside a CTE");
        }
        self.query_body(query, name, stages)
    }

    fn query_body(&mut self, query: &ast::Query, name: Option<String>, stages: &[Stage]) -> Option<Stage> {
        if let Some(order) = &query.order_by {
            self.unsupported(order.span(), "no_order_by", "`ORDER BY`");
        }
        if let Some(limit) = &query.limit_clause {
            self.unsupported(
                limit.span(),
                "one_select",
                "`LIMIT` (a transformer runs on each record)",
            );
        }
        if query.fetch.is_some() {
            self.unsupported(query.span(), "one_select", "`FETCH`");
        }
        let select = match query.body.as_ref() {
            SetExpr::Select(select) => select,
            SetExpr::Query(inner) => {
                self.unsupported(inner.span(), "no_subqueries", "a parenthesised query");
                return None;
            }
            SetExpr::SetOperation { op, .. } => {
                self.unsupported(query.body.span(), "one_select", format_args!("`{op}`"));
                return None;
            }
            other => {
                self.unsupported(other.span(), "one_select", "a statement that is not a `SELECT`");
                return None;
            }
        };
        let _ = stages;
        self.select(select, name)
    }

    fn select(&mut self, select: &ast::Select, name: Option<String>) -> Option<Stage> {
        let span = select.span();
        if select.distinct.is_some() {
            self.unsupported(span, "one_select", "`DISTINCT`");
        }
        match &select.group_by {
            GroupByExpr::Expressions(e, m) if e.is_empty() && m.is_empty() => {}
            group => self.unsupported(group_span(group, span), "no_aggregation", "`GROUP BY`"),
        }
        if let Some(having) = &select.having {
            self.unsupported(having.span(), "no_aggregation", "`HAVING`");
        }
        if select.qualify.is_some() || !select.named_window.is_empty() {
            self.unsupported(span, "no_windows", "a window (`QUALIFY`, `WINDOW`)");
        }
        if !select.sort_by.is_empty() {
            self.unsupported(span, "no_order_by", "`SORT BY`");
        }
        if !select.lateral_views.is_empty() {
            self.unsupported(span, "no_joins", "`LATERAL VIEW`");
        }
        if select.into.is_some() || select.top.is_some() || select.prewhere.is_some() {
            self.unsupported(span, "one_select", "`INTO`, `TOP` or `PREWHERE`");
        }
        let (source, columns) = self.from(select, span)?;
        let (items, out) = self.projection(&select.projection, &columns);
        let filter = select.selection.as_ref().and_then(|w| {
            let (e, t) = self.expr(w, &columns)?;
            if !matches!(t, Ty::Bool | Ty::Any | Ty::Null) {
                self.problem(
                    w.span(),
                    ProblemCode::ValueTypeMismatch,
                    "types",
                    format_args!("`WHERE` needs a condition, not {}", t.name()),
                );
            }
            Some(e)
        });
        if let Some(name) = &name {
            self.stage_columns.push((name.clone(), Columns::Named(out)));
        }
        Some(Stage {
            name,
            source,
            items,
            filter,
        })
    }

    /// A `SELECT`'s items, and the columns they give.
    fn projection(&mut self, projection: &[SelectItem], columns: &Columns) -> (Vec<Item>, Vec<(String, Ty)>) {
        let mut items = Vec::new();
        let mut out: Vec<(String, Ty)> = Vec::new();
        let mut unnests = 0;
        for item in projection {
            match item {
                SelectItem::Wildcard(options) => {
                    if options.opt_exclude.is_some()
                        || options.opt_except.is_some()
                        || options.opt_rename.is_some()
                        || options.opt_replace.is_some()
                        || options.opt_ilike.is_some()
                    {
                        self.unsupported(item.span(), "one_select", "`*` with options");
                    }
                    items.push(Item::All);
                    out.extend(columns.all());
                }
                SelectItem::QualifiedWildcard(..) => {
                    self.unsupported(item.span(), "one_select", "a qualified `*` (write `*`)");
                }
                SelectItem::UnnamedExpr(expr) | SelectItem::ExprWithAlias { expr, .. } => {
                    let alias = match item {
                        SelectItem::ExprWithAlias { alias, .. } => Some(alias.value.clone()),
                        _ => None,
                    };
                    let name = alias.unwrap_or_else(|| default_name(expr));
                    let lowered = if let Some(inner) = unnest_arg(expr) {
                        unnests += 1;
                        if unnests > 1 {
                            self.unsupported(expr.span(), "unnest", "a second `unnest` in one `SELECT`");
                        }
                        self.expr(inner, columns).map(|(e, t)| {
                            let element = match t {
                                Ty::Array(inner) => *inner,
                                Ty::Any | Ty::Null => Ty::Any,
                                other => {
                                    self.problem(
                                        inner.span(),
                                        ProblemCode::ValueTypeMismatch,
                                        "types",
                                        format_args!("`unnest` takes an array, not {}", other.name()),
                                    );
                                    Ty::Any
                                }
                            };
                            (E::Unnest(Box::new(e)), element)
                        })
                    } else {
                        self.expr(expr, columns)
                    };
                    if let Some((expr, ty)) = lowered {
                        out.push((name.clone(), ty));
                        items.push(Item::Column { name, expr });
                    }
                }
                other @ SelectItem::ExprWithAliases { .. } => {
                    self.unsupported(other.span(), "one_select", "this projection");
                }
            }
        }
        (items, out)
    }

    /// The `FROM`: one table, the dataset or an earlier CTE.
    fn from(&mut self, select: &ast::Select, span: Span) -> Option<(Source, Columns)> {
        let [table] = select.from.as_slice() else {
            if select.from.is_empty() {
                self.problem(
                    span,
                    ProblemCode::MissingMember,
                    "from_dataset",
                    "a transformer's `SELECT` needs `FROM` and the job's dataset",
                );
            } else {
                self.unsupported(select.from[1].span(), "no_joins", "a second table in `FROM` (a join)");
            }
            return None;
        };
        if let Some(join) = table.joins.first() {
            self.unsupported(join.span(), "no_joins", "a join");
        }
        let (name, alias_ok) = match &table.relation {
            TableFactor::Table { name, args: None, .. } => (name, true),
            TableFactor::Derived { subquery, .. } => {
                self.unsupported(subquery.span(), "no_subqueries", "a subquery in `FROM`");
                return None;
            }
            TableFactor::UNNEST { .. } => {
                self.unsupported(
                    table.relation.span(),
                    "unnest",
                    "`UNNEST` in `FROM` (write `unnest(field)` in the projection)",
                );
                return None;
            }
            other => {
                self.unsupported(other.span(), "from_dataset", "this `FROM`");
                return None;
            }
        };
        let _ = alias_ok;
        let parts: Vec<&ast::Ident> = name
            .0
            .iter()
            .filter_map(|p| match p {
                ObjectNamePart::Identifier(i) => Some(i),
                ObjectNamePart::Function(_) => None,
            })
            .collect();
        let [ident] = parts.as_slice() else {
            self.problem(
                name.span(),
                ProblemCode::UnknownDataset,
                "from_dataset",
                format_args!(
                    "`{}` is not a dataset's name (write the dataset alone, as `http_requests`)",
                    suggest::cut(&name.to_string())
                ),
            );
            return None;
        };
        if let Some(i) = self.stage_columns.iter().position(|(n, _)| *n == ident.value) {
            return Some((Source::Stage(i), self.stage_columns[i].1.clone()));
        }
        if let Ok(dataset) = Dataset::get(&ident.value, None) {
            if let Some(first) = self.dataset {
                if first.name() != dataset.name() {
                    self.problem(
                        ident.span,
                        ProblemCode::UnknownDataset,
                        "from_dataset",
                        format_args!(
                            "`{}` is a second dataset (the query reads `{}`)",
                            dataset.name(),
                            first.name()
                        ),
                    );
                }
            }
            self.dataset = Some(dataset);
            return Some((Source::Dataset, Columns::Dataset(dataset)));
        }
        let names = self.stage_columns.iter().map(|(n, _)| (n.as_str(), n.clone()));
        let suggestion = suggest::closest(
            &ident.value,
            escpush_filter::datasets()
                .iter()
                .map(|d| (d.name(), d.name().to_owned()))
                .chain(names),
        );
        self.problem(
            ident.span,
            ProblemCode::UnknownDataset,
            "from_dataset",
            format_args!(
                "`{}` is not a log-push dataset{}",
                suggest::cut(&ident.value),
                suggest::did_you_mean(suggestion.as_deref())
            ),
        );
        None
    }
}

fn group_span(group: &GroupByExpr, fallback: Span) -> Span {
    match group {
        GroupByExpr::Expressions(e, _) => e.first().map_or(fallback, Spanned::span),
        GroupByExpr::All(_) => fallback,
    }
}

/// `unnest(x)`'s argument, when `expr` is that call.
fn unnest_arg(expr: &Expr) -> Option<&Expr> {
    let Expr::Function(f) = expr else { return None };
    if !f.name.to_string().eq_ignore_ascii_case("unnest") || f.over.is_some() {
        return None;
    }
    match &f.args {
        FunctionArguments::List(list) => match list.args.as_slice() {
            [FunctionArg::Unnamed(FunctionArgExpr::Expr(e))]
                if list.clauses.is_empty() && list.duplicate_treatment.is_none() =>
            {
                Some(e)
            }
            _ => None,
        },
        _ => None,
    }
}

/// The name of a projection without `AS`: a column's own name, else the expression as
/// written (DataFusion names it so too).
fn default_name(expr: &Expr) -> String {
    match expr {
        Expr::Identifier(ident) => ident.value.clone(),
        other => other.to_string(),
    }
}
