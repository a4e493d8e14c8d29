//! The text form of a filter, in the style of Cloudflare's Rules language:
//!
//! ```text
//! EdgeResponseStatus >= 500 and ClientRequestHost endsWith ".example.com"
//! (ClientCountry in ["cn", "ru"] or ClientASN == 13335) and not ClientRequestPath startsWith "/health"
//! ```
//!
//! A condition is `KEY OP VALUE`: KEY a field name (or a double-quoted string for any other
//! name), OP one of the 14 operator names (`eq`, `!startsWith`, ...) or `==`, `!=`, `<`,
//! `<=`, `>`, `>=` (also the Rules words `ne`, `le`, `ge`, `not in`, `not contains`, and
//! `starts_with(KEY, "x")` / `ends_with(KEY, "x")`), VALUE a JSON string, an integer,
//! `true` / `false`, or a list `[v, ...]` (or a Rules set `{v v}`). `and` binds tighter than
//! `or` (either case; also `&&`, `||`); parentheses group. `not` (or `!`) before a condition
//! or a group is pushed down to the conditions by De Morgan where that is exact, and refused
//! where it is not (`not x < 5`: a missing field fails both `<` and `>=`). A group of one
//! expression is written `and(...)` / `or(...)`. `#` starts a comment to the end of the line.
//!
//! Files: `parser` (text → tree), `token` (operators and values), `error` ([`TextError`]: line, column, caret). The printer
//! is `filter/print/text.rs`.

mod error;
mod parser;
mod token;

pub use error::TextError;
pub(crate) use parser::{is_keyword, parse};

#[cfg(test)]
mod tests;
