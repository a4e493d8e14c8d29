//! Reading Terraform's `cloudflare_logpush_job` resources as desired jobs
//! ([`read_terraform_jobs`]): what `escpush logpush export --format terraform` writes, and
//! hand-written resources of the same shape, so that `apply` and `ensure` can take jobs a
//! team keeps in Terraform.
//!
//! Both of Terraform's syntaxes are read. The native one (`.tf`) is parsed by `hcl-edit`,
//! the parser of the `hcl-rs` project: blocks, attributes, the three kinds of comment,
//! quoted templates with their escapes (`\n`, `\u00e9`, `$${` and `%%{` for a literal `${`
//! and `%{`), heredocs (`<<EOF`, and `<<-EOF` with its indent removed), numbers, lists,
//! objects, calls, references, operators, conditionals, `for` and splats; a syntax error is
//! refused with its line and column. `hcl-edit` rather than `hcl-rs`'s own parser: it keeps
//! where each attribute and expression was written (byte spans, turned into the line a
//! problem names, and the text an unevaluated expression is quoted with), and it hands over
//! the expression tree as written, which is all this reader evaluates; `hcl-rs`'s evaluator
//! would add nothing the rules below allow. The JSON syntax (`.tf.json`, HashiCorp's
//! documented JSON configuration syntax: `{"resource": {"cloudflare_logpush_job": {"NAME":
//! {...}}}}`, an object or a list of objects at each level, `"//"` members as comments) is
//! read by escpush's strict JSON reader (a member given twice is refused, as Terraform
//! does), each string of it a template parsed by `hcl-edit` as Terraform parses it; it has
//! no lines to name, so its problems name the resource and the attribute.
//!
//! What a job's value needs is evaluated without Terraform (`hcl_eval.rs`): literals, `jsonencode(...)` of
//! literals, a template of literal parts, and in `destination_conf` references to input
//! variables (`${var.name}`), which become references to `TF_VAR_name`, the environment
//! variable Terraform itself reads for `var.name` (see escpush-core's `credentials` module). Any other
//! expression (a `local.`, another resource's attribute, a function other than
//! `jsonencode`, an operator, a conditional, a `for`, a splat, a template directive
//! `%{...}`) is refused with the resource, the attribute and its line: escpush cannot
//! evaluate it, and guessing would apply something else. A literal `zone_id` or `account_id`
//! must be the scope the jobs are applied to; another expression only when the caller names
//! it as that scope ([`read_terraform_jobs_for`]): it may be another zone's. Other blocks
//! (`variable`, `import`, `provider`, other resources) are read past.
//!
//! The jobs read are checked as `apply` checks a jobs file, and the document carries each
//! job's resource address (`addresses`), so that a problem found then or later, while the
//! jobs are applied, names the resource (`cloudflare_logpush_job.errors.dataset`) and not
//! `jobs[0]`.

use hcl_edit::structure::Body;
use hcl_edit::Span;
use serde_json::{Map, Value};

use crate::hcl_eval::{convert, evaluate, expression_text, option_type, Written};

use escpush_core::Error;
use escpush_core::Scope;
use escpush_filter::suggest;
use escpush_filter::DatasetScope;
use escpush_filter::TextError;
use escpush_filter::{Json, JsonError};
use escpush_filter::{Problem, ProblemCode};

use crate::provider::{
    has_attribute, output_option_key, TERRAFORM_ATTRIBUTES, TERRAFORM_DEFAULT_DATASET, TERRAFORM_OUTPUT_OPTIONS,
    TERRAFORM_RESOURCE, TERRAFORM_V4_OUTPUT_OPTIONS,
};
use escpush_core::{JobField, JobFieldType};

/// How deep a `.tf.json` may nest: a resource's attributes are four levels down (`resource`,
/// its type, its name, the attribute), and a filter written as an object nests as a filter
/// may.
const JSON_DEPTH: usize = escpush_filter::MAX_JSON_DEPTH + 8;

/// An attribute: its name, its line (the native syntax only) and its value.
struct Attribute<'a> {
    name: &'a str,
    line: Option<usize>,
    value: Written<'a>,
}

/// A nested block of a resource (`output_options` of provider v4, `lifecycle`, ...).
struct Block<'a> {
    kind: &'a str,
    line: Option<usize>,
    attributes: Vec<Attribute<'a>>,
}

/// A `cloudflare_logpush_job` resource.
struct Resource<'a> {
    address: String,
    line: Option<usize>,
    attributes: Vec<Attribute<'a>>,
    blocks: Vec<Block<'a>>,
}

/// `line N: ` of a problem's message, for the native syntax.
fn at_line(line: Option<usize>) -> String {
    line.map_or_else(String::new, |line| format!("line {line}: "))
}

/// The 1-based line of what `span` (of `text`) starts.
fn line(text: &str, span: Option<std::ops::Range<usize>>) -> Option<usize> {
    span.map(|span| escpush_filter::shown::line_of(text, span.start).0)
}

/// The resources of a native-syntax file, parsed into `body`.
fn hcl_resources<'a>(text: &'a str, body: &'a Body) -> Vec<Resource<'a>> {
    let attributes = |body: &'a Body| {
        body.attributes()
            .map(|a| Attribute {
                name: a.key.as_str(),
                line: line(text, a.key.span()),
                value: Written::Hcl(&a.value, text),
            })
            .collect()
    };
    body.blocks()
        .filter(|b| {
            b.ident.as_str() == "resource"
                && b.labels.first().map(hcl_edit::structure::BlockLabel::as_str) == Some(TERRAFORM_RESOURCE)
        })
        .map(|b| Resource {
            address: format!("{TERRAFORM_RESOURCE}.{}", b.labels.get(1).map_or("", |l| l.as_str())),
            line: line(text, b.ident.span()),
            attributes: attributes(&b.body),
            blocks: b
                .body
                .blocks()
                .map(|inner| Block {
                    kind: inner.ident.as_str(),
                    line: line(text, inner.ident.span()),
                    attributes: attributes(&inner.body),
                })
                .collect(),
        })
        .collect()
}

/// An `import` block (Terraform 1.5+): the address it imports to, written without spaces
/// (`cloudflare_logpush_job.errors`), and the import id as written.
struct Import<'a> {
    to: String,
    line: Option<usize>,
    id: Written<'a>,
}

/// The address of an `import` block's `to` as written (the JSON syntax may write it as a
/// template, `"${cloudflare_logpush_job.errors}"`), without whitespace.
fn import_target(value: Written<'_>) -> Option<String> {
    let text = match value {
        Written::Json(Json::String(text)) => {
            let inner = text.trim();
            inner
                .strip_prefix("${")
                .and_then(|t| t.strip_suffix('}'))
                .unwrap_or(inner)
                .to_owned()
        }
        other => expression_text(other)?,
    };
    Some(text.chars().filter(|c| !c.is_whitespace()).collect())
}

/// The `import` blocks of a native-syntax file.
fn hcl_imports<'a>(text: &'a str, body: &'a Body) -> Vec<Import<'a>> {
    body.blocks()
        .filter(|b| b.ident.as_str() == "import")
        .filter_map(|b| {
            let get = |name: &str| b.body.attributes().find(|a| a.key.as_str() == name);
            let (to, id) = (get("to")?, get("id")?);
            Some(Import {
                to: import_target(Written::Hcl(&to.value, text))?,
                line: line(text, b.ident.span()),
                id: Written::Hcl(&id.value, text),
            })
        })
        .collect()
}

/// The `import` blocks of a JSON-syntax file (`"import": [{"to": ..., "id": ...}]`).
fn json_imports(doc: &Json) -> Vec<Import<'_>> {
    let Ok(top) = json_objects(doc, "the file") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (key, value) in top {
        if key != "import" {
            continue;
        }
        let blocks: Vec<&Json> = match value {
            Json::Array(items) => items.iter().collect(),
            one => vec![one],
        };
        for block in blocks {
            let Json::Object(members) = block else { continue };
            let get = |name: &str| members.iter().find(|(k, _)| k == name).map(|(_, v)| v);
            if let (Some(to), Some(id)) = (get("to"), get("id")) {
                if let Some(to) = import_target(Written::Json(to)) {
                    out.push(Import {
                        to,
                        line: None,
                        id: Written::Json(id),
                    });
                }
            }
        }
    }
    out
}

/// The job id an `import` block gives a resource of `scope`: its id must be the provider's
/// import id of a job of that scope (`zones/<zone_id>/<job_id>`).
fn imported_id(import: &Import<'_>, scope: &Scope) -> Result<u64, String> {
    let at = import.line.map_or_else(
        || "the import block".to_owned(),
        |l| format!("the import block of line {l}"),
    );
    let id = match evaluate(import.id, false, true) {
        Ok(Value::String(id)) => id,
        Ok(_) => return Err(format!("{at} gives an id that is not a string")),
        Err(why) => return Err(format!("{at} gives as id {why}; write its value")),
    };
    let prefix = crate::provider::terraform_import_id(scope, 0);
    let prefix = prefix.trim_end_matches('0');
    match id.strip_prefix(prefix).map(str::parse::<u64>) {
        Some(Ok(job)) if job > 0 => Ok(job),
        _ => Err(format!(
            "{at} imports {}, which is not a job of {scope} (its import ids are `{prefix}<job_id>`): the job would \
             be another's",
            escpush_filter::shown::json_string(&id)
        )),
    }
}

/// The objects of a JSON-syntax level: an object, or a list of objects (`"//"` comments
/// left out); `at` names the level in a problem about its shape.
fn json_objects<'a>(value: &'a Json, at: &str) -> Result<Vec<(&'a str, &'a Json)>, Problem> {
    let members = |v: &'a Json| match v {
        Json::Object(members) => Ok(members.iter().filter(|(k, _)| k != "//").map(|(k, v)| (k.as_str(), v))),
        other => Err(Problem::new(
            at,
            ProblemCode::InvalidValue,
            format!("is {}, where Terraform's JSON syntax has an object", other.kind()),
        )),
    };
    match value {
        Json::Array(items) => items.iter().map(members).try_fold(Vec::new(), |mut all, m| {
            all.extend(m?);
            Ok(all)
        }),
        one => Ok(members(one)?.collect()),
    }
}

/// The resources of a JSON-syntax file.
fn json_resources(doc: &Json) -> Result<Vec<Resource<'_>>, Problem> {
    let mut out = Vec::new();
    for (key, resources) in json_objects(doc, "the file")? {
        if key != "resource" {
            continue;
        }
        for (kind, named) in json_objects(resources, "resource")? {
            if kind != TERRAFORM_RESOURCE {
                continue;
            }
            for (name, body) in json_objects(named, &format!("resource.{kind}"))? {
                let address = format!("{TERRAFORM_RESOURCE}.{name}");
                // A list of bodies is the same resource declared more than once.
                let bodies = match body {
                    Json::Array(items) => items.iter().collect(),
                    one => vec![one],
                };
                for body in bodies {
                    let attributes = json_objects(body, &address)?
                        .into_iter()
                        .map(|(name, value)| Attribute {
                            name,
                            line: None,
                            value: Written::Json(value),
                        })
                        .collect();
                    out.push(Resource {
                        address: address.clone(),
                        line: None,
                        attributes,
                        blocks: Vec::new(),
                    });
                }
            }
        }
    }
    Ok(out)
}

/// Whether `text` is of Terraform's JSON syntax: a native-syntax file starts with a
/// comment, an attribute or a block, never with `{`.
fn is_json(text: &str) -> bool {
    text.trim_start().starts_with('{')
}

/// The desired jobs (`{"jobs": [...], "addresses": [...]}`, as
/// [`desired_jobs`](escpush_core::desired_jobs) reads them) of the `cloudflare_logpush_job`
/// resources of a Terraform file, in the native syntax (`.tf`) or the JSON syntax
/// (`.tf.json`, told by its first character, `{`), for `scope`.
///
/// Each resource is one job, its attributes the job's fields of the same name
/// (`output_options` as an attribute, v5, or a block, v4; its `cve_2021_44228` is
/// `CVE-2021-44228`). An attribute left out is left as the job has it, as in any jobs file
/// (where Terraform would set the provider's default). `addresses` gives each job's
/// resource address, which the problems of [`desired_jobs`](escpush_core::desired_jobs) and
/// [`plan_document`](escpush_core::plan_document) name instead of `jobs[i]`.
///
/// Refused, every problem with its resource, attribute and line: a syntax error (an
/// attribute given twice is one), an attribute the resource does not have, a value escpush cannot evaluate, a
/// literal `zone_id`/`account_id` of another scope (or one escpush cannot evaluate: see
/// [`read_terraform_jobs_for`]), `count` and `for_each` (one resource is one job here), a
/// resource address declared twice, two `output_options`, and a job `apply` would refuse (a
/// job needs a name, a known dataset, ...). A resource without `dataset` is of
/// `http_requests`, the provider's default; a string where a number or a bool goes is
/// converted as Terraform converts it (`"30"`).
///
/// ```
/// use escpush_terraform::read_terraform_jobs;
/// use escpush_core::Scope;
///
/// let tf = r#"
/// resource "cloudflare_logpush_job" "errors" {
///   zone_id          = "023e105f4ecef8ad9ca31a8372d0c353"
///   name             = "errors"
///   dataset          = "http_requests"
///   destination_conf = "s3://logs/http?region=us-east-1&secret-access-key=${var.errors_secret}"
///   filter           = jsonencode({ where = { key = "EdgeResponseStatus", operator = "geq", value = 500 } })
/// }"#;
/// let zone = Scope::zone("023e105f4ecef8ad9ca31a8372d0c353").unwrap();
/// let doc = read_terraform_jobs(tf, &zone).unwrap();
/// assert_eq!(doc["jobs"][0]["destination_conf"], "s3://logs/http?region=us-east-1&secret-access-key=${TF_VAR_errors_secret}");
/// assert_eq!(doc["addresses"][0], "cloudflare_logpush_job.errors");
/// ```
pub fn read_terraform_jobs(text: &str, scope: &Scope) -> Result<Value, Error> {
    read_terraform_jobs_for(text, scope, &[])
}

/// [`read_terraform_jobs`], where each of `scope_expressions` (as written, whitespace aside:
/// `var.zone_id`, `cloudflare_zone.main.id`) is a `zone_id` or `account_id` the caller says
/// stands for `scope`. Without it, a scope escpush cannot evaluate is refused: it may be
/// another zone's or account's, and its job would be created in the wrong one.
///
/// ```
/// use escpush_terraform::{read_terraform_jobs, read_terraform_jobs_for};
/// use escpush_core::Scope;
///
/// let tf = r#"
/// resource "cloudflare_logpush_job" "errors" {
///   zone_id          = var.zone_id
///   name             = "errors"
///   destination_conf = "r2://logs/http"
/// }"#;
/// let zone = Scope::zone("023e105f4ecef8ad9ca31a8372d0c353").unwrap();
/// assert!(read_terraform_jobs(tf, &zone).is_err());
/// let doc = read_terraform_jobs_for(tf, &zone, &["var.zone_id".to_owned()]).unwrap();
/// assert_eq!(doc["jobs"][0]["dataset"], "http_requests");
/// ```
pub fn read_terraform_jobs_for(text: &str, scope: &Scope, scope_expressions: &[String]) -> Result<Value, Error> {
    // A byte-order mark an editor saved is not part of the file's text.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let invalid = |problem: Problem| Error::Invalid {
        problems: vec![problem],
    };
    let json;
    let body;
    let imports;
    let resources = if is_json(text) {
        json = Json::parse_unique(text, JSON_DEPTH).map_err(|e| invalid(json_syntax(&e)))?;
        imports = json_imports(&json);
        json_resources(&json).map_err(invalid)?
    } else {
        body = hcl_edit::parser::parse_body(text).map_err(|e| {
            // The line and column only, not the line itself: a Terraform file may hold a
            // credential written out, on that line or in a heredoc around it.
            let at = e.location().offset();
            let spot = TextError::at(text, at, at + 1, ProblemCode::InvalidSyntax, e.message());
            invalid(Problem::new(spot.position(), spot.code, spot.message))
        })?;
        imports = hcl_imports(text, &body);
        hcl_resources(text, &body)
    };
    let mut problems = Vec::new();
    let mut jobs = Vec::new();
    let mut addresses = Vec::new();
    for (i, resource) in resources.iter().enumerate() {
        // Terraform refuses a file that declares one address twice ("Duplicate resource").
        if let Some(first) = resources[..i].iter().find(|r| r.address == resource.address) {
            problems.push(Problem::new(
                resource.address.clone(),
                ProblemCode::InvalidValue,
                format!(
                    "{}a resource of this address is declared {} too, and Terraform refuses a file that declares one \
                     twice: give each its own name",
                    at_line(resource.line),
                    first
                        .line
                        .map_or_else(|| "before".to_owned(), |l| format!("on line {l}"))
                ),
            ));
            continue;
        }
        let mut found = Vec::new();
        let mut job = resource_job(resource, scope, scope_expressions, &mut found);
        // The job an `import` block names is the resource's, whatever its name (a nameless
        // job is known by it alone).
        if let Some(import) = imports.iter().find(|i| i.to == resource.address) {
            match imported_id(import, scope) {
                Ok(id) => {
                    job.insert("id".to_owned(), Value::from(id));
                }
                Err(message) => found.push(Problem::new(
                    resource.address.clone(),
                    ProblemCode::InvalidValue,
                    message,
                )),
            }
        }
        if found.is_empty() {
            jobs.push(Value::Object(job));
            addresses.push(Value::String(resource.address.clone()));
        }
        problems.extend(found);
    }
    if !problems.is_empty() {
        return Err(Error::Invalid { problems });
    }
    let doc = serde_json::json!({ "jobs": jobs, "addresses": addresses });
    escpush_core::desired_jobs(&doc, scope.kind())?;
    Ok(doc)
}

/// A JSON syntax error as a problem at its line and column.
fn json_syntax(err: &JsonError) -> Problem {
    Problem::new(
        format!("line {}, column {}", err.line, err.column),
        ProblemCode::InvalidSyntax,
        format!("not JSON: {}", err.message),
    )
}

/// One resource's job; its problems pushed on `problems`.
fn resource_job(
    resource: &Resource<'_>,
    scope: &Scope,
    assumed: &[String],
    problems: &mut Vec<Problem>,
) -> Map<String, Value> {
    let address = &resource.address;
    let mut problem = |attribute: &str, line: Option<usize>, message: String| {
        let path = if attribute.is_empty() {
            address.clone()
        } else {
            format!("{address}.{attribute}")
        };
        problems.push(Problem::new(
            path,
            ProblemCode::InvalidValue,
            format!("{}{message}", at_line(line)),
        ));
    };
    let mut job = Map::new();
    let mut scopes = Vec::new();
    for &Attribute { name, line, value } in &resource.attributes {
        match name {
            "zone_id" | "account_id" => {
                let kind = if name == "zone_id" {
                    DatasetScope::Zone
                } else {
                    DatasetScope::Account
                };
                scopes.push(kind);
                if let Some(message) = other_scope(kind, value, scope, assumed) {
                    problem(name, line, message);
                }
            }
            "count" | "for_each" => problem(
                name,
                line,
                format!("escpush reads one job per resource and does not expand {name}; write each job out"),
            ),
            // Meta-arguments; `lifecycle` and `timeouts` are attributes in the JSON syntax.
            "provider" | "depends_on" | "lifecycle" | "timeouts" => {}
            field if has_attribute(field) && JobField::get(field).is_some() => {
                // A destination, or a secret field, may hold a credential written out.
                let credential = JobField::get(field).is_some_and(|f| f.secret || f.ty == JobFieldType::Destination);
                let ty = JobField::get(field).map_or("string", |f| f.ty.json_type());
                match evaluate(value, field == "destination_conf", !credential).and_then(|v| convert(v, ty)) {
                    Ok(Value::Null) => {}
                    Ok(Value::Object(options)) if field == "output_options" => {
                        job.insert(field.to_owned(), output_options(&options, line, false, &mut problem));
                    }
                    Ok(v) => {
                        job.insert(field.to_owned(), v);
                    }
                    Err(why) => problem(field, line, format!("{why}; write its value")),
                }
            }
            other => {
                let hint =
                    suggest::did_you_mean(suggest::closest(other, TERRAFORM_ATTRIBUTES.iter().map(|a| (*a, *a))));
                problem(
                    other,
                    line,
                    format!("`{other}` is not an attribute of {TERRAFORM_RESOURCE}{hint}"),
                );
            }
        }
    }
    read_blocks(resource, &mut job, &mut problem);
    // The provider's default, where a resource names no dataset (a creation needs one), or
    // sets it to `null`, which is no value to Terraform (one that could not be read has its
    // problem already, which refuses the file).
    if !job.contains_key("dataset") {
        job.insert(
            "dataset".to_owned(),
            Value::String(TERRAFORM_DEFAULT_DATASET.to_owned()),
        );
    }
    if scopes.len() > 1 {
        problem(
            "",
            resource.line,
            "a job has zone_id or account_id, not both".to_owned(),
        );
    }
    job
}

/// The nested blocks of a resource into `job`: provider v4's `output_options` (one, and not
/// beside the attribute: Terraform takes one), `lifecycle` and `timeouts` read past, any other
/// refused.
fn read_blocks(
    resource: &Resource<'_>,
    job: &mut Map<String, Value>,
    problem: &mut impl FnMut(&str, Option<usize>, String),
) {
    let mut options_at: Option<Option<usize>> = resource
        .attributes
        .iter()
        .find(|a| a.name == "output_options")
        .map(|a| a.line);
    let attribute_options = options_at.is_some();
    for block in &resource.blocks {
        match block.kind {
            "lifecycle" | "timeouts" => {}
            // Terraform takes one: a second block, or a block beside the attribute, is refused
            // (else one of them would be dropped without a word).
            "output_options" if options_at.is_some() => {
                let message =
                    if attribute_options {
                        format!(
                        "output_options is given as an attribute ({}) and as a block; Terraform takes one: keep one",
                        options_at.flatten().map_or_else(|| "above".to_owned(), |l| format!("line {l}"))
                    )
                    } else {
                        "a second output_options block; Terraform takes one: merge them".to_owned()
                    };
                problem("output_options", block.line, message);
            }
            "output_options" => {
                options_at = Some(block.line);
                let mut options = Map::new();
                for attribute in &block.attributes {
                    match evaluate(attribute.value, false, true) {
                        Ok(v) => {
                            options.insert(attribute.name.to_owned(), v);
                        }
                        Err(why) => problem(
                            &format!("output_options.{}", attribute.name),
                            attribute.line,
                            format!("{why}; write its value"),
                        ),
                    }
                }
                job.insert(
                    "output_options".to_owned(),
                    output_options(&options, block.line, true, problem),
                );
            }
            other => problem(
                other,
                block.line,
                format!("`{other}` is not a block of {TERRAFORM_RESOURCE}"),
            ),
        }
    }
}

/// Why a resource's `zone_id` (`kind` zone) or `account_id` is not `scope`, if it is not:
/// another kind, a literal id of another zone or account, or an expression escpush cannot
/// evaluate (`var.zone_b`, `cloudflare_zone.main.id`) that the caller has not said stands for
/// `scope` (one of `assumed`, compared without whitespace): it may be another zone's, and the
/// job would be created in the wrong one.
fn other_scope(kind: DatasetScope, value: Written<'_>, scope: &Scope, assumed: &[String]) -> Option<String> {
    let attribute = crate::provider::scope_attribute(kind);
    if let Ok(Value::String(id)) = evaluate(value, false, true) {
        return (kind != scope.kind() || id != scope.id()).then(|| {
            format!(
                "the job is of {} {id}, and the jobs are applied to {scope}: change {attribute}, or apply to that {}",
                kind.as_str(),
                kind.as_str()
            )
        });
    }
    if kind != scope.kind() {
        return Some(format!(
            "the job is of {}, and the jobs are applied to {scope}",
            kind.with_article()
        ));
    }
    let written = expression_text(value);
    let compact = |t: &str| t.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    if written
        .as_deref()
        .is_some_and(|w| assumed.iter().any(|a| compact(a) == compact(w)))
    {
        return None;
    }
    let shown = written.map_or_else(|| "an expression".to_owned(), |w| format!("`{w}`"));
    let option = written_option(expression_text(value).as_deref().unwrap_or("EXPR"));
    Some(format!(
        "{attribute} is {shown}, which escpush does not evaluate, so it cannot tell whether the job is of {scope} \
         (it may be another {}'s, and the job would be created in the wrong one): write the id, or say that \
         the expression is {scope} ({option})",
        kind.as_str()
    ))
}

/// How the caller says that `expression` is the scope: the command line's option and
/// Python's argument.
fn written_option(expression: &str) -> String {
    format!("--scope-expression '{expression}' on the command line, scope_expressions=[\"{expression}\"] in Python")
}

/// An `output_options` object of attributes, as the job's keys (`cve_2021_44228` as
/// `CVE-2021-44228`; in provider v4's block, `v4`, its `cve20214428` too); `null` attributes
/// left out, values converted as Terraform converts them.
fn output_options(
    options: &Map<String, Value>,
    line: Option<usize>,
    v4: bool,
    problem: &mut impl FnMut(&str, Option<usize>, String),
) -> Value {
    let mut out = Map::new();
    for (written, value) in options {
        if value.is_null() {
            continue;
        }
        let renamed = TERRAFORM_V4_OUTPUT_OPTIONS
            .iter()
            .find(|(old, _)| *old == written.as_str())
            .map(|(_, new)| *new);
        let attribute = match renamed {
            Some(new) if v4 => new,
            _ => written.as_str(),
        };
        if let Some(key) = output_option_key(attribute).filter(|_| TERRAFORM_OUTPUT_OPTIONS.contains(&attribute)) {
            match convert(value.clone(), option_type(key)) {
                Ok(v) => {
                    out.insert(key.to_owned(), v);
                }
                Err(why) => problem(
                    &format!("output_options.{written}"),
                    line,
                    format!("{why}; write its value"),
                ),
            }
        } else if let Some(new) = renamed {
            problem(
                &format!("output_options.{written}"),
                line,
                format!("`{written}` is the name provider v4's output_options block gives `{new}`; write `{new}`"),
            );
        } else {
            let attribute = written;
            let hint = suggest::did_you_mean(suggest::closest(
                attribute,
                TERRAFORM_OUTPUT_OPTIONS.iter().map(|a| (*a, *a)),
            ));
            problem(
                &format!("output_options.{attribute}"),
                line,
                format!("`{attribute}` is not an attribute of output_options{hint}"),
            );
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export_jobs;
    use crate::ExportFormat;
    use crate::FilterForm;
    use serde_json::json;

    fn zone() -> Scope {
        Scope::zone("023e105f4ecef8ad9ca31a8372d0c353").unwrap()
    }

    #[test]
    fn an_export_reads_back_as_its_jobs() {
        let job = json!({
            "id": 3, "name": "edge.errors", "dataset": "http_requests", "enabled": true, "kind": "",
            "destination_conf": "https://user:pw@logs.example.com/in?header_Authorization=Basic%20x&region=eu",
            "filter": r#"{"where":{"and":[{"key":"ClientRequestHost","operator":"in","value":["a\"${b}","%{c}\\"]},{"key":"EdgeResponseStatus","operator":"geq","value":500}]}}"#,
            "max_upload_bytes": 5_000_000,
            "output_options": {"CVE-2021-44228": true, "field_names": ["ClientIP"], "sample_rate": 0.25,
                                "record_suffix": "}\n", "stringify_object": true},
        });
        for form in [FilterForm::Text, FilterForm::Jsonencode] {
            let tf = export_jobs(
                &[job.as_object().unwrap().clone()],
                &zone(),
                ExportFormat::Terraform(form),
                None,
            )
            .unwrap();
            let doc = read_terraform_jobs(&tf, &zone()).unwrap();
            let read = &doc["jobs"][0];
            assert_eq!(
                read["destination_conf"],
                "https://${TF_VAR_edge_errors_userinfo}@logs.example.com/in?header_Authorization=${TF_VAR_edge_errors_header_authorization}&region=eu"
            );
            let filter = escpush_filter::Filter::parse(read["filter"].as_str().unwrap()).unwrap();
            assert_eq!(
                filter,
                escpush_filter::Filter::parse(job["filter"].as_str().unwrap()).unwrap()
            );
            assert_eq!(
                read["output_options"],
                json!({"CVE-2021-44228": true, "field_names": ["ClientIP"], "sample_rate": 0.25, "record_suffix": "}\n"})
            );
            for key in ["name", "dataset", "enabled", "kind", "max_upload_bytes"] {
                assert_eq!(read[key], job[key], "{key}");
            }
        }
    }

    #[test]
    fn hand_written_resources_of_the_same_shape() {
        let tf = r#"
            /* v4 style */
            resource "cloudflare_logpush_job" "a" {
              zone_id = cloudflare_zone.main.id  // any expression
              name    = "a"
              dataset = "http_requests"
              destination_conf = <<-EOT
                s3://b/p?region=r&secret-access-key=${var.key}
              EOT
              output_options {
                cve_2021_44228 = false
              }
              lifecycle { prevent_destroy = true }
            }
            resource "cloudflare_zone" "main" { name = "example.com" }
        "#;
        let doc = read_terraform_jobs_for(tf, &zone(), &["cloudflare_zone.main.id".to_owned()]).unwrap();
        assert_eq!(
            doc["jobs"][0]["destination_conf"],
            "s3://b/p?region=r&secret-access-key=${TF_VAR_key}\n"
        );
        assert_eq!(doc["jobs"][0]["output_options"], json!({"CVE-2021-44228": false}));
    }

    #[test]
    fn what_cannot_be_evaluated_is_refused_with_its_place() {
        let tf = r#"
resource "cloudflare_logpush_job" "a" {
  zone_id = "0000000000000000000000000000000f"
  name    = local.name
  filtr   = "x"
  filter  = "${var.f}"
  enabled = var.on ? true : false
  count   = 2
}"#;
        let err = read_terraform_jobs(tf, &zone()).unwrap_err().to_string();
        for expected in [
            "cloudflare_logpush_job.a.zone_id: line 3: the job is of zone 0000000000000000000000000000000f",
            "cloudflare_logpush_job.a.name: line 4: a reference to `local.name`",
            "cloudflare_logpush_job.a.filtr: line 5: `filtr` is not an attribute of cloudflare_logpush_job; did you mean `filter`",
            "cloudflare_logpush_job.a.filter: line 6: `${var.f}`: escpush reads input variables in destination_conf only",
            "cloudflare_logpush_job.a.enabled: line 7",
            "cloudflare_logpush_job.a.count: line 8",
        ] {
            assert!(err.contains(expected), "{expected}\n{err}");
        }
        let err = read_terraform_jobs("resource \"cloudflare_logpush_job\" \"a\" {\n  name = \"a\n}", &zone())
            .unwrap_err()
            .to_string();
        assert!(err.contains("line 2"), "{err}");
    }

    /// The problems of `read_terraform_jobs`, one `path: message` a line.
    fn refused(tf: &str) -> String {
        read_terraform_jobs(tf, &zone()).unwrap_err().to_string()
    }

    fn job(body: &str) -> String {
        format!(
            "resource \"cloudflare_logpush_job\" \"a\" {{\n  name = \"a\"\n  dataset = \"http_requests\"\n{body}\n}}\n"
        )
    }

    #[test]
    fn escapes_heredocs_and_comments_read_as_terraform_reads_them() {
        let tf = r#"
# a comment
// another
/* and one
   over lines */
resource "cloudflare_logpush_job" "a" {
  name             = "a" # after an attribute
  dataset          = "http_requests"
  destination_conf = <<-EOT
    s3://b/p?region=r&secret-access-key=${var.key}
    EOT
  filter = <<EOT
  {"where": {"key": "ClientRequestPath", "operator": "eq", "value": "$${x} %%{y} \u00e9"}}
EOT
  max_upload_bytes = 5e6 /* a number in exponent form */
  output_options = {
    record_prefix = "caf\u00e9 \U0001F600 \"q\" \\ $${x} %%{y}"
    sample_rate   = 0.25
  }
}
"#;
        let doc = read_terraform_jobs(tf, &zone()).unwrap();
        let job = &doc["jobs"][0];
        // `<<-` takes the indent off; a heredoc keeps its text as written (no `\` escapes,
        // `$${` and `%%{` as literal `${` and `%{`), ending with its line end.
        assert_eq!(
            job["destination_conf"],
            "s3://b/p?region=r&secret-access-key=${TF_VAR_key}\n"
        );
        let filter: Value = serde_json::from_str(job["filter"].as_str().unwrap()).unwrap();
        assert_eq!(filter["where"]["value"], "${x} %{y} é");
        assert_eq!(job["max_upload_bytes"], 5_000_000.0);
        assert_eq!(
            job["output_options"],
            json!({"record_prefix": "café 😀 \"q\" \\ ${x} %{y}", "sample_rate": 0.25})
        );
        assert_eq!(doc["addresses"], json!(["cloudflare_logpush_job.a"]));
    }

    #[test]
    fn a_syntax_error_names_its_line_and_column() {
        // The block comment spans lines: the error is on line 6 of the file.
        let err =
            refused("/*\n\n*/\nresource \"cloudflare_logpush_job\" \"a\" {\n  name = \"a\"\n  dataset \"x\"\n}\n");
        assert!(err.contains("line 6, column "), "{err}");
        assert!(!err.contains("dataset \"x\""), "the line is not shown: {err}");
        let err = refused(&job("  destination_conf = <<EOT\ns3://b\n"));
        assert!(err.contains("line "), "{err}");
    }

    /// A syntax error does not show its line: a credential written out in the file (the
    /// provider allows it) would be printed with it.
    #[test]
    fn a_syntax_error_never_shows_a_credential() {
        let secret = "TFLITSECRET";
        for broken in [
            format!("  destination_conf = \"s3://b/p?region=us-east-1&secret-access-key={secret}\n"),
            format!("  destination_conf = \"s3://b/p?secret-access-key={secret}\"\n  destination_conf = \"x\""),
            format!("  destination_conf = <<EOT\ns3://b/p?secret-access-key={secret}\nEOT\n  dataset \"x\"\n"),
        ] {
            let err = refused(&job(&broken));
            assert!(err.contains("line "), "{err}");
            assert!(!err.contains(secret), "{err}");
        }
        // Nor does an expression escpush does not evaluate, in an attribute that may hold a
        // credential; elsewhere it is quoted.
        for (attribute, value) in [
            (
                "destination_conf",
                format!("\"s3://b/p?secret-access-key={secret}\" == \"x\" ? \"a\" : \"b\""),
            ),
            (
                "destination_conf",
                format!("\"s3://b/p?k=%{{ if \"{secret}\" == var.x }}a%{{ endif }}\""),
            ),
            (
                "destination_conf",
                format!("\"s3://b/p?k=${{ \"{secret}\" == 1 ? [] : [] }}\""),
            ),
            ("ownership_challenge", format!("\"{secret}\" == \"x\" ? \"a\" : \"b\"")),
        ] {
            let err = refused(&job(&format!("  {attribute} = {value}")));
            assert!(err.contains(&format!("{attribute}: line 4: ")), "{err}");
            assert!(!err.contains(secret), "{err}");
        }
        let err = refused(&job("  frequency = \"high\" == \"x\" ? \"a\" : \"b\""));
        assert!(
            err.contains("the conditional `\"high\" == \"x\" ? \"a\" : \"b\"`"),
            "{err}"
        );
    }

    #[test]
    fn templates_escpush_cannot_evaluate_are_refused_clearly() {
        let err = refused(&job(
            "  destination_conf = \"s3://b/%{ if var.x }a%{ endif }\"\n  filter = \"${local.f}\"\n  frequency = \"${var.f}\"",
        ));
        for expected in [
            "cloudflare_logpush_job.a.destination_conf: line 4: the template directive `%{ … }`, which escpush \
             does not evaluate; write its value",
            "cloudflare_logpush_job.a.filter: line 5: a reference to `local.f`, which escpush does not evaluate",
            "cloudflare_logpush_job.a.frequency: line 6: `${var.f}`: escpush reads input variables in destination_conf only",
        ] {
            assert!(err.contains(expected), "{expected}\n{err}");
        }
        // A literal `${` (written `$${`) in a destination is kept literal: `$${` in the job
        // read, which apply sends as `${` (issue 33).
        let doc = read_terraform_jobs(
            &job("  destination_conf = \"https://h/in/$${HOME}?header_X=${var.x}&a=$$${y}\""),
            &zone(),
        )
        .unwrap();
        assert_eq!(
            doc["jobs"][0]["destination_conf"],
            "https://h/in/$${HOME}?header_X=${TF_VAR_x}&a=$$${y}"
        );
        // Splats, calls, operators and `for` name what they are.
        let err = refused(&job(
            "  zone_id = cloudflare_zone.all[*].id\n  kind = local.k[*].v\n  frequency = lower(\"X\")\n  enabled = !false\n  max_upload_records = [for x in [1] : x][0]",
        ));
        for expected in [
            "kind: line 5: a reference to `local.k[*].v`",
            "frequency: line 6: a call of lower(), which escpush does not evaluate (only jsonencode)",
            "enabled: line 7: an expression with operators",
            "max_upload_records: line 8",
        ] {
            assert!(err.contains(expected), "{expected}\n{err}");
        }
        // A scope escpush cannot evaluate is refused too (issue 33, item 10).
        assert!(err.contains("zone_id is `cloudflare_zone.all[*].id`"), "{err}");
        // An attribute given twice is refused, as Terraform does.
        let err = refused(&job("  destination_conf = \"s3://b\"\n  name = \"b\""));
        assert!(
            err.contains("line 5, column 3: invalid attribute; expected unique attribute key"),
            "{err}"
        );
    }

    #[test]
    fn terraforms_json_syntax_reads_as_the_native_one() {
        let native = r#"
resource "cloudflare_logpush_job" "errors" {
  zone_id          = var.zone_id
  name             = "errors"
  dataset          = "http_requests"
  destination_conf = "s3://logs/http?region=us-east-1&secret-access-key=${var.key}"
  filter           = jsonencode({ where = { key = "EdgeResponseStatus", operator = "geq", value = 500 } })
  enabled          = true
  output_options   = { cve_2021_44228 = true }
}"#;
        let json = r#"{
  "//": "jobs kept in Terraform",
  "variable": {"key": {"sensitive": true}},
  "resource": [{"cloudflare_logpush_job": {"errors": {
    "zone_id": "${var.zone_id}",
    "name": "errors",
    "dataset": "http_requests",
    "destination_conf": "s3://logs/http?region=us-east-1&secret-access-key=${var.key}",
    "filter": "${jsonencode({ where = { key = \"EdgeResponseStatus\", operator = \"geq\", value = 500 } })}",
    "enabled": "${true}",
    "output_options": {"cve_2021_44228": true},
    "lifecycle": {"prevent_destroy": true}
  }}}, {"cloudflare_zone": {"main": {"name": "example.com"}}}]
}"#;
        let read = |text: &str| read_terraform_jobs_for(text, &zone(), &[" var . zone_id ".to_owned()]).unwrap();
        let from_native = read(native);
        assert_eq!(read(json), from_native);
        let with_bom = format!("\u{feff}{json}");
        assert_eq!(read(&with_bom), from_native);
        let with_bom = format!("\u{feff}{native}");
        assert_eq!(read(&with_bom), from_native);
        assert_eq!(from_native["addresses"], json!(["cloudflare_logpush_job.errors"]));
        // Problems name the resource and the attribute; the JSON syntax has no line to give.
        let err = refused(
            r#"{"resource": {"cloudflare_logpush_job": {"a": {"name": "${local.n}", "dataset": "http_requests",
                "destination_conf": "s3://b/$${x}", "zone_id": "0000000000000000000000000000000f", "filtr": 1}}}}"#,
        );
        for expected in [
            "cloudflare_logpush_job.a.name: a reference to `local.n`",
            "cloudflare_logpush_job.a.zone_id: the job is of zone 0000000000000000000000000000000f",
            "cloudflare_logpush_job.a.filtr: `filtr` is not an attribute of cloudflare_logpush_job; did you mean `filter`",
        ] {
            assert!(err.contains(expected), "{expected}\n{err}");
        }
        // A member given twice, and JSON that is not, are refused at their line and column.
        let err =
            refused("{\"resource\": {\"cloudflare_logpush_job\": {\"a\": {\n\"name\": \"a\", \"name\": \"b\"}}}}");
        assert!(err.contains("line 2, column "), "{err}");
        assert!(refused("{\"resource\": [1]}").contains("resource: is a number"));
        assert!(refused("{\"resource\": ").contains("line 1, column 14: not JSON"));
    }

    #[test]
    fn problems_found_later_name_the_resource() {
        // Checked as apply checks a jobs file, under the resource's address.
        let err = refused(&job("  destination_conf = \"s3://b\"").replace("http_requests", "http_request"));
        assert!(err.contains("cloudflare_logpush_job.a.dataset: "), "{err}");
        assert!(!err.contains("jobs[0]"), "{err}");
        // A resource without a name is read (issue 33); the plan cannot create it (it could
        // not be found again) unless an import block says which job it is.
        let doc = read_terraform_jobs(
            "resource \"cloudflare_logpush_job\" \"a\" {\n  dataset = \"http_requests\"\n  destination_conf = \"r2://b\"\n}",
            &zone(),
        )
        .unwrap();
        let err = escpush_core::plan_document(&doc, &[], &zone(), escpush_core::PlanOptions::new())
            .unwrap_err()
            .to_string();
        assert!(err.contains("cloudflare_logpush_job.a: a job without a name"), "{err}");
        // While planning: a creation needs the credentials its variables stand for.
        let doc = read_terraform_jobs(
            &job("  destination_conf = \"s3://b?region=r&secret-access-key=${var.k}\""),
            &zone(),
        )
        .unwrap();
        let err = escpush_core::plan_document(&doc, &[], &zone(), escpush_core::PlanOptions::new())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("cloudflare_logpush_job.a.destination_conf: creating the job"),
            "{err}"
        );
    }

    /// Issue 33, item 12: files written by others, read as Terraform and the provider read them.
    #[test]
    fn v4_blocks_quoted_numbers_and_the_default_dataset() {
        // v4's output_options block names the CVE option `cve20214428`.
        let tf = r#"
resource "cloudflare_logpush_job" "a" {
  name             = "a"
  dataset          = "http_requests"
  destination_conf = "r2://b/p"
  output_options {
    cve20214428 = true
    sample_rate = "0.5"
  }
}"#;
        let doc = read_terraform_jobs(tf, &zone()).unwrap();
        assert_eq!(
            doc["jobs"][0]["output_options"],
            json!({"CVE-2021-44228": true, "sample_rate": 0.5})
        );
        // Terraform converts a string to the attribute's type: a number, a bool, text.
        let doc = read_terraform_jobs(
            &job("  destination_conf = \"r2://b/p\"\n  max_upload_interval_seconds = \"30\"\n  max_upload_records = \"1e3\"\n  enabled = \"true\"\n  kind = \"\""),
            &zone(),
        )
        .unwrap();
        let read = &doc["jobs"][0];
        assert_eq!(read["max_upload_interval_seconds"], 30);
        assert_eq!(read["max_upload_records"], 1000);
        assert_eq!(read["enabled"], true);
        let err = refused(&job(
            "  destination_conf = \"r2://b/p\"\n  max_upload_records = \"many\"",
        ));
        assert!(err.contains("max_upload_records: line 5: "), "{err}");
        // v5 defaults `dataset` to http_requests.
        let doc = read_terraform_jobs(
            "resource \"cloudflare_logpush_job\" \"a\" {\n  name = \"a\"\n  destination_conf = \"r2://b/p\"\n}\n",
            &zone(),
        )
        .unwrap();
        assert_eq!(doc["jobs"][0]["dataset"], "http_requests");
        // `dataset = null` is no dataset to Terraform: the provider's default too.
        let doc = read_terraform_jobs(
            "resource \"cloudflare_logpush_job\" \"a\" {\n  name = \"a\"\n  dataset = null\n  destination_conf = \"r2://b/p\"\n}\n",
            &zone(),
        )
        .unwrap();
        assert_eq!(doc["jobs"][0]["dataset"], "http_requests");
    }

    #[test]
    fn what_terraform_refuses_twice_is_refused() {
        let one = job("  destination_conf = \"r2://b/p\"");
        let err = refused(&format!("{one}{}", one.replace("name = \"a\"", "name = \"b\"")));
        assert!(
            err.contains("cloudflare_logpush_job.a: line 6: a resource of this address is declared on line 1 too"),
            "{err}"
        );
        let err = refused(&job(
            "  destination_conf = \"r2://b/p\"\n  output_options {\n    sample_rate = 0.5\n  }\n  output_options {\n    sample_rate = 0.25\n  }",
        ));
        assert!(
            err.contains("output_options: line 8: a second output_options block"),
            "{err}"
        );
        let err = refused(&job(
            "  destination_conf = \"r2://b/p\"\n  output_options = { sample_rate = 0.5 }\n  output_options {\n    sample_rate = 0.25\n  }",
        ));
        assert!(
            err.contains("output_options: line 6: output_options is given as an attribute (line 5) and as a block"),
            "{err}"
        );
        let json = r#"{"resource": {"cloudflare_logpush_job": {"a": [
            {"name": "a", "dataset": "http_requests", "destination_conf": "r2://b/p"},
            {"name": "b", "dataset": "http_requests", "destination_conf": "r2://b/q"}]}}}"#;
        assert!(refused(json).contains("cloudflare_logpush_job.a: a resource of this address is declared"));
    }

    /// Issue 33, item 10: a scope escpush cannot evaluate may be another zone's; it is taken
    /// for the scope given only when the caller says so.
    #[test]
    fn a_scope_escpush_cannot_evaluate_is_refused_unless_named() {
        let tf = |scope: &str| {
            format!(
                "resource \"cloudflare_logpush_job\" \"b\" {{\n  zone_id = {scope}\n  name = \"b\"\n  dataset = \"http_requests\"\n  destination_conf = \"r2://b/p\"\n}}\n"
            )
        };
        let err = refused(&tf("var.zone_b"));
        assert!(
            err.contains(
                "cloudflare_logpush_job.b.zone_id: line 2: zone_id is `var.zone_b`, which escpush does not evaluate, \
                 so it cannot tell whether the job is of zone 023e105f4ecef8ad9ca31a8372d0c353"
            ),
            "{err}"
        );
        assert!(err.contains("--scope-expression 'var.zone_b'"), "{err}");
        // Named, it is the scope; another expression still is not.
        let named = ["var.zone_b".to_owned()];
        assert!(read_terraform_jobs_for(&tf("var.zone_b"), &zone(), &named).is_ok());
        let err = read_terraform_jobs_for(&tf("var.zone_a"), &zone(), &named)
            .unwrap_err()
            .to_string();
        assert!(err.contains("zone_id is `var.zone_a`"), "{err}");
        // The JSON syntax: the expression inside "${...}".
        let json = r#"{"resource": {"cloudflare_logpush_job": {"b": {"zone_id": "${var.zone_b}", "name": "b",
            "dataset": "http_requests", "destination_conf": "r2://b/p"}}}}"#;
        assert!(refused(json).contains("cloudflare_logpush_job.b.zone_id: zone_id is `var.zone_b`"));
        assert!(read_terraform_jobs_for(json, &zone(), &named).is_ok());
        // A literal of the scope needs nothing; an account_id on a zone is refused as before.
        assert!(read_terraform_jobs(&tf("\"023e105f4ecef8ad9ca31a8372d0c353\""), &zone()).is_ok());
        let err = refused(&tf("var.zone_b").replace("zone_id", "account_id"));
        assert!(err.contains("the job is of an account"), "{err}");
    }
}
