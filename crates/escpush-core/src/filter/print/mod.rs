//! Every printed form of a filter has its home here, one file per format, each a function
//! of a [`Filter`](super::Filter) (or its [`Expr`](super::Expr) tree):
//!
//! - [`json`]: the canonical compact JSON, the form the API stores (`Filter::to_json`).
//! - [`text`]: the text form people write (`Filter::to_text`; read by `Filter::from_text`).
//!
//! A new output format (the text form, SQL, ...) goes in a new file beside `json.rs`,
//! exposed here and called from a `Filter::to_<format>` method. Printers only print: the
//! rules of what is valid live in `filter/validate.rs`.

pub mod json;
pub mod text;
