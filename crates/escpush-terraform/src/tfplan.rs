//! Reading a Terraform plan for what it would change on log-push jobs
//! ([`check_terraform_plan`]): the JSON of `terraform show -json PLAN`, in HashiCorp's
//! documented "JSON Output Format" (developer.hashicorp.com/terraform/internals/json-format:
//! `format_version`, `resource_changes[]` of `{address, mode, type, change: {actions,
//! before, after, after_unknown, before_sensitive, after_sensitive}}`).
//!
//! For each change of a `cloudflare_logpush_job`, the filter change is one of: spelling only
//! (the same canonical filter: key order, spacing, escaping), the same by meaning
//! ([`Filter::equivalent`](escpush_filter::Filter::equivalent), on the records the job's dataset
//! allows), or a real change, with a record on which the two differ
//! ([`Filter::counterexample`](escpush_filter::Filter::counterexample)). Every other attribute that
//! changes is listed as the plan says it. Nothing is assumed beyond what the format says:
//! a value in `after_unknown` is not known (a filter known only after apply is a change that
//! cannot be judged, so it counts as real); values marked in `before_sensitive` or
//! `after_sensitive` are never shown, and a `destination_conf` is shown redacted whatever
//! the marks; an action list other than the documented ones counts as a real change.

use serde_json::{json, Map, Value};

use escpush_core::Error;
use escpush_filter::Dataset;
use escpush_filter::{Filter, Limits};
use escpush_filter::{Problem, ProblemCode};

use crate::provider::{has_attribute, output_option_key, TERRAFORM_RESOURCE};
use escpush_core::sent_filter_value;
use escpush_core::{shown_value, JobField};

/// What a sensitive value is shown as.
const SENSITIVE: &str = "(sensitive)";
/// What a value known only after apply is shown as.
const UNKNOWN: &str = "(known after apply)";

/// The report of a plan's changes to `cloudflare_logpush_job` resources:
///
/// `{"real": bool, "changes": [{"address", "actions", "action", "real", "filter",
/// "attributes"}]}`: `action` is `create`, `update`, `delete`, `replace` or `other` (no-op
/// and read changes are left out); `filter` is `null` when the filter does not change,
/// else `{"change", "before", "after", "counterexample", "matches"}` where `change` is
/// `spelling`, `equivalent`, `real` or `unknown`, and for a real change between two
/// filters `counterexample` is a record on which they differ and `matches` which side
/// (`before` or `after`) keeps it; `attributes` lists the other attributes that change,
/// `{"attribute", "before", "after", "real"}` (an attribute the API sets, such as
/// `last_complete`, is listed but not real); `filter_problems` lists what is wrong with the
/// filter the change leaves, against the job's dataset and the API's limits (`{"path",
/// "code", "message"}`: an unknown field, an operator the field's type does not take, over 30
/// operators; the API would refuse the job), empty when it is valid, unknown or sensitive. A
/// change is real when its action creates, deletes or replaces, when its filter change or one
/// of its attributes is, or when it leaves an invalid filter.
///
/// # Errors
///
/// `plan` is not the JSON of `terraform show -json` (no `format_version`, a major version
/// other than 0 or 1, which the format says to reject, or `resource_changes` that is not a
/// list of objects).
pub fn check_terraform_plan(plan: &Value) -> Result<Value, Error> {
    let mut out = Vec::new();
    for (rc, change) in logpush_changes(plan)? {
        if let Some(entry) = check_change(rc, change) {
            out.push(entry);
        }
    }
    let real = out.iter().any(|c| c["real"] == true);
    Ok(json!({"real": real, "changes": out}))
}

/// One `cloudflare_logpush_job` change of a plan as the jobs it leaves and removes
/// ([`terraform_plan_jobs`]): what a change delivers, and costs, is read from both sides.
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub struct PlannedJob {
    /// The resource's address (`cloudflare_logpush_job.errors`).
    pub address: String,
    /// `create`, `update`, `delete`, `replace` or `other`, as [`check_terraform_plan`] says.
    pub action: &'static str,
    /// The job before, in the API's field names (`output_options` keys as the API spells
    /// them, null attributes left out); `None` for a creation. It holds the destination's
    /// credentials: never print it.
    pub before: Option<Map<String, Value>>,
    /// The job after; `None` for a deletion.
    pub after: Option<Map<String, Value>>,
    /// The attributes of `after` known only after apply (they are left out of `after`).
    pub unknown: Vec<String>,
}

/// Both sides with their secrets masked (`redact_job`).
impl std::fmt::Debug for PlannedJob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let masked = |job: &Option<Map<String, Value>>| {
            job.clone().map(|mut job| {
                escpush_core::redact_job(&mut job);
                job
            })
        };
        f.debug_struct("PlannedJob")
            .field("address", &self.address)
            .field("action", &self.action)
            .field("before", &masked(&self.before))
            .field("after", &masked(&self.after))
            .field("unknown", &self.unknown)
            .finish()
    }
}

/// The log-push jobs a Terraform plan changes, before and after, as the API would hold
/// them (no-op and read changes are left out).
///
/// # Errors
///
/// As [`check_terraform_plan`]: `plan` is not the JSON of `terraform show -json`.
pub fn terraform_plan_jobs(plan: &Value) -> Result<Vec<PlannedJob>, Error> {
    let mut out = Vec::new();
    for (rc, change) in logpush_changes(plan)? {
        let Some(action) = action_of(change) else { continue };
        let marks = change.get("after_unknown").unwrap_or(&Value::Null);
        let unknown: Vec<String> = marks
            .as_object()
            .map(|m| m.keys().filter(|name| marked(marks, name)).cloned().collect())
            .unwrap_or_default();
        let side = |key: &str, unknown: &[String]| {
            change
                .get(key)
                .and_then(Value::as_object)
                .map(|values| api_job(values, unknown))
        };
        out.push(PlannedJob {
            address: rc.get("address").and_then(Value::as_str).unwrap_or_default().to_owned(),
            action,
            before: if action == "create" { None } else { side("before", &[]) },
            after: if action == "delete" {
                None
            } else {
                side("after", &unknown)
            },
            unknown,
        });
    }
    Ok(out)
}

/// The job of a resource's attribute values, in the API's names: the job fields the
/// resource has (not its scope), `output_options` keys as the API spells them, nulls and
/// the attributes in `unknown` left out.
fn api_job(values: &Map<String, Value>, unknown: &[String]) -> Map<String, Value> {
    let mut job = Map::new();
    for (name, value) in values {
        if value.is_null()
            || unknown.contains(name)
            || !has_attribute(name)
            || matches!(name.as_str(), "account_id" | "zone_id")
        {
            continue;
        }
        let value = match (name.as_str(), value) {
            ("output_options", Value::Object(options)) => Value::Object(
                options
                    .iter()
                    .filter(|(_, v)| !v.is_null())
                    .filter_map(|(attribute, v)| output_option_key(attribute).map(|key| (key.to_owned(), v.clone())))
                    .collect(),
            ),
            _ => value.clone(),
        };
        job.insert(name.clone(), value);
    }
    job
}

type Object = Map<String, Value>;

/// The `cloudflare_logpush_job` changes of a plan (each resource change and its `change`), read as the format says (a plan that is
/// not one refused).
fn logpush_changes(plan: &Value) -> Result<Vec<(&Object, &Object)>, Error> {
    let refuse = |message: String| Error::InvalidInput { what: "plan", message };
    let Some(version) = plan.get("format_version").and_then(Value::as_str) else {
        return Err(refuse(
            "the file is not the JSON of a Terraform plan (it has no `format_version`): write it with \
             `terraform show -json PLANFILE > plan.json`"
                .to_owned(),
        ));
    };
    if !matches!(version.split('.').next(), Some("0" | "1")) {
        return Err(refuse(format!(
            "the plan's format_version is {version}; escpush reads versions 0.x and 1.x of Terraform's JSON output \
             format, and the format says to reject another major version"
        )));
    }
    let changes = match plan.get("resource_changes") {
        None | Some(Value::Null) => &[][..],
        Some(Value::Array(items)) => items.as_slice(),
        Some(_) => return Err(refuse("the plan's `resource_changes` is not a list".to_owned())),
    };
    let mut out = Vec::new();
    for (i, rc) in changes.iter().enumerate() {
        let Some(rc) = rc.as_object() else {
            return Err(refuse(format!("resource_changes[{i}] is not an object")));
        };
        if rc.get("type").and_then(Value::as_str) != Some(TERRAFORM_RESOURCE)
            || rc.get("mode").and_then(Value::as_str).is_some_and(|m| m != "managed")
        {
            continue;
        }
        let Some(change) = rc.get("change").and_then(Value::as_object) else {
            return Err(refuse(format!("resource_changes[{i}] has no `change` object")));
        };
        out.push((rc, change));
    }
    Ok(out)
}

/// The action of a change, or `None` when it changes nothing (`no-op`, `read`).
fn action_of(change: &Map<String, Value>) -> Option<&'static str> {
    let actions: Vec<&str> = change
        .get("actions")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    Some(match actions.as_slice() {
        ["no-op" | "read"] => return None,
        ["create"] => "create",
        ["update"] => "update",
        ["delete"] => "delete",
        ["delete", "create"] | ["create", "delete"] => "replace",
        _ => "other",
    })
}

/// One resource change, or `None` when it changes nothing (`no-op`, `read`).
fn check_change(rc: &Map<String, Value>, change: &Map<String, Value>) -> Option<Value> {
    let action = action_of(change)?;
    let actions: Vec<&str> = change
        .get("actions")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let address = rc.get("address").cloned().unwrap_or(Value::Null);
    let null = Value::Null;
    let before = change.get("before").unwrap_or(&null);
    let after = change.get("after").unwrap_or(&null);
    let marks = Marks {
        unknown: change.get("after_unknown").unwrap_or(&null),
        before_sensitive: change.get("before_sensitive").unwrap_or(&null),
        after_sensitive: change.get("after_sensitive").unwrap_or(&null),
    };
    let (filter, attributes) = if matches!(action, "update" | "replace") {
        (
            filter_change(before, after, &marks),
            attribute_changes(before, after, &marks),
        )
    } else {
        (Value::Null, Vec::new())
    };
    let filter_problems = if matches!(action, "create" | "update" | "replace") {
        filter_problems(after, &marks)
    } else {
        Vec::new()
    };
    let real = action != "update"
        || matches!(filter["change"].as_str(), Some("real" | "unknown"))
        || attributes.iter().any(|a| a["real"] == true)
        || !filter_problems.is_empty();
    Some(json!({
        "address": address,
        "actions": actions,
        "action": action,
        "real": real,
        "filter": filter,
        "filter_problems": filter_problems,
        "attributes": attributes,
    }))
}

/// What is wrong with the filter a change leaves, against the job's dataset and the API's
/// limits; nothing for a filter known only after apply or marked sensitive (not shown).
fn filter_problems(after: &Value, marks: &Marks<'_>) -> Vec<Value> {
    if marks.unknown("filter") || marks.sensitive("filter") {
        return Vec::new();
    }
    let dataset = after
        .get("dataset")
        .and_then(Value::as_str)
        .and_then(|name| Dataset::get(name, None).ok());
    // What the provider sends, as the API reads it: JSON, never escpush's text form.
    let problems = match sent_filter_value(after.get("filter")) {
        Ok(Some(filter)) => filter.problems(dataset, Limits::default()),
        Ok(None) => Vec::new(),
        Err(Error::Filter(err)) => err.problems().to_vec(),
        Err(other) => vec![Problem::new("", ProblemCode::InvalidValue, other.to_string())],
    };
    problems
        .iter()
        .map(|p| json!({"path": p.path, "code": p.code.as_str(), "message": p.message}))
        .collect()
}

/// The marks of a change: what is unknown, what is sensitive on each side.
struct Marks<'a> {
    unknown: &'a Value,
    before_sensitive: &'a Value,
    after_sensitive: &'a Value,
}

impl Marks<'_> {
    fn unknown(&self, attribute: &str) -> bool {
        marked(self.unknown, attribute)
    }

    fn sensitive(&self, attribute: &str) -> bool {
        marked(self.before_sensitive, attribute) || marked(self.after_sensitive, attribute)
    }
}

/// Whether a marks object (`after_unknown`, `*_sensitive`) marks `attribute` or a part of it:
/// the whole object is `true`, or the attribute's mark holds a `true`.
fn marked(marks: &Value, attribute: &str) -> bool {
    fn any_true(v: &Value) -> bool {
        match v {
            Value::Bool(b) => *b,
            Value::Array(items) => items.iter().any(any_true),
            Value::Object(map) => map.values().any(any_true),
            _ => false,
        }
    }
    marks == &Value::Bool(true) || marks.get(attribute).is_some_and(any_true)
}

/// A value of an attribute as it may be shown: sensitive ones hidden, a destination
/// redacted, a secret field masked.
fn shown(attribute: &str, value: &Value, sensitive: bool) -> Value {
    if sensitive && !value.is_null() {
        Value::String(SENSITIVE.to_owned())
    } else {
        shown_value(attribute, value)
    }
}

/// The filter's change, `null` when it has none.
fn filter_change(before: &Value, after: &Value, marks: &Marks<'_>) -> Value {
    let sensitive = marks.sensitive("filter");
    let (b, a) = (before.get("filter"), after.get("filter"));
    let show = |v: Option<&Value>| shown("filter", v.unwrap_or(&Value::Null), sensitive);
    if marks.unknown("filter") {
        return json!({"change": "unknown", "before": show(b), "after": UNKNOWN, "counterexample": null, "matches": null});
    }
    if b == a {
        return Value::Null;
    }
    let result = |change: &str, counterexample: Value, matches: Value| json!({"change": change, "before": show(b), "after": show(a), "counterexample": counterexample, "matches": matches});
    // A side that is no filter the API takes (text that is not JSON, escpush's text form
    // included): a real change escpush cannot judge, shown as it is.
    let (Ok(fb), Ok(fa)) = (sent_filter_value(b), sent_filter_value(a)) else {
        return result("real", Value::Null, Value::Null);
    };
    let dataset = [after, before]
        .iter()
        .find_map(|v| v.get("dataset").and_then(Value::as_str))
        .and_then(|name| Dataset::get(name, None).ok());
    match (fb, fa) {
        (None, None) => result("spelling", Value::Null, Value::Null),
        (Some(x), Some(y)) if x.to_json() == y.to_json() => result("spelling", Value::Null, Value::Null),
        (Some(x), Some(y)) if x.equivalent(&y, dataset) => result("equivalent", Value::Null, Value::Null),
        (Some(x), Some(y)) => {
            let record = if sensitive { None } else { x.counterexample(&y, dataset) };
            match record {
                Some(record) => {
                    let record = record.to_json();
                    let side = if y.matches(&record) { "after" } else { "before" };
                    result("real", record, Value::String(side.to_owned()))
                }
                None => result("real", Value::Null, Value::Null),
            }
        }
        // A filter added or removed: no filter keeps every record.
        (x, y) => {
            let only: Option<&Filter> = x.as_ref().or(y.as_ref());
            let side = if x.is_some() { "after" } else { "before" };
            let record = only.and_then(|f| (!sensitive).then(|| dropped_record(f, dataset)).flatten());
            match record {
                Some(record) => result("real", record, Value::String(side.to_owned())),
                None => result("real", Value::Null, Value::Null),
            }
        }
    }
}

/// A record `filter` does not keep (which no filter keeps), if there is one: a
/// counterexample against the filter's own negation's complement, `f or not f`.
fn dropped_record(filter: &Filter, dataset: Option<&Dataset>) -> Option<Value> {
    let everything = filter.clone() | !filter.clone();
    filter.counterexample(&everything, dataset).map(|r| r.to_json())
}

/// The attributes other than the filter whose value changes (or is unknown after apply).
fn attribute_changes(before: &Value, after: &Value, marks: &Marks<'_>) -> Vec<Value> {
    let empty = Map::new();
    let b = before.as_object().unwrap_or(&empty);
    let a = after.as_object().unwrap_or(&empty);
    let unknown = marks.unknown.as_object().unwrap_or(&empty);
    let mut names: Vec<&String> = b.keys().chain(a.keys()).chain(unknown.keys()).collect();
    names.sort();
    names.dedup();
    let mut out = Vec::new();
    for name in names {
        if name == "filter" {
            continue;
        }
        let (old, new) = (b.get(name).unwrap_or(&Value::Null), a.get(name).unwrap_or(&Value::Null));
        let unknown = marks.unknown(name);
        let field = JobField::get(name);
        let both_none = field.is_some_and(|f| f.means_none(old) && f.means_none(new));
        if !unknown && (old == new || both_none) {
            continue;
        }
        // A field the API sets (last_complete, error_message, ...) changes on its own.
        let set_by_api = field.is_some_and(|f| !f.create && !f.update);
        let sensitive = marks.sensitive(name);
        out.push(json!({
            "attribute": name,
            "before": shown(name, old, sensitive),
            "after": if unknown { Value::String(UNKNOWN.to_owned()) } else { shown(name, new, sensitive) },
            "real": !set_by_api,
        }));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(before: &Value, after: &Value, unknown: &Value) -> Value {
        json!({"format_version": "1.2", "resource_changes": [{
            "address": "cloudflare_logpush_job.a", "mode": "managed", "type": "cloudflare_logpush_job", "name": "a",
            "change": {"actions": ["update"], "before": before, "after": after, "after_unknown": unknown,
                       "before_sensitive": {"destination_conf": true}, "after_sensitive": {"destination_conf": true}},
        }]})
    }

    fn job(filter: &str) -> Value {
        json!({"dataset": "http_requests", "destination_conf": "s3://b/p?region=r&secret-access-key=SECRET",
               "filter": filter, "enabled": true, "id": 4})
    }

    #[test]
    fn the_three_kinds_of_filter_change_are_told_apart() {
        let base = r#"{"where":{"key":"EdgeResponseStatus","operator":"geq","value":500}}"#;
        let respelled = r#"{"where": {"value": 500, "operator": "geq", "key": "EdgeResponseStatus"}}"#;
        let same = r#"{"where":{"or":[{"key":"EdgeResponseStatus","operator":"gt","value":499},{"key":"EdgeResponseStatus","operator":"eq","value":500}]}}"#;
        let other = r#"{"where":{"key":"EdgeResponseStatus","operator":"geq","value":502}}"#;
        for (after, kind, real) in [
            (respelled, "spelling", false),
            (same, "equivalent", false),
            (other, "real", true),
        ] {
            let report = check_terraform_plan(&plan(&job(base), &job(after), &json!({}))).unwrap();
            assert_eq!(report["changes"][0]["filter"]["change"], kind, "{report}");
            assert_eq!(report["real"], real);
            assert!(!report.to_string().contains("SECRET"));
        }
        let report = check_terraform_plan(&plan(&job(base), &job(other), &json!({}))).unwrap();
        let record = &report["changes"][0]["filter"]["counterexample"];
        let status = record["EdgeResponseStatus"].as_i64().unwrap();
        assert!((500..502).contains(&status), "{report}");
        assert_eq!(report["changes"][0]["filter"]["matches"], "before");
    }

    #[test]
    fn other_attributes_unknowns_and_sensitive_values() {
        let mut after = job("");
        after["enabled"] = json!(false);
        after["destination_conf"] = json!("s3://b/p?region=r&secret-access-key=OTHER");
        let report = check_terraform_plan(&plan(&job(""), &after, &json!({"last_complete": true}))).unwrap();
        let attributes = &report["changes"][0]["attributes"];
        let names: Vec<&str> = attributes
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["attribute"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["destination_conf", "enabled", "last_complete"]);
        assert_eq!(attributes[0]["after"], SENSITIVE);
        assert_eq!(attributes[2]["real"], false);
        assert_eq!(report["real"], true);
        assert!(!report.to_string().contains("OTHER"));
        let unknown = check_terraform_plan(&plan(&job(""), &job(""), &json!({"filter": true}))).unwrap();
        assert_eq!(unknown["changes"][0]["filter"]["change"], "unknown");
        assert_eq!(unknown["real"], true);
    }

    #[test]
    fn a_plans_jobs_are_read_in_the_apis_names() {
        let mut before = job("");
        before["output_options"] = json!({"field_names": ["RayID"], "cve_2021_44228": true, "sample_rate": null});
        before["zone_id"] = json!("z");
        before["max_upload_bytes"] = Value::Null;
        let mut after = before.clone();
        after["output_options"]["field_names"] = json!(["RayID", "ClientIP"]);
        let jobs =
            terraform_plan_jobs(&plan(&before, &after, &json!({"filter": true, "last_complete": false}))).unwrap();
        assert_eq!(jobs.len(), 1);
        let (b, a) = (jobs[0].before.as_ref().unwrap(), jobs[0].after.as_ref().unwrap());
        assert_eq!(
            (jobs[0].address.as_str(), jobs[0].action),
            ("cloudflare_logpush_job.a", "update")
        );
        assert_eq!(
            b["output_options"],
            json!({"field_names": ["RayID"], "CVE-2021-44228": true})
        );
        assert_eq!(a["output_options"]["field_names"], json!(["RayID", "ClientIP"]));
        assert!(
            !b.contains_key("zone_id") && !b.contains_key("max_upload_bytes"),
            "{b:?}"
        );
        assert_eq!(b["filter"], "");
        assert_eq!(jobs[0].unknown, ["filter"], "a mark of false is known");
        assert!(!a.contains_key("filter"), "known only after apply: left out");
        assert!(b["destination_conf"].as_str().unwrap().contains("SECRET"));
        assert!(!format!("{jobs:?}").contains("SECRET"), "{jobs:?}");
        let mut created = plan(&Value::Null, &after, &json!({}));
        created["resource_changes"][0]["change"]["actions"] = json!(["create"]);
        let jobs = terraform_plan_jobs(&created).unwrap();
        assert!(jobs[0].before.is_none() && jobs[0].after.is_some());
        assert!(terraform_plan_jobs(&json!({"resource_changes": []})).is_err());
    }

    #[test]
    fn what_is_not_a_plan_is_refused() {
        assert!(check_terraform_plan(&json!({"resource_changes": []})).is_err());
        assert!(check_terraform_plan(&json!({"format_version": "2.0"})).is_err());
        let empty = check_terraform_plan(&json!({"format_version": "1.2"})).unwrap();
        assert_eq!(empty, json!({"real": false, "changes": []}));
    }
}
