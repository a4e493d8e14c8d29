//! Every printed form of a filter has its home here, one file per format, each a function
//! of a [`Filter`](super::Filter) (or its [`Expr`](super::Expr) tree):
//!
//! - [`json`]: the canonical compact JSON, the form the API stores (`Filter::to_json`).
//! - [`sql`]: a SQL `WHERE` expression per dialect, over a dataset's typed table
//!   (`Filter::to_sql`, `Filter::to_query`).
//! - [`text`]: the text form people write (`Filter::to_text`; read by `Filter::from_text`).
//!
//! A new output format goes in a new file beside these, exposed here and called from a
//! `Filter::to_<format>` method. Printers only print: the rules of what is valid live in
//! `filter/validate.rs`.

pub mod json;
pub mod sql;
pub mod text;
