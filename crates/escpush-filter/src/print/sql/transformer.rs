//! A filter printed as a Logpush transformer (transformers.mdx): `SELECT <fields> FROM
//! <dataset> WHERE <the filter in the transformer dialect>`, the SQL that delivers the
//! records the filter keeps, with the fields a job's `field_names` would deliver (or `*`).
//! escpush-core's `transformer::check` accepts what it prints; tests/sql/test_transformer.py
//! proves it on DataFusion (the engine of Pipelines' SQL) against `Filter::matches`.

use super::{to_sql, Dialect};
use crate::dataset::{field_list_problems, Dataset};
use crate::error::Error;
use crate::problem::{FilterError, ProblemCode};
use crate::Filter;

/// The transformer that keeps the records `filter` keeps, delivering `fields` (a job's
/// `field_names`, in order; all of the record when `None`).
///
/// # Errors
///
/// Those of [`to_sql`] in the transformer dialect (arrays and integer comparisons on
/// `int or string` fields have no portable form there), and [`Error::Filter`] for a field
/// list with an unknown, empty or repeated name (path `fields[i]`).
pub fn to_transformer(filter: &Filter, dataset: &Dataset, fields: Option<&[&str]>) -> Result<String, Error> {
    let select = match fields {
        None => "*".to_owned(),
        Some(names) => {
            let problems = field_list_problems(
                "fields",
                names.iter().copied().map(Some),
                dataset,
                ProblemCode::InvalidValue,
            );
            if !problems.is_empty() {
                return Err(FilterError::new(problems).into());
            }
            names
                .iter()
                .map(|n| Dialect::Transformer.quote_ident(n))
                .collect::<Vec<_>>()
                .join(",\n  ")
        }
    };
    let condition = to_sql(filter, Dialect::Transformer, dataset)?;
    Ok(format!(
        "SELECT\n  {select}\nFROM {}\nWHERE {condition}",
        dataset.name()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field;

    #[test]
    fn a_filter_becomes_a_select_of_the_jobs_fields_over_its_dataset() {
        let http = Dataset::get("http_requests", None).unwrap();
        let filter = field("EdgeResponseStatus").ge(500) & field("ClientRequestHost").eq("a.example");
        assert_eq!(
            to_transformer(&filter, http, Some(&["ClientIP", "RayID"])).unwrap(),
            "SELECT\n  \"ClientIP\",\n  \"RayID\"\nFROM http_requests\nWHERE (COALESCE(\"EdgeResponseStatus\" >= 500, FALSE) AND COALESCE(\"ClientRequestHost\" = 'a.example', FALSE))"
        );
        assert!(to_transformer(&filter, http, None)
            .unwrap()
            .starts_with("SELECT\n  *\nFROM http_requests\nWHERE "));
        let err = to_transformer(&filter, http, Some(&["ClientIp"]))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("fields[0]") && err.contains("did you mean `ClientIP`?"),
            "{err}"
        );
    }
}
