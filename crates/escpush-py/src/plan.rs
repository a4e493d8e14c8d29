//! Plans of log-push jobs from Python: the desired jobs `apply` takes, the `variables=` that
//! fill their credential references, and the check of a Terraform plan.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::convert;
use crate::convert::Text;
use crate::cost::PyPricing;
use crate::delivery::Pricer;
use crate::errors;
use crate::job::job_fields;

/// The desired jobs given to `apply`: `{"jobs": [...]}` whose jobs take their fields in every
/// form `create_job` does (a `Filter`, `LogpullOptions`); any other shape goes to core as
/// JSON, which says what is wrong with it.
pub(crate) fn jobs_doc(py: Python<'_>, jobs: &Bound<'_, PyAny>) -> PyResult<serde_json::Value> {
    let member = |name: &str| jobs.cast::<PyDict>().ok().and_then(|d| d.get_item(name).ok().flatten());
    let listed = member("jobs").and_then(|l| l.cast_into::<PyList>().ok());
    if let Some(items) = listed {
        let mut out = Vec::new();
        for item in items.iter() {
            out.push(match item.cast::<PyDict>() {
                Ok(fields) => serde_json::Value::Object(job_fields(py, Some(fields))?),
                Err(_) => convert::to_json(&item, "jobs")
                    .map_err(|m| errors::invalid_input(py, m))?
                    .into(),
            });
        }
        let mut doc = serde_json::json!({ "jobs": out });
        // Where each job was read from (`read_terraform`'s resource addresses), for problems to name.
        if let Some(addresses) = member("addresses") {
            doc["addresses"] = convert::to_json(&addresses, "addresses")
                .map_err(|m| errors::invalid_input(py, m))?
                .into();
        }
        return Ok(doc);
    }
    Ok(convert::to_json(jobs, "jobs")
        .map_err(|m| errors::invalid_input(py, m))?
        .into())
}

/// What a Terraform plan would change on log-push jobs: `plan` is the JSON of `terraform
/// show -json PLANFILE` (its text, or the parsed dict), in HashiCorp's documented format.
/// For each change of a `cloudflare_logpush_job`, whether its filter change is spelling
/// only, the same by meaning (`Filter.equivalent`) or real (with a record on which the two
/// differ, `Filter.counterexample`), what the API would refuse in the filter a change leaves
/// (`filter_problems`), and the other attributes that change; `real` says
/// whether any change is real. Sensitive values and credentials are never shown.
///
/// With `sample` (logs: files, folders, globs), each change also says what it does to what
/// the job delivers and costs a month (`delivery`: the job before and after previewed over
/// the sample, projected by its span or `requests_per_day` / `scale`, priced by `pricing`;
/// as `apply(sample=...)` gives it).
#[pyfunction]
#[pyo3(signature = (plan, *, sample=None, requests_per_day=None, scale=None, pricing=None))]
pub fn check_terraform_plan(
    py: Python<'_>,
    plan: &Bound<'_, PyAny>,
    sample: Option<&Bound<'_, PyAny>>,
    requests_per_day: Option<f64>,
    scale: Option<f64>,
    pricing: Option<PyRef<'_, PyPricing>>,
) -> PyResult<Py<PyAny>> {
    let pricer = Pricer::new(py, sample, requests_per_day, scale, pricing)?;
    let value: serde_json::Value = if let Ok(text) = plan.extract::<Text>() {
        serde_json::from_str(&text).map_err(|e| errors::invalid_input(py, format!("the plan is not JSON: {e}")))?
    } else {
        convert::to_json(plan, "plan")
            .map_err(|m| errors::invalid_input(py, m))?
            .into()
    };
    let mut report = py
        .detach(|| escpush_terraform::check_terraform_plan(&value))
        .map_err(|e| errors::core_error(py, &e))?;
    if let Some(pricer) = &pricer {
        let jobs = escpush_terraform::terraform_plan_jobs(&value).map_err(|e| errors::core_error(py, &e))?;
        if let Some(changes) = report["changes"].as_array_mut() {
            for change in changes {
                let Some(job) = jobs.iter().find(|j| change["address"] == j.address.as_str()) else {
                    continue;
                };
                change["delivery"] =
                    pricer.delivery(py, job.before.as_ref(), job.after.as_ref(), None, &job.address)?;
            }
        }
    }
    convert::from_json(py, &report)
}

/// The `variables=` of `ensure_job` and `apply`: any mapping of str to str (`os.environ` is
/// one, and not a dict), read through its `items()`.
pub(crate) fn variable_map(variables: &Bound<'_, PyAny>) -> PyResult<std::collections::HashMap<String, String>> {
    let items = variables
        .call_method0("items")
        .and_then(|items| items.try_iter())
        .map_err(|_| {
            errors::invalid_input(
                variables.py(),
                "invalid variables: a mapping of str to str is needed, like os.environ",
            )
        })?;
    let mut map = std::collections::HashMap::new();
    for item in items {
        let (name, value): (String, String) = item?
            .extract()
            .map_err(|_| errors::invalid_input(variables.py(), "invalid variables: each name and value is a str"))?;
        map.insert(name, value);
    }
    Ok(map)
}
