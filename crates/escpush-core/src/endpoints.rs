//! The API escpush speaks, described once: every endpoint is one row of the table below
//! (its method, its path template relative to the base URL, the scopes it exists on, and
//! whether a transport may send it again after a failure, with the reason).
//!
//! Everything else reads the table: the operations ([`EscOp`](crate::EscOp),
//! [`JobOp`](crate::JobOp)) build their requests with [`Endpoint::request`], a transport
//! repeats a request by the [`RetryClass`] the request carries, and the emulator routes
//! with [`Endpoint::route`] and answers each endpoint in one exhaustive `match`, so a new
//! row does not compile until it has a handler there.
//!
//! A path template is a `/`-separated list of segments: `{scope}` stands for `zones/{id}`
//! or `accounts/{id}` (whichever of the row's scopes the request is made on), any other
//! `{name}` for one argument, filled in order; every other segment is literal.

use std::fmt;

use crate::error::Error;
use crate::request::{Method, Request, RetryClass};
use crate::scope::Scope;
use escpush_filter::DatasetScope;

/// The scopes of an endpoint that exists on zones and on accounts alike.
const BOTH: &[DatasetScope] = &DatasetScope::ALL;

/// The scopes of an endpoint that exists on zones only.
const ZONES: &[DatasetScope] = &[DatasetScope::Zone];

/// The scopes of an endpoint that exists on accounts only.
const ACCOUNTS: &[DatasetScope] = &[DatasetScope::Account];

/// The table: one row per endpoint, `Name = Method "template" on SCOPES, RetryClass: "why"`,
/// and for a request that is not safe to repeat `, check: "how"`: how to find out whether it
/// took effect when its answer was lost (`{scope}` stands for the scope, as `zone z1`); for
/// one whose repeat answers an error once an earlier attempt took effect, `, done_on_repeat:
/// STATUS` (a `DELETE`'s 404: see [`Request::done_on_repeat`]).
/// It makes [`Endpoint`] (one variant per row, with the row's doc comment), [`Endpoint::ALL`]
/// in the rows' order, and [`Endpoint::row`].
macro_rules! endpoints {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident = $method:ident $template:literal on $scopes:ident, $retry:ident: $why:literal
            $(, check: $check:literal)? $(, done_on_repeat: $done:literal)?;
    )*) => {
        /// Every endpoint of the API escpush speaks, one per row of the table in
        /// `endpoints.rs`: its method, path template, scopes and retry class are the
        /// accessors below.
        ///
        /// Deliberately not `#[non_exhaustive]`: the emulator answers it in one exhaustive
        /// `match`, so that a new endpoint cannot be routed without a handler.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Endpoint {
            $($(#[doc = $doc])* $name,)*
        }

        impl Endpoint {
            /// Every endpoint, in the table's order (which is also the order of an `Allow`
            /// header).
            pub const ALL: &'static [Endpoint] = &[$(Endpoint::$name),*];

            /// The endpoint's row of the table.
            fn row(self) -> Row {
                match self {
                    $(Endpoint::$name => Row {
                        method: Method::$method,
                        template: $template,
                        scopes: $scopes,
                        retry: RetryClass::$retry,
                        why: $why,
                        check: None $(.or(Some($check)))?,
                        done_on_repeat: None $(.or(Some($done)))?,
                    },)*
                }
            }
        }
    };
}

endpoints! {
    /// The ESC setting of a scope: its status and, when one is configured, its secret
    /// (SPEC §4).
    EscStatus = Get "/{scope}/disable_esc" on BOTH,
        Safe: "a read";
    /// Disables ESC for every request (`{"always": true}`) or configures the per-request
    /// secret (`{"with_secret": "..."}`): two operations on one endpoint, told apart by the
    /// body (SPEC §4; [`EscOp::read_body`](crate::EscOp::read_body) reads it).
    EscSet = Post "/{scope}/disable_esc" on BOTH,
        Safe: "it sets the scope's state to `always: true` or to the given secret: sent twice, it \
               leaves the state it leaves once (SPEC §3)";
    /// Enables ESC again (SPEC §4).
    EscEnable = Delete "/{scope}/disable_esc" on BOTH,
        Safe: "it clears `always`: sent twice, it leaves the state it leaves once (SPEC §3)";

    /// Every log-push job of the scope (schema `GET /zones/{zone_id}/logpush/jobs`, and its
    /// account twin).
    JobList = Get "/{scope}/logpush/jobs" on BOTH,
        Safe: "a read";
    /// Creates a log-push job (SPEC §4; schema `POST .../logpush/jobs`).
    JobCreate = Post "/{scope}/logpush/jobs" on BOTH,
        WhenUnprocessed: "every creation the API processes adds a job: it is sent again only when it \
                          cannot have been processed (after a 429, which refuses a request unprocessed, or \
                          when no connection was made), never once it may have reached the API",
        check: "the job may exist; list the jobs of {scope} and look for it before creating it again (a \
                creation that may have reached the API is never retried)";
    /// One job (schema `GET .../logpush/jobs/{job_id}`).
    JobGet = Get "/{scope}/logpush/jobs/{job_id}" on BOTH,
        Safe: "a read";
    /// Changes a job (schema `PUT .../logpush/jobs/{job_id}`).
    JobUpdate = Put "/{scope}/logpush/jobs/{job_id}" on BOTH,
        Safe: "it sets the fields it sends: the same body gives the same job";
    /// Deletes a job (schema `DELETE .../logpush/jobs/{job_id}`).
    JobDelete = Delete "/{scope}/logpush/jobs/{job_id}" on BOTH,
        Safe: "sent twice, it ends with the job gone all the same (the second answer, a 404, says it \
               is already gone)",
        done_on_repeat: 404;
    /// The jobs of one dataset (schema `GET .../logpush/datasets/{dataset_id}/jobs`).
    DatasetJobs = Get "/{scope}/logpush/datasets/{dataset_id}/jobs" on BOTH,
        Safe: "a read";
    /// The live field list of a dataset, `{field: description}` (schema `GET
    /// .../logpush/datasets/{dataset_id}/fields`).
    DatasetFields = Get "/{scope}/logpush/datasets/{dataset_id}/fields" on BOTH,
        Safe: "a read";
    /// Asks the API to write an ownership challenge file to a destination (schema `POST
    /// .../logpush/ownership`).
    OwnershipChallenge = Post "/{scope}/logpush/ownership" on BOTH,
        Safe: "each one writes a fresh challenge file, harmlessly, and its answer names the file to read";
    /// Checks an ownership challenge against a destination (schema `POST
    /// .../logpush/ownership/validate`).
    OwnershipValidate = Post "/{scope}/logpush/ownership/validate" on BOTH,
        Safe: "a check: it changes nothing";
    /// Whether the API can push to a destination. Newer than the 2024 schema: SDK 5.9
    /// `logpush.validate.destination`, API reference "Validate destination".
    ValidateDestination = Post "/{scope}/logpush/validate/destination" on BOTH,
        Safe: "a check: it changes nothing";
    /// Whether a job of the scope already pushes to a destination (schema `POST
    /// .../logpush/validate/destination/exists`).
    DestinationExists = Post "/{scope}/logpush/validate/destination/exists" on BOTH,
        Safe: "a check: it changes nothing";
    /// Whether a `logpull_options` string is valid (schema `POST
    /// .../logpush/validate/origin`; SDK 5.9 `logpush.validate.origin`).
    ValidateOrigin = Post "/{scope}/logpush/validate/origin" on BOTH,
        Safe: "a check: it changes nothing";

    /// The transformers of an account (transformers.mdx, API table "List transformers"; SDK 5.9
    /// `logpush.transformers.list`). Accounts only: the docs and the SDK have no zone path.
    TransformerList = Get "/{scope}/logpush/transformers" on ACCOUNTS,
        Safe: "a read";
    /// Creates a transformer `{name, code, description?}` (transformers.mdx "Create a
    /// transformer"; SDK 5.9 `logpush.transformers.create`, TransformerCreateParams).
    TransformerCreate = Post "/{scope}/logpush/transformers" on ACCOUNTS,
        WhenUnprocessed: "every creation the API processes adds a transformer: it is sent again only when \
                          it cannot have been processed",
        check: "the transformer may exist; list the transformers of {scope} and look for it before creating \
                it again (a creation that may have reached the API is never retried)";
    /// Runs SQL `{sql, input}` on one record and answers the delivered records; nothing is
    /// kept (transformers.mdx "Preview a transformer"; SDK 5.9 `logpush.transformers.preview`,
    /// a `POST`). Listed before `TransformerGet` so that `preview` is not read as an id.
    TransformerPreview = Post "/{scope}/logpush/transformers/preview" on ACCOUNTS,
        Safe: "stateless: nothing is persisted (SDK 5.9 docstring)";
    /// One transformer (transformers.mdx "Get a transformer"; SDK 5.9 `logpush.transformers.get`).
    TransformerGet = Get "/{scope}/logpush/transformers/{transformer_id}" on ACCOUNTS,
        Safe: "a read";
    /// A transformer's SQL, the latest version or `?version_id=N` (transformers.mdx "Download
    /// SQL"; SDK 5.9 `logpush.transformers.content.get`).
    TransformerContent = Get "/{scope}/logpush/transformers/{transformer_id}/content" on ACCOUNTS,
        Safe: "a read";
    /// A transformer's versions, `?limit=N` (transformers.mdx "List versions"; SDK 5.9
    /// `logpush.transformers.versions.list`).
    TransformerVersions = Get "/{scope}/logpush/transformers/{transformer_id}/versions" on ACCOUNTS,
        Safe: "a read";
    /// Changes a transformer `{name, code?, description?}`: a new `code` is a new version
    /// (transformers.mdx "Update a transformer"; SDK 5.9 `logpush.transformers.update`).
    TransformerUpdate = Put "/{scope}/logpush/transformers/{transformer_id}" on ACCOUNTS,
        WhenUnprocessed: "a `PUT` with `code` saves a new version each time it is processed (\"every save \
                          creates a new version\", transformers.mdx): sent again only when it cannot have been \
                          processed",
        check: "the transformer may have a new version; list its versions on {scope} before saving again";
    /// Deletes a transformer; refused while a job references it (transformers.mdx; SDK 5.9
    /// `logpush.transformers.delete`: 409).
    TransformerDelete = Delete "/{scope}/logpush/transformers/{transformer_id}" on ACCOUNTS,
        Safe: "sent twice, it ends with the transformer gone all the same (the second answer, a 404, says \
               it is already gone)",
        done_on_repeat: 404;

    /// The Instant Logs jobs of a zone. Zones only (the schema and the SDK have no account
    /// path). The path of SDK 5.9 (`logpush.edge.get`) and of the docs (instant-logs.mdx); the
    /// 2024 schema's `/zones/{zone_id}/logpush/edge` is out of date.
    InstantLogsList = Get "/{scope}/logpush/edge/jobs" on ZONES,
        Safe: "a read";
    /// Opens an Instant Logs session on a zone (SDK 5.9 `logpush.edge.create`;
    /// instant-logs.mdx), zones only.
    InstantLogsCreate = Post "/{scope}/logpush/edge/jobs" on ZONES,
        WhenUnprocessed: "every creation the API processes opens a session, and a zone has only one \
                          active at a time (instant-logs.mdx): a repeat would be refused, or replace the \
                          session whose address the lost answer held",
        check: "a session may be open; list the Instant Logs jobs of {scope} and use the one there before \
                opening another (a zone has one active session at a time, and an opening that may have \
                reached the API is never retried)";
}

/// One row of the table.
#[derive(Clone, Copy)]
struct Row {
    method: Method,
    template: &'static str,
    scopes: &'static [DatasetScope],
    retry: RetryClass,
    why: &'static str,
    check: Option<&'static str>,
    done_on_repeat: Option<u16>,
}

impl Endpoint {
    /// The HTTP method.
    pub fn method(self) -> Method {
        self.row().method
    }

    /// The path template, relative to the base URL: `/{scope}/logpush/jobs/{job_id}`.
    pub fn template(self) -> &'static str {
        self.row().template
    }

    /// The scopes the endpoint exists on, zone first.
    pub fn scopes(self) -> &'static [DatasetScope] {
        self.row().scopes
    }

    /// Whether a transport may send the request again after a failure.
    pub fn retry(self) -> RetryClass {
        self.row().retry
    }

    /// Why the endpoint has its retry class, in a sentence.
    pub fn retry_reason(self) -> &'static str {
        self.row().why
    }

    /// For a request that is not safe to repeat, how to find out on `scope` whether it took
    /// effect when its answer was lost (a transport's "the request was sent, so it may have
    /// taken effect: ..."); `None` for one that is safe to repeat.
    pub fn outcome_check(self, scope: &Scope) -> Option<String> {
        self.row().check.map(|c| c.replace("{scope}", &scope.to_string()))
    }

    /// The status that, answering a repeat after an attempt that may have taken effect,
    /// means that attempt did it (a job `DELETE`'s 404: the job is gone); `None` for the
    /// others (see [`Request::done_on_repeat`]).
    pub fn done_on_repeat(self) -> Option<u16> {
        self.row().done_on_repeat
    }

    /// The names of the template's arguments after `{scope}`, in order (`["job_id"]`).
    pub fn arguments(self) -> impl Iterator<Item = &'static str> {
        segments(self.template())
            .filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
            .filter(|name| *name != "scope")
    }

    /// The request of this endpoint on `scope`, its path filled with `args` (one per
    /// argument of the template, in order), its method, retry class and outcome check from
    /// the row; no body. Refused: a scope the endpoint does not exist on, and arguments that do not
    /// fit the template (a wrong count, an empty one, or one holding `/`, `?` or `#`).
    pub fn request(self, scope: &Scope, args: &[&str]) -> Result<Request, Error> {
        let path = self.path(scope, args)?;
        let request = Request::new(self.method(), path)
            .with_retry(self.retry())
            .with_done_on_repeat(self.done_on_repeat());
        Ok(match self.outcome_check(scope) {
            Some(check) => request.with_outcome_check(check),
            None => request,
        })
    }

    /// The path of this endpoint on `scope`, relative to the base URL, with `args` filled in
    /// (see [`Endpoint::request`]).
    pub fn path(self, scope: &Scope, args: &[&str]) -> Result<String, Error> {
        if !self.scopes().contains(&scope.kind()) {
            let on: Vec<String> = self.scopes().iter().map(|k| format!("{k}s")).collect();
            return Err(Error::InvalidInput {
                what: "scope",
                message: format!("{self} exists on {} only, not on {scope}", on.join(" and ")),
            });
        }
        let wanted = self.arguments().count();
        if args.len() != wanted {
            return Err(Error::InvalidInput {
                what: "path",
                message: format!("{self} takes {wanted} argument(s), not {}", args.len()),
            });
        }
        if let Some(bad) = args.iter().find(|a| a.is_empty() || a.contains(['/', '?', '#'])) {
            return Err(Error::InvalidInput {
                what: "path",
                message: format!("{self}: `{bad}` is not one path segment"),
            });
        }
        let mut args = args.iter();
        let mut path = String::new();
        for segment in segments(self.template()) {
            path.push('/');
            match segment {
                "{scope}" => {
                    path.push_str(collection(scope.kind()));
                    path.push('/');
                    path.push_str(scope.id());
                }
                s if s.starts_with('{') => path.push_str(args.next().copied().unwrap_or_default()),
                literal => path.push_str(literal),
            }
        }
        Ok(path)
    }

    /// The endpoint a request names, read from its method and its path relative to the
    /// base URL (`/zones/z1/logpush/jobs/7`): found (with the scope and the arguments), no
    /// endpoint has the path, or the path is an endpoint's but not with this method (the
    /// methods it takes, in the table's order). An id or an argument is any non-empty
    /// segment; checking it is the handler's business.
    pub fn route<'p>(method: &str, path: &'p str) -> Routed<'p> {
        let Some(rest) = path.strip_prefix('/') else {
            return Routed::NotFound;
        };
        let given: Vec<&str> = rest.split('/').collect();
        let mut allowed: Vec<Method> = Vec::new();
        for &endpoint in Endpoint::ALL {
            let Some(found) = endpoint.matches(&given) else {
                continue;
            };
            if endpoint.method().as_str() == method {
                return Routed::Found(found);
            }
            if !allowed.contains(&endpoint.method()) {
                allowed.push(endpoint.method());
            }
        }
        if allowed.is_empty() {
            Routed::NotFound
        } else {
            Routed::MethodNotAllowed(allowed)
        }
    }

    /// The route of `given` (the path's segments) through this endpoint's template, if it
    /// fits, whatever the method.
    fn matches<'p>(self, given: &[&'p str]) -> Option<Route<'p>> {
        let mut at = 0;
        let mut scope = None;
        let mut args = Vec::new();
        for segment in segments(self.template()) {
            let here = *given.get(at)?;
            match segment {
                "{scope}" => {
                    let kind = *self.scopes().iter().find(|k| collection(**k) == here)?;
                    let id = *given.get(at + 1).filter(|id| !id.is_empty())?;
                    scope = Some((kind, id));
                    at += 2;
                }
                s if s.starts_with('{') => {
                    if here.is_empty() {
                        return None;
                    }
                    args.push(here);
                    at += 1;
                }
                literal => {
                    if here != literal {
                        return None;
                    }
                    at += 1;
                }
            }
        }
        let (kind, scope_id) = scope?;
        (at == given.len()).then_some(Route {
            endpoint: self,
            kind,
            scope_id,
            args,
        })
    }
}

/// `GET /{scope}/logpush/jobs/{job_id}`.
impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{} {}`", self.method(), self.template())
    }
}

/// The path segment before a scope's id: `zones` or `accounts`.
fn collection(kind: DatasetScope) -> &'static str {
    match kind {
        DatasetScope::Zone => "zones",
        DatasetScope::Account => "accounts",
    }
}

fn segments(template: &'static str) -> impl Iterator<Item = &'static str> {
    template.split('/').skip(1)
}

/// What the table says of a request's method and path ([`Endpoint::route`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Routed<'p> {
    /// The endpoint, on its scope, with its arguments.
    Found(Route<'p>),
    /// No endpoint has this path (on this scope).
    NotFound,
    /// The path is an endpoint's, but none of its endpoints takes the method: these do.
    MethodNotAllowed(Vec<Method>),
}

/// A request's endpoint, read from its path.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Route<'p> {
    pub endpoint: Endpoint,
    /// Zone or account.
    pub kind: DatasetScope,
    /// The zone's or the account's id, as the path gives it.
    pub scope_id: &'p str,
    /// The template's arguments after `{scope}`, in order, as the path gives them.
    pub args: Vec<&'p str>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_is_well_formed() {
        for &e in Endpoint::ALL {
            assert!(e.template().starts_with("/{scope}/"), "{e}");
            assert!(!e.scopes().is_empty(), "{e}");
            assert!(!e.retry_reason().is_empty(), "{e}");
            // A request not safe to repeat says how to find out what became of it.
            let zone = Scope::zone("z1").unwrap();
            assert_eq!(e.outcome_check(&zone).is_some(), !e.retry().is_safe(), "{e}");
            // One row per method and path.
            let twins = Endpoint::ALL
                .iter()
                .filter(|o| o.method() == e.method() && o.template() == e.template());
            assert_eq!(twins.count(), 1, "{e}");
            // Each endpoint routes back to itself on each of its scopes.
            for &kind in e.scopes() {
                let scope = Scope::new(kind, "s1").unwrap();
                let args: Vec<String> = e.arguments().map(|a| format!("{a}-1")).collect();
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                let path = e.path(&scope, &args).unwrap();
                let Routed::Found(route) = Endpoint::route(e.method().as_str(), &path) else {
                    panic!("{e}: {path} does not route")
                };
                assert_eq!((route.endpoint, route.kind, route.scope_id), (e, kind, "s1"));
                assert_eq!(route.args, args);
            }
        }
        // ESC exists on both scopes (SPEC §4); Instant Logs on zones only.
        for e in [Endpoint::EscStatus, Endpoint::EscSet, Endpoint::EscEnable] {
            assert_eq!(e.scopes(), DatasetScope::ALL);
        }
        for e in [Endpoint::InstantLogsList, Endpoint::InstantLogsCreate] {
            assert_eq!(e.scopes(), [DatasetScope::Zone]);
        }
    }

    #[test]
    fn transformers_are_eight_account_endpoints_and_preview_is_not_an_id() {
        // transformers.mdx's API table: eight operations, all under accounts/:account_id.
        let rows: Vec<Endpoint> = Endpoint::ALL
            .iter()
            .copied()
            .filter(|e| e.template().contains("/transformers"))
            .collect();
        assert_eq!(rows.len(), 8);
        for e in &rows {
            assert_eq!(e.scopes(), [DatasetScope::Account], "{e}");
        }
        let Routed::Found(route) = Endpoint::route("POST", "/accounts/a1/logpush/transformers/preview") else {
            panic!("preview does not route")
        };
        assert_eq!(route.endpoint, Endpoint::TransformerPreview);
        assert!(Endpoint::TransformerList
            .path(&Scope::zone("z1").unwrap(), &[])
            .is_err());
        assert_eq!(
            Endpoint::TransformerContent
                .path(&Scope::account("a1").unwrap(), &["3"])
                .unwrap(),
            "/accounts/a1/logpush/transformers/3/content"
        );
    }

    #[test]
    fn paths_are_filled_from_the_template() {
        let zone = Scope::zone("z1").unwrap();
        let account = Scope::account("a1").unwrap();
        assert_eq!(Endpoint::EscStatus.path(&zone, &[]).unwrap(), "/zones/z1/disable_esc");
        assert_eq!(
            Endpoint::JobGet.path(&account, &["7"]).unwrap(),
            "/accounts/a1/logpush/jobs/7"
        );
        assert_eq!(
            Endpoint::DatasetFields.path(&zone, &["http_requests"]).unwrap(),
            "/zones/z1/logpush/datasets/http_requests/fields"
        );
        let req = Endpoint::JobCreate.request(&zone, &[]).unwrap();
        assert_eq!((req.method, req.retry), (Method::Post, RetryClass::WhenUnprocessed));
        assert!(Endpoint::JobDelete.request(&zone, &["7"]).unwrap().retry.is_safe());
        // A DELETE's repeat that meets 404 after a lost answer is the deletion done; no other
        // endpoint reads an error so.
        assert_eq!(
            Endpoint::JobDelete.request(&zone, &["7"]).unwrap().done_on_repeat,
            Some(404)
        );
        for e in Endpoint::ALL
            .iter()
            .filter(|e| !matches!(e, Endpoint::JobDelete | Endpoint::TransformerDelete))
        {
            assert_eq!(e.done_on_repeat(), None, "{e}");
        }
        for args in [&[][..], &["7", "8"], &[""], &["a/b"], &["a?b"]] {
            let err = Endpoint::JobGet.path(&zone, args).unwrap_err();
            assert!(
                matches!(err, Error::InvalidInput { what: "path", .. }),
                "{args:?}: {err}"
            );
        }
    }

    #[test]
    fn routes_are_read_by_the_table() {
        let found = |method: &str, path: &str| match Endpoint::route(method, path) {
            Routed::Found(r) => Some((r.endpoint, r.kind, r.scope_id.to_owned(), r.args.join(","))),
            _ => None,
        };
        assert_eq!(
            found("GET", "/zones/abc/disable_esc"),
            Some((Endpoint::EscStatus, DatasetScope::Zone, "abc".into(), String::new()))
        );
        assert_eq!(
            found("DELETE", "/accounts/a1/logpush/jobs/9"),
            Some((Endpoint::JobDelete, DatasetScope::Account, "a1".into(), "9".into()))
        );
        assert_eq!(
            found("POST", "/accounts/a/logpush/validate/destination/exists").map(|f| f.0),
            Some(Endpoint::DestinationExists)
        );
        for missing in [
            "/zones//disable_esc",
            "/zones/a/b/disable_esc",
            "/zones/z/logpush/datasets//fields",
            "/zones/z/logpush/jobs/",
            "/users/z/disable_esc",
            "zones/z/disable_esc",
            "/",
            "",
        ] {
            assert_eq!(Endpoint::route("GET", missing), Routed::NotFound, "{missing}");
        }
        // The methods of the path, in the table's order.
        assert_eq!(
            Endpoint::route("PUT", "/zones/z/disable_esc"),
            Routed::MethodNotAllowed(vec![Method::Get, Method::Post, Method::Delete])
        );
        assert_eq!(
            Endpoint::route("PATCH", "/zones/z/logpush/jobs/1"),
            Routed::MethodNotAllowed(vec![Method::Get, Method::Put, Method::Delete])
        );
        assert_eq!(
            Endpoint::route("get", "/zones/z/logpush/jobs"),
            Routed::MethodNotAllowed(vec![Method::Get, Method::Post])
        );
        // Instant Logs: zones only, and not the 2024 schema's out-of-date path.
        assert_eq!(
            found("POST", "/zones/z/logpush/edge/jobs").map(|f| f.0),
            Some(Endpoint::InstantLogsCreate)
        );
        for missing in ["/accounts/a/logpush/edge/jobs", "/zones/z/logpush/edge"] {
            assert_eq!(Endpoint::route("GET", missing), Routed::NotFound, "{missing}");
        }
    }
}
