//! TEMPORARY (transformer-api branch): replaced by the transformer-sql branch's mod.rs on merge.
mod record;
mod requests;

pub use record::*;
pub use requests::*;

pub const MAX_CODE_BYTES: usize = 10 * 1024;

#[derive(Debug)]
pub struct CheckedTransformer {
    dataset: String,
}
impl CheckedTransformer {
    pub fn dataset(&self) -> &str {
        &self.dataset
    }
}
#[derive(Debug)]
pub struct TransformerProblems(String);
impl std::fmt::Display for TransformerProblems {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
pub fn check(code: &str) -> Result<CheckedTransformer, TransformerProblems> {
    let words: Vec<&str> = code.split_whitespace().collect();
    let at = words.iter().position(|w| w.eq_ignore_ascii_case("from")).ok_or_else(|| TransformerProblems("no FROM".into()))?;
    let dataset = words.get(at + 1).ok_or_else(|| TransformerProblems("no FROM".into()))?;
    escpush_filter::Dataset::get(dataset, None).map_err(|e| TransformerProblems(e.to_string()))?;
    Ok(CheckedTransformer { dataset: (*dataset).to_owned() })
}
pub fn preview(_code: &str, input: &escpush_filter::Json) -> Result<Vec<escpush_filter::Json>, TransformerProblems> {
    Ok(vec![input.clone()])
}
