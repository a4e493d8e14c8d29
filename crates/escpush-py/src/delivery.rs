//! What a change of jobs does to what they deliver and cost, over a sample of logs: the
//! `sample=` of `apply`, `ensure_job` and `check_terraform_plan`. Each side of a change (the
//! job before, the job after; core's `PlanEntry::job_before` / `job_after`, escpush-terraform's
//! `PlannedJob`) is previewed by escpush-scan's `Preview`, counted only, and priced by core's
//! `Pricing::project_cost`; the difference is core's `CostChange`. Nothing here decides: it
//! runs the previews and converts.

use pyo3::prelude::*;
use serde_json::{json, Map, Value};

use escpush_core::{format_gb, Basis, Billing, Cost, CostChange, JobOutput, MonthlyUsage, Pricing};
use escpush_filter::DatasetScope;
use escpush_scan::Preview;

use crate::cost::{pricing_or_default, PyPricing};
use crate::errors;
use crate::scan::{args, expand, Arg};

/// The sample and the pricing a change is measured with.
pub(crate) struct Pricer {
    sample: Vec<Arg>,
    basis: Basis,
    pricing: Pricing,
}

impl Pricer {
    /// `None` without a sample. `sample` names files, folders or globs (read once per side
    /// of every change: not stdin).
    pub(crate) fn new(
        py: Python<'_>,
        sample: Option<&Bound<'_, PyAny>>,
        requests_per_day: Option<f64>,
        scale: Option<f64>,
        pricing: Option<PyRef<'_, PyPricing>>,
    ) -> PyResult<Option<Pricer>> {
        let Some(sample) = sample.filter(|s| !s.is_none()) else {
            if requests_per_day.is_some() || scale.is_some() {
                return Err(errors::invalid_input(
                    py,
                    "invalid sample: requests_per_day and scale project a sample of logs: give sample= too",
                ));
            }
            return Ok(None);
        };
        let sample = args(sample)?;
        if sample.iter().any(|a| matches!(a, Arg::Text(t) if t == "-")) {
            return Err(errors::invalid_input(
                py,
                "invalid sample: `-` (stdin) cannot be read for each side of a change: give files or folders",
            ));
        }
        let basis = Basis::from_options(requests_per_day, scale).map_err(|e| errors::core_error(py, &e))?;
        Ok(Some(Pricer {
            sample,
            basis,
            pricing: pricing_or_default(pricing),
        }))
    }

    /// The month of one job over the sample, priced; `None` (no job on that side) costs nothing.
    fn cost(
        &self,
        py: Python<'_>,
        job: Option<&Map<String, Value>>,
        scope: Option<DatasetScope>,
        label: &str,
    ) -> PyResult<Cost> {
        let core = |e: escpush_core::Error| errors::core_error(py, &e);
        let Some(job) = job else {
            return Ok(self.pricing.charge(&MonthlyUsage::new(), false));
        };
        // A job's problems name it as the plan does (`jobs[0].output_options`, an address).
        let output = JobOutput::from_job(job, scope).map_err(|err| match err {
            escpush_core::Error::Invalid { problems } => core(escpush_core::Error::Invalid {
                problems: problems.into_iter().map(|p| p.within(label)).collect(),
            }),
            other => core(other),
        })?;
        // A destination known only after a Terraform apply: priced at the higher rate.
        let billing = output.billing.unwrap_or(Billing::External);
        let inputs = expand(py, self.sample.clone(), &escpush_scan::Selection::new())?;
        let counted = py
            .detach(|| Preview::new(&output).count(inputs))
            .map_err(|e| errors::scan_error(py, &e, None))?;
        self.pricing
            .project_cost(
                &counted.total.sample(),
                self.basis,
                billing,
                output.dataset.name(),
                false,
            )
            .map_err(core)
    }

    /// `{"before": cost, "after": cost, "change": "-38 GB/month, -$3.80", "gb_per_month",
    /// "dollars_per_month"}` (each cost `{"gb_per_month", "dollars_per_month", "short":
    /// "720 GB/month, $72.00", "text"}`, core's wordings) of a change from `before` to `after` (either `None`: created or
    /// deleted), each cost as `Cost.to_dict()` gives it (`None` for a side without a job).
    /// `label` names the job in problems (`jobs[0]`, a Terraform address).
    pub(crate) fn delivery(
        &self,
        py: Python<'_>,
        before: Option<&Map<String, Value>>,
        after: Option<&Map<String, Value>>,
        scope: Option<DatasetScope>,
        label: &str,
    ) -> PyResult<Value> {
        let (b, a) = (
            self.cost(py, before, scope, label)?,
            self.cost(py, after, scope, label)?,
        );
        let unknown_class = [before, after]
            .into_iter()
            .flatten()
            .any(|job| !job.get("destination_conf").is_some_and(Value::is_string));
        let change = CostChange::between(&b, &a).map_err(|e| errors::core_error(py, &e))?;
        let shown = |cost: &Cost, job: Option<&Map<String, Value>>| -> PyResult<Value> {
            if job.is_none() {
                return Ok(Value::Null);
            }
            Ok(json!({
                "gb_per_month": cost.gb_per_month(),
                "dollars_per_month": cost.total().dollars(),
                "short": format!("{} GB/month, {}", format_gb(cost.gb_per_month()), cost.total()),
                "text": cost.to_string(),
            }))
        };
        let mut out = json!({
            "before": shown(&b, before)?,
            "after": shown(&a, after)?,
            "change": change.to_string(),
            "gb_per_month": change.gb_per_month,
            "dollars_per_month": change.dollars.dollars(),
        });
        if unknown_class {
            out["note"] =
                "the destination is not known (known after apply): priced as external, the higher rate".into();
        }
        Ok(out)
    }
}
