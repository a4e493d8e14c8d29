//! What a change of jobs does to what they deliver and cost, over a sample of logs: the
//! `sample=` of `apply`, `ensure_job` and `check_terraform_plan`. Each side of a change (the
//! job before, the job after; core's `PlanEntry::job_before` / `job_after`, escpush-terraform's
//! `PlannedJob`) is previewed by escpush-scan's `Preview`, counted only, and priced by core's
//! `Pricing::project_cost`; the difference is core's `CostChange`. Nothing here decides: it
//! runs the previews and converts.

use pyo3::prelude::*;
use serde_json::{json, Map, Value};

use escpush_core::{billing_of, Basis, Billing, Cost, CostChange, JobOutput, MonthlyUsage, Pricing};
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
            if requests_per_day.is_some() || scale.is_some() || pricing.is_some() {
                return Err(errors::invalid_input(
                    py,
                    "invalid sample: requests_per_day, scale and pricing price a change over a sample of logs: \
                     give the sample too (sample=, --sample on the command line)",
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

    /// One side of a change: its cost (a side without a job, or a disabled one, costs
    /// nothing) and what to say of it.
    fn side(
        &self,
        py: Python<'_>,
        job: Option<&Map<String, Value>>,
        scope: Option<DatasetScope>,
        label: &str,
        stored: bool,
        notes: &mut Vec<String>,
    ) -> PyResult<(Cost, Value)> {
        let core = |e: escpush_core::Error| errors::core_error(py, &e);
        let nothing = || self.pricing.charge(&MonthlyUsage::new(), false);
        let Some(job) = job else {
            return Ok((nothing(), Value::Null));
        };
        let output = match JobOutput::from_job(job, scope) {
            Ok(output) => output,
            // A job the API holds that escpush cannot read (a field its tables lack): not
            // priced, said so, and the change goes on.
            Err(err) if stored => {
                notes.push(format!("the job as stored is not priced: {err}"));
                return Ok((nothing(), Value::Null));
            }
            // A job's problems name it as the plan does (`jobs[0].output_options`, an address).
            Err(escpush_core::Error::Invalid { problems }) => {
                return Err(core(escpush_core::Error::Invalid {
                    problems: problems.into_iter().map(|p| p.within(label)).collect(),
                }))
            }
            Err(other) => return Err(core(other)),
        };
        let inputs = expand(py, self.sample.clone(), &escpush_scan::Selection::new())?;
        let counted = py
            .detach(|| Preview::new(&output).count(inputs))
            .map_err(|e| errors::scan_error(py, &e, None))?;
        let dataset = output.dataset.name();
        // A destination known only after a Terraform apply: priced at the higher rate.
        let billing = billing_of(output.billing, None, dataset).unwrap_or_else(|_| {
            notes.push("the destination is not known (known after apply): priced as external, the higher rate".into());
            Billing::External
        });
        let cost = self
            .pricing
            .project_cost(&counted.total.sample(), self.basis, billing, dataset, false)
            .map_err(core)?;
        let mut shown = json!({
            "gb_per_month": cost.gb_per_month(),
            "dollars_per_month": cost.total().dollars(),
            "short": cost.short(),
            "text": cost.to_string(),
            "enabled": output.enabled,
        });
        if output.enabled {
            return Ok((cost, shown));
        }
        // Disabled: it delivers nothing; what it would cost enabled is shown beside.
        shown["short"] = format!("nothing (disabled; enabled: {})", cost.short()).into();
        shown["gb_per_month"] = 0.0.into();
        shown["dollars_per_month"] = 0.0.into();
        Ok((nothing(), shown))
    }

    /// `{"before", "after", "change": "-38 GB/month, -$3.80", "gb_per_month",
    /// "dollars_per_month", "note"?}` of a change from `before` to `after` (either `None`:
    /// created or deleted): each side `{"gb_per_month", "dollars_per_month", "short": "720
    /// GB/month, $72.00", "text", "enabled"}` in core's wordings (`None` for a side without a
    /// job); a disabled job delivers nothing (its `short` says what it would cost enabled).
    /// `label` names the job in problems (`jobs[0]`, a Terraform address).
    pub(crate) fn delivery(
        &self,
        py: Python<'_>,
        before: Option<&Map<String, Value>>,
        after: Option<&Map<String, Value>>,
        scope: Option<DatasetScope>,
        label: &str,
    ) -> PyResult<Value> {
        let mut notes = Vec::new();
        let (b, shown_before) = self.side(py, before, scope, label, true, &mut notes)?;
        let (a, shown_after) = self.side(py, after, scope, label, false, &mut notes)?;
        let change = CostChange::between(&b, &a).map_err(|e| errors::core_error(py, &e))?;
        notes.dedup();
        let mut out = json!({
            "before": shown_before,
            "after": shown_after,
            "change": change.to_string(),
            "gb_per_month": change.gb_per_month,
            "dollars_per_month": change.dollars.dollars(),
        });
        if !notes.is_empty() {
            out["note"] = notes.join("; ").into();
        }
        Ok(out)
    }
}
