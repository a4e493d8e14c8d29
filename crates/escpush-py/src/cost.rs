//! `escpush.Pricing`, `escpush.Cost`, `escpush.CostChange`, `project_cost`, `account_cost`
//! and `monthly_cost`: core's pricing (`escpush_core::Pricing`) converted, nothing decided.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use escpush_core::{
    billing_of, Basis, Billing, Component, ComponentCost, Cost, CostChange, MonthlyUsage, Pricing, Sample,
    BYTES_PER_GB, DAYS_PER_MONTH, PRICING_SOURCE, REQUESTS_PER_MILLION,
};

use crate::convert::{Int, Text};
use crate::errors;

/// The prices an account pays: Logpush's published table (pricing.mdx), or an Enterprise
/// contract's rates and included amounts given by keyword.
#[pyclass(name = "Pricing", module = "escpush", frozen, eq)]
#[derive(Clone, Debug, PartialEq)]
pub struct PyPricing {
    pub(crate) inner: Pricing,
}

/// A row as a dict: `component`, `usage`, `applies_to`, `included`, `unit`, `rate`,
/// `rate_shown` (`$0.03`), `rate_unit`, `rate_option`, `included_option`, `source`.
fn price_dict<'py>(py: Python<'py>, p: &escpush_core::Price) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("component", p.component.name())?;
    d.set_item("usage", p.usage)?;
    d.set_item("applies_to", p.applies_to)?;
    d.set_item("included", p.included_units())?;
    d.set_item("unit", p.component.unit().as_str())?;
    d.set_item("rate", p.rate.dollars())?;
    d.set_item("rate_shown", p.rate.to_string())?;
    d.set_item("rate_unit", format!("$ per {}", p.component.unit().as_str()))?;
    d.set_item("rate_option", p.component.rate_option())?;
    d.set_item("included_option", p.component.included_option())?;
    d.set_item("source", p.source)?;
    Ok(d)
}

#[pymethods]
impl PyPricing {
    /// `Pricing()` is the published table; `Pricing(external_rate=0.08, external_included=0)`
    /// overrides rows (rates in dollars per GB, or per million requests for `workers`;
    /// included amounts in GB, or millions of requests).
    #[new]
    #[pyo3(signature = (
        *, internal_rate=None, internal_included=None, external_rate=None, external_included=None,
        transform_rate=None, transform_included=None, workers_rate=None, workers_included=None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn py_new(
        py: Python<'_>,
        internal_rate: Option<f64>,
        internal_included: Option<f64>,
        external_rate: Option<f64>,
        external_included: Option<f64>,
        transform_rate: Option<f64>,
        transform_included: Option<f64>,
        workers_rate: Option<f64>,
        workers_included: Option<f64>,
    ) -> PyResult<Self> {
        let given = [
            (Component::InternalExport, internal_rate, internal_included),
            (Component::ExternalExport, external_rate, external_included),
            (Component::Transformation, transform_rate, transform_included),
            (Component::WorkersRequests, workers_rate, workers_included),
        ];
        let mut inner = Pricing::cloudflare();
        for (c, rate, included) in given {
            if let Some(r) = rate {
                inner = inner.with_rate(c, r).map_err(|e| errors::core_error(py, &e))?;
            }
            if let Some(i) = included {
                inner = inner.with_included(c, i).map_err(|e| errors::core_error(py, &e))?;
            }
        }
        Ok(PyPricing { inner })
    }

    /// This pricing with one more override by its name (`external_rate`, `internal_included`,
    /// ...): how the command line's `--override NAME=VALUE` gives them.
    fn with_override(&self, py: Python<'_>, name: Text, value: f64) -> PyResult<PyPricing> {
        self.inner
            .clone()
            .with_override(&name, value)
            .map(|inner| PyPricing { inner })
            .map_err(|e| errors::core_error(py, &e))
    }

    /// Whether it is the published table, no override.
    #[getter]
    fn published(&self) -> bool {
        self.inner.is_cloudflare()
    }

    /// The rows, one dict a component, in the table's order.
    fn rows<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for p in self.inner.prices() {
            list.append(price_dict(py, p)?)?;
        }
        Ok(list)
    }

    /// The rows, the source (page, commit, effective, read) and the units.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let s = PyDict::new(py);
        s.set_item("page", PRICING_SOURCE.page)?;
        s.set_item("commit", PRICING_SOURCE.commit)?;
        s.set_item("effective", PRICING_SOURCE.effective)?;
        s.set_item("read", PRICING_SOURCE.read)?;
        d.set_item("source", s)?;
        d.set_item("published", self.inner.is_cloudflare())?;
        d.set_item("bytes_per_gb", BYTES_PER_GB)?;
        d.set_item("requests_per_million", REQUESTS_PER_MILLION)?;
        d.set_item("days_per_month", DAYS_PER_MONTH)?;
        d.set_item("rows", self.rows(py)?)?;
        Ok(d)
    }

    /// `Pricing()`, or the overrides that differ from the published table.
    fn __repr__(&self) -> String {
        let published = Pricing::cloudflare();
        let mut parts = Vec::new();
        for p in self.inner.prices() {
            let base = published.price(p.component);
            if p.rate != base.rate {
                parts.push(format!("{}={:?}", p.component.rate_option(), p.rate.dollars()));
            }
            if p.included != base.included {
                parts.push(format!("{}={:?}", p.component.included_option(), p.included_units()));
            }
        }
        format!("Pricing({})", parts.join(", "))
    }
}

/// A month's cost: each component priced on its own, the account's allowance shown (and
/// subtracted only when asked).
#[pyclass(name = "Cost", module = "escpush", frozen)]
#[derive(Clone, Debug)]
pub struct PyCost {
    pub(crate) inner: Cost,
}

fn component_dict<'py>(py: Python<'py>, c: &ComponentCost) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("component", c.component.name())?;
    d.set_item("unit", c.component.unit().as_str())?;
    d.set_item("usage", c.usage_units())?;
    d.set_item("included", c.included_units())?;
    d.set_item("rate", c.rate.dollars())?;
    d.set_item("gross", c.gross.dollars())?;
    d.set_item("allowance_saves", c.allowance_saves.dollars())?;
    d.set_item("dollars", c.charge.dollars())?;
    Ok(d)
}

#[pymethods]
impl PyCost {
    /// Uncompressed GB delivered a month (10^9 bytes).
    #[getter]
    fn gb_per_month(&self) -> f64 {
        self.inner.gb_per_month()
    }

    /// Dollars a month: every component's charge.
    #[getter]
    fn dollars_per_month(&self) -> f64 {
        self.inner.total().dollars()
    }

    /// `"internal"` or `"external"` for a job's cost; None for an account's.
    #[getter]
    fn destination_class(&self) -> Option<&'static str> {
        self.inner.projection.map(|p| p.billing.as_str())
    }

    /// The component the deliveries are billed as: `internal`, `external` or `workers`.
    #[getter]
    fn component(&self) -> Option<&'static str> {
        self.inner.delivery().map(|c| c.component.name())
    }

    /// The deliveries' rate, in dollars per `unit`.
    #[getter]
    fn rate(&self) -> Option<f64> {
        self.inner.delivery().map(|c| c.rate.dollars())
    }

    /// `"GB"` or `"million requests"`: the deliveries' unit.
    #[getter]
    fn unit(&self) -> Option<&'static str> {
        self.inner.delivery().map(|c| c.component.unit().as_str())
    }

    /// The deliveries' amount included each month per account, in `unit`.
    #[getter]
    fn included(&self) -> Option<f64> {
        self.inner.delivery().map(ComponentCost::included_units)
    }

    /// Dollars the account's included amounts take off (shown whether or not subtracted).
    #[getter]
    fn allowance_saves(&self) -> f64 {
        self.inner.allowance_saves().dollars()
    }

    /// Whether the allowance is subtracted from `dollars_per_month`.
    #[getter]
    fn allowance_subtracted(&self) -> bool {
        self.inner.allowance_subtracted
    }

    /// A month is the sample times this; None for an account's cost.
    #[getter]
    fn scale(&self) -> Option<f64> {
        self.inner.projection.map(|p| p.scale)
    }

    /// How the sample was made a month: `span`, `requests_per_day` or `scale`.
    #[getter]
    fn basis(&self) -> Option<&'static str> {
        self.inner.projection.map(|p| p.basis.name())
    }

    /// Whether the prices were the published table's.
    #[getter]
    fn published_prices(&self) -> bool {
        self.inner.published_prices
    }

    /// Each component: `component`, `unit`, `usage`, `included`, `rate`, `gross`,
    /// `allowance_saves`, `dollars`.
    #[getter]
    fn components<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for c in &self.inner.components {
            list.append(component_dict(py, c)?)?;
        }
        Ok(list)
    }

    /// Every number, as plain data.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("gb_per_month", self.gb_per_month())?;
        d.set_item("dollars_per_month", self.dollars_per_month())?;
        d.set_item("destination_class", self.destination_class())?;
        d.set_item("component", self.component())?;
        d.set_item("unit", self.unit())?;
        d.set_item("rate", self.rate())?;
        d.set_item("included", self.included())?;
        d.set_item("allowance_saves", self.allowance_saves())?;
        d.set_item("allowance_subtracted", self.allowance_subtracted())?;
        d.set_item("basis", self.basis())?;
        d.set_item("scale", self.scale())?;
        d.set_item("published_prices", self.published_prices())?;
        d.set_item("components", self.components(py)?)?;
        Ok(d)
    }

    /// What changing from this cost to `after` does: `-38 GB/month, -$3.80`.
    fn change_to(&self, py: Python<'_>, after: PyRef<'_, PyCost>) -> PyResult<PyCostChange> {
        CostChange::between(&self.inner, &after.inner)
            .map(|inner| PyCostChange { inner })
            .map_err(|e| errors::core_error(py, &e))
    }

    /// `720 GB/month, $72.00 (external, $0.10 per GB; the account's 25 GB included would save $2.50)`.
    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    fn __repr__(&self) -> String {
        format!(
            "Cost(gb_per_month={:?}, dollars_per_month={:?}, allowance_subtracted={})",
            self.inner.gb_per_month(),
            self.inner.total().dollars(),
            if self.inner.allowance_subtracted {
                "True"
            } else {
                "False"
            }
        )
    }
}

/// Before and after of a change: `-38 GB/month, -$3.80`.
#[pyclass(name = "CostChange", module = "escpush", frozen)]
#[derive(Clone, Debug)]
pub struct PyCostChange {
    inner: CostChange,
}

#[pymethods]
impl PyCostChange {
    /// GB a month, after minus before.
    #[getter]
    fn gb_per_month(&self) -> f64 {
        self.inner.gb_per_month
    }

    /// Dollars a month, after minus before.
    #[getter]
    fn dollars_per_month(&self) -> f64 {
        self.inner.dollars.dollars()
    }

    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("gb_per_month", self.inner.gb_per_month)?;
        d.set_item("dollars_per_month", self.inner.dollars.dollars())?;
        d.set_item("text", self.inner.to_string())?;
        Ok(d)
    }

    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!("CostChange({})", crate::convert::repr(py, &self.inner.to_string()))
    }
}

pub(crate) fn pricing_or_default(pricing: Option<PyRef<'_, PyPricing>>) -> Pricing {
    pricing.map_or_else(Pricing::cloudflare, |p| p.inner.clone())
}

/// A count given from Python: 0 or more, else `InvalidInput` naming it.
fn count(py: Python<'_>, what: &str, value: Int) -> PyResult<u64> {
    let v = value.within(py, what, 0, i64::MAX)?;
    Ok(u64::try_from(v).unwrap_or(0))
}

/// The month and the cost of a job from a sample's measure: `delivered_bytes` (uncompressed,
/// what the job's formatter delivers for the sample), made a month by the sample's
/// `span_seconds`, or `requests_per_day` (for its `lines_read`), or a plain `scale`.
#[pyfunction]
#[pyo3(signature = (
    delivered_bytes, *, dataset, destination_conf=None, destination_class=None, span_seconds=None,
    delivered_records=None, lines_read=None, requests_per_day=None, scale=None, transform_bytes=None,
    subtract_allowance=false, pricing=None
))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn project_cost(
    py: Python<'_>,
    delivered_bytes: Int,
    dataset: Text,
    destination_conf: Option<Text>,
    destination_class: Option<Text>,
    span_seconds: Option<f64>,
    delivered_records: Option<Int>,
    lines_read: Option<Int>,
    requests_per_day: Option<f64>,
    scale: Option<f64>,
    transform_bytes: Option<Int>,
    subtract_allowance: bool,
    pricing: Option<PyRef<'_, PyPricing>>,
) -> PyResult<PyCost> {
    let core = |e: escpush_core::Error| errors::core_error(py, &e);
    let read = destination_conf
        .map(|conf| Billing::of(&conf))
        .transpose()
        .map_err(core)?;
    let given = destination_class
        .map(|class| Billing::parse(&class))
        .transpose()
        .map_err(core)?;
    let billing = billing_of(read, given, &dataset).map_err(core)?;
    let mut sample = Sample::new(count(py, "delivered_bytes", delivered_bytes)?);
    if let Some(r) = delivered_records {
        sample = sample.delivered_records(count(py, "delivered_records", r)?);
    }
    if let Some(l) = lines_read {
        sample = sample.lines_read(count(py, "lines_read", l)?);
    }
    if let Some(s) = span_seconds {
        sample = sample.span_seconds(s);
    }
    if let Some(t) = transform_bytes {
        sample = sample.transform_bytes(count(py, "transform_bytes", t)?);
    }
    let basis = Basis::from_options(requests_per_day, scale).map_err(core)?;
    let inner = pricing_or_default(pricing)
        .project_cost(&sample, basis, billing, &dataset, subtract_allowance)
        .map_err(core)?;
    Ok(PyCost { inner })
}

/// The cost of an account's jobs together: their months summed by component, each priced
/// once, the account's allowance subtracted (unless `subtract_allowance=False`).
#[pyfunction]
#[pyo3(signature = (costs, *, subtract_allowance=true, pricing=None))]
pub(crate) fn account_cost(
    costs: &Bound<'_, PyAny>,
    subtract_allowance: bool,
    pricing: Option<PyRef<'_, PyPricing>>,
) -> PyResult<PyCost> {
    let mut jobs = Vec::new();
    for item in costs.try_iter()? {
        jobs.push(item?.cast::<PyCost>()?.get().inner.clone());
    }
    Ok(PyCost {
        inner: pricing_or_default(pricing).account_cost(&jobs, subtract_allowance),
    })
}

/// The cost of a month's usage given directly: GB delivered to internal and external
/// destinations, GB transformed, Workers Logpush requests.
#[pyfunction]
#[pyo3(signature = (
    *, internal_gb=None, external_gb=None, transform_gb=None, workers_requests=None,
    subtract_allowance=false, pricing=None
))]
pub(crate) fn monthly_cost(
    py: Python<'_>,
    internal_gb: Option<f64>,
    external_gb: Option<f64>,
    transform_gb: Option<f64>,
    workers_requests: Option<Int>,
    subtract_allowance: bool,
    pricing: Option<PyRef<'_, PyPricing>>,
) -> PyResult<PyCost> {
    let mut usage = MonthlyUsage::new();
    let gb = [
        (Component::InternalExport, internal_gb, "internal_gb"),
        (Component::ExternalExport, external_gb, "external_gb"),
        (Component::Transformation, transform_gb, "transform_gb"),
    ];
    for (c, value, what) in gb {
        if let Some(v) = value {
            usage = usage.with_units(c, v, what).map_err(|e| errors::core_error(py, &e))?;
        }
    }
    if let Some(r) = workers_requests {
        usage = usage.with(Component::WorkersRequests, count(py, "workers_requests", r)?);
    }
    Ok(PyCost {
        inner: pricing_or_default(pricing).charge(&usage, subtract_allowance),
    })
}

/// Each number of GB as core's cost wording writes it (`38`, `1.5`, `0.042`: `format_gb`),
/// for the command line's tables of a preview.
#[pyfunction]
pub fn _format_gb(values: Vec<f64>) -> Vec<String> {
    values.into_iter().map(escpush_core::format_gb).collect()
}
