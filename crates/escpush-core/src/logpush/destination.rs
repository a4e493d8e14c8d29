//! `destination_conf`: `<scheme>://<path>?<params>`, and its redaction: parameters may hold
//! credentials, so the value is never printed as given.

use std::fmt;
use std::str::FromStr;

use serde_json::Value;

use crate::error::Error;
use escpush_filter::suggest;
use escpush_filter::MASK;
use escpush_filter::{Problem, ProblemCode};
/// Whether a job to a destination needs an `ownership_challenge` (on creation, and when an
/// update changes its `destination_conf`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Challenge {
    /// Always.
    Required,
    /// Unless every parameter of one of these sets is given (AWS S3 with an access key and
    /// its secret, or an S3-compatible `endpoint`).
    Unless(&'static [&'static [&'static str]]),
    /// Never: the destination authenticates otherwise (keys, tokens in its parameters).
    No,
}

/// How Logpush bills the bytes a job delivers to a destination (logs/logpush/pricing.mdx,
/// "Logpush pricing": "R2 and Pipelines are internal destinations. All other destinations
/// are external."): each class has its own rate and its own included amount. Pipelines has
/// no `destination_conf` form in the docs (pipelines.mdx creates the job from the
/// dashboard), so no row of [`DESTINATIONS`] is internal but R2; a caller that knows its job
/// goes to Pipelines gives the class itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Billing {
    /// R2 and Pipelines: Cloudflare's own stores.
    Internal,
    /// Every other destination.
    External,
}

impl Billing {
    /// Both classes, internal first (the order of the pricing page).
    pub const ALL: [Billing; 2] = [Billing::Internal, Billing::External];

    /// `"internal"` or `"external"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Billing::Internal => "internal",
            Billing::External => "external",
        }
    }

    /// The class of a `destination_conf`: its scheme's row (the form only is checked, as
    /// [`DestinationConf::parse_address`] does; the text is never echoed).
    pub fn of(destination_conf: &str) -> Result<Billing, Error> {
        DestinationConf::parse_address(destination_conf).map(|d| d.billing())
    }

    /// Reads `"internal"` or `"external"`.
    pub fn parse(text: &str) -> Result<Billing, Error> {
        Billing::ALL
            .into_iter()
            .find(|b| b.as_str() == text)
            .ok_or_else(|| Error::InvalidInput {
                what: "destination class",
                message: format!("`{}` is neither \"internal\" nor \"external\"", suggest::cut(text)),
            })
    }
}

/// A kind of destination the API documents: its scheme, what it is, whether a job to it
/// needs an ownership challenge, how its deliveries are billed, and where that is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Destination {
    /// `s3`, `bq`, ... (`<scheme>://...`).
    pub scheme: &'static str,
    pub name: &'static str,
    pub challenge: Challenge,
    /// Its class on the bill (pricing.mdx): R2 is internal, the others external.
    pub billing: Billing,
    /// The docs page of its `destination_conf` form (and of its challenge rule).
    pub source: &'static str,
}

/// Every destination scheme the API documents (enable-destinations/*.mdx), with the
/// ownership challenge rule of logpush-ownership-challenge.mdx ("Which destinations require
/// an ownership challenge?": AWS S3 "Yes (or use access key/secret key)", Google Cloud
/// Storage, Azure and Sumo Logic "Yes"; S3-compatible, HTTP endpoints, Datadog, Splunk and
/// New Relic "No"). The billing class is pricing.mdx's ("R2 and Pipelines are internal
/// destinations. All other destinations are external."). R2 (r2.mdx), BigQuery (bigquery.mdx), SentinelOne (sentinelone.mdx),
/// Amazon Kinesis (kinesis.mdx) and IBM Cloud Logs (ibm-cloud-logs.mdx) are created without
/// one in their docs. New Relic, Elastic and IBM QRadar are `https` endpoints.
pub const DESTINATIONS: &[Destination] = &[
    Destination {
        scheme: "s3",
        name: "Amazon S3",
        challenge: Challenge::Unless(&[&["access-key-id", "secret-access-key"], &["endpoint"]]),
        billing: Billing::External,
        source: "aws-s3.mdx, s3-compatible-endpoints.mdx; logpush-ownership-challenge.mdx",
    },
    Destination {
        scheme: "gs",
        name: "Google Cloud Storage",
        challenge: Challenge::Required,
        billing: Billing::External,
        source: "google-cloud-storage.mdx; logpush-ownership-challenge.mdx",
    },
    Destination {
        scheme: "azure",
        name: "Microsoft Azure Blob Storage",
        challenge: Challenge::Required,
        billing: Billing::External,
        source: "azure.mdx; logpush-ownership-challenge.mdx",
    },
    Destination {
        scheme: "sumo",
        name: "Sumo Logic",
        challenge: Challenge::Required,
        billing: Billing::External,
        source: "sumo-logic.mdx; logpush-ownership-challenge.mdx",
    },
    Destination {
        scheme: "r2",
        name: "Cloudflare R2",
        challenge: Challenge::No,
        billing: Billing::Internal,
        source: "r2.mdx",
    },
    Destination {
        scheme: "https",
        name: "an HTTP endpoint (also New Relic, Elastic, IBM QRadar)",
        challenge: Challenge::No,
        billing: Billing::External,
        source: "http.mdx, new-relic.mdx; logpush-ownership-challenge.mdx",
    },
    Destination {
        scheme: "datadog",
        name: "Datadog",
        challenge: Challenge::No,
        billing: Billing::External,
        source: "datadog.mdx; logpush-ownership-challenge.mdx",
    },
    Destination {
        scheme: "splunk",
        name: "Splunk",
        challenge: Challenge::No,
        billing: Billing::External,
        source: "splunk.mdx; logpush-ownership-challenge.mdx",
    },
    Destination {
        scheme: "bq",
        name: "Google BigQuery",
        challenge: Challenge::No,
        billing: Billing::External,
        source: "bigquery.mdx",
    },
    Destination {
        scheme: "kinesis",
        name: "Amazon Kinesis",
        challenge: Challenge::No,
        billing: Billing::External,
        source: "kinesis.mdx",
    },
    Destination {
        scheme: "ibmcl",
        name: "IBM Cloud Logs",
        challenge: Challenge::No,
        billing: Billing::External,
        source: "ibm-cloud-logs.mdx",
    },
    Destination {
        scheme: "sentinelone",
        name: "SentinelOne",
        challenge: Challenge::No,
        billing: Billing::External,
        source: "sentinelone.mdx",
    },
];

/// The schemes of [`DESTINATIONS`], in its order.
pub fn known_schemes() -> impl Iterator<Item = &'static str> {
    DESTINATIONS.iter().map(|d| d.scheme)
}

/// What escpush knows of a query parameter of a `destination_conf`, one row a parameter
/// (one table for the display and the export): a parameter not listed may be a credential
/// (`secret-access-key`, `sig`, `header_DD-API-KEY`, a Splunk token, ...): masked when shown,
/// a variable to set in an export.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Param {
    /// Shown as it is, and exported as it is.
    Shown,
    /// Masked when shown (the display stays on the safe side), but described by the docs as
    /// no credential, so an export writes it as it is instead of as a variable to set: an
    /// R2 `account-id` (r2.mdx), an S3-compatible `endpoint` (s3-compatible-endpoints.mdx),
    /// Datadog's `ddtags` (datadog.mdx), Splunk's and SentinelOne's `sourcetype` (splunk.mdx,
    /// sentinelone.mdx).
    NotCredential,
}

const PARAMS: &[(&str, Param)] = &[
    ("region", Param::Shown),
    ("sse", Param::Shown),
    ("channel", Param::Shown),
    ("insecure-skip-verify", Param::Shown),
    ("service", Param::Shown),
    ("ddsource", Param::Shown),
    ("host", Param::Shown),
    ("account-id", Param::NotCredential),
    ("endpoint", Param::NotCredential),
    ("ddtags", Param::NotCredential),
    ("sourcetype", Param::NotCredential),
];

/// What [`PARAMS`] says of `key`; `None`: it may be a credential.
fn param(key: &str) -> Option<Param> {
    PARAMS.iter().find(|(k, _)| *k == key).map(|(_, p)| *p)
}

/// Whether a parameter's value is shown (the others are masked).
fn shown_param(key: &str) -> bool {
    param(key) == Some(Param::Shown)
}

/// Whether a parameter's value may be a credential (what an export turns into a variable):
/// one [`PARAMS`] does not list, with a value other than `true` or `false` (`updated=true`
/// holds no credential either).
fn may_be_credential(key: &str, value: &str) -> bool {
    param(key).is_none() && !matches!(value, "true" | "false")
}

/// The parameters that pick another store for the same bucket and path (an S3-compatible
/// service's `endpoint`, an R2 `account-id`): they name a place, where the other parameters
/// (the region, credentials, headers, options) say how to reach or write it.
const PLACE_PARAMS: &[&str] = &["endpoint", "account-id"];

/// Whether two `destination_conf` values are the same value, as a job's field: the same text
/// once read as [`DestinationConf`] reads it (trimmed). Any other difference, a credential
/// included, is a change to send (a rotated key, a renewed SAS token). The one judgement of
/// ensure, apply and updates.
pub(super) fn same_conf(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a.and_then(Value::as_str), b.and_then(Value::as_str)) {
        (Some(a), Some(b)) => a.trim() == b.trim(),
        _ => a.unwrap_or(&Value::Null) == b.unwrap_or(&Value::Null),
    }
}

/// `destination_conf`: where a job delivers, `<scheme>://<path>?<params>`.
///
/// Its parameters may hold credentials, so `Debug` and `Display` mask every parameter
/// value except a few harmless ones (`region`, ...); [`DestinationConf::expose`] gives the
/// full text, to send.
#[derive(Clone, PartialEq, Eq)]
pub struct DestinationConf {
    text: String,
    kind: &'static Destination,
    scheme: String,
    path: String,
    /// Each parameter's key and value; `None` for a part without `=` (`?TOKEN`), whose key
    /// may be a credential itself.
    params: Vec<(String, Option<String>)>,
}

impl DestinationConf {
    /// Parses and checks: a known scheme, a non-empty path, and for `s3` a `region`.
    pub fn parse(text: &str) -> Result<Self, Error> {
        let conf = DestinationConf::parse_address(text)?;
        if conf.scheme == "s3" && conf.param("region").is_none_or(str::is_empty) {
            return Err(destination_problem(
                "an s3 destination names its region: append ?region=<region>, like \"s3://bucket/logs?region=us-east-1\""
                    .to_owned(),
            ));
        }
        Ok(conf)
    }

    /// Parses the form only: a known scheme and a non-empty path, without the parameters a
    /// job needs (an `s3` region). What the destination-exists check takes: the docs ask it
    /// about `s3://foo` (api-configuration.mdx, "To check if a destination is already in use").
    pub fn parse_address(text: &str) -> Result<Self, Error> {
        let problem = destination_problem;
        let text = text.trim();
        if text.is_empty() {
            return Err(problem(
                "a job needs a destination, like \"s3://bucket/logs?region=us-east-1\"".to_owned(),
            ));
        }
        // A URL holds no whitespace: a raw one would not survive printing (the text is
        // trimmed) and is not what the API takes. Its place only: the text may be a secret.
        if let Some((pos, c)) = text.char_indices().find(|(_, c)| c.is_whitespace() || c.is_control()) {
            return Err(problem(format!(
                "the destination holds whitespace or a control character (U+{:04X}) at byte {pos}: \
                 a URL has none; percent-encode it (a space is %20)",
                u32::from(c)
            )));
        }
        let Some((scheme, rest)) = text.split_once("://") else {
            return Err(problem(
                "the destination is not of the form <scheme>://<path>?<params>, like \"s3://bucket/logs?region=us-east-1\""
                    .to_owned(),
            ));
        };
        let Some(kind) = DESTINATIONS.iter().find(|d| d.scheme == scheme) else {
            let hint = suggest::did_you_mean(suggest::closest(scheme, known_schemes().map(|s| (s, s))));
            return Err(problem(format!(
                "`{}` is not a destination scheme; use one of {}{hint}",
                suggest::cut(scheme),
                known_schemes().collect::<Vec<_>>().join(", ")
            )));
        };
        let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
        if path.is_empty() || path == "/" {
            return Err(problem(format!("the {scheme} destination names no bucket or path")));
        }
        let mut params = Vec::new();
        for part in query.split('&').filter(|p| !p.is_empty()) {
            params.push(match part.split_once('=') {
                Some((k, v)) => (k.to_owned(), Some(v.to_owned())),
                None => (part.to_owned(), None),
            });
        }
        Ok(DestinationConf {
            text: text.to_owned(),
            kind,
            scheme: scheme.to_owned(),
            path: path.to_owned(),
            params,
        })
    }

    /// Whether `other` is the same place, the one a job pushes to: the same scheme, the
    /// same bucket (or host) and path, a `user:password@` and a trailing `/` aside, and the
    /// same parameters that pick the store (an S3-compatible `endpoint`, an R2 `account-id`);
    /// the region, credentials, headers and options do not make another place.
    ///
    /// What the destination-exists check compares ("Checks if there is an existing job with a
    /// destination", schema and SDK 5.9): the docs ask it about `s3://foo` (api-configuration.mdx,
    /// "To check if a destination is already in use"), which no job's text can equal (a job
    /// to S3 names its region), so the check is of the place. Another path in the same bucket
    /// is another destination: jobs write side by side under their own paths. Not the
    /// judgement of a change (a rotated credential is one): that is the text's.
    ///
    /// ```
    /// use escpush_core::DestinationConf;
    ///
    /// let job = DestinationConf::parse("s3://bucket/logs?region=us-east-1&sse=AES256").unwrap();
    /// assert!(DestinationConf::parse_address("s3://bucket/logs/").unwrap().same_place(&job));
    /// assert!(!DestinationConf::parse_address("s3://bucket").unwrap().same_place(&job));
    /// ```
    pub fn same_place(&self, other: &DestinationConf) -> bool {
        self.scheme == other.scheme
            && self.place_path() == other.place_path()
            && PLACE_PARAMS.iter().all(|p| self.param(p) == other.param(p))
    }

    /// The bucket (or host) and path a job writes to: the path without a `user:password@`
    /// and without a trailing `/` (a Sumo Logic collector code kept: one source each).
    fn place_path(&self) -> String {
        let (_, host_and_path, code) = self.path_parts();
        let path = match code {
            Some(code) => format!("{host_and_path}/{code}"),
            None => host_and_path.to_owned(),
        };
        path.trim_end_matches('/').to_owned()
    }

    /// The kind of destination its scheme names (one of [`DESTINATIONS`]).
    pub fn destination(&self) -> &'static Destination {
        self.kind
    }

    /// How its deliveries are billed: its row's [`Billing`].
    pub fn billing(&self) -> Billing {
        self.kind.billing
    }

    /// Whether a job to it needs an `ownership_challenge` ([`Destination::challenge`]).
    pub fn needs_challenge(&self) -> bool {
        match self.destination().challenge {
            Challenge::Required => true,
            Challenge::Unless(sets) => !sets
                .iter()
                .any(|set| set.iter().all(|p| self.param(p).is_some_and(|v| !v.is_empty()))),
            Challenge::No => false,
        }
    }

    /// `"s3"`, `"r2"`, ...
    pub fn scheme(&self) -> &str {
        &self.scheme
    }

    /// The bucket and path (or host and path).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The bucket (or host) and path as they may be shown: without a `user:password@`, and
    /// for Sumo Logic without the collector's path after the host (a credential).
    pub fn shown_path(&self) -> &str {
        self.path_parts().1
    }

    /// A parameter's value. It may be a credential: do not print it.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_deref().unwrap_or(""))
    }

    /// Any `destination_conf` text made fit to print: [`DestinationConf::redacted`] when it
    /// parses, else `***` (text that is not a destination may still hold a credential).
    ///
    /// ```
    /// use escpush_core::DestinationConf;
    ///
    /// let text = "s3://logs/http?region=us-east-1&access-key-id=AKIA1&secret-access-key=s3cr3t";
    /// assert_eq!(DestinationConf::redact(text), "s3://logs/http?region=us-east-1&access-key-id=***&secret-access-key=***");
    /// assert_eq!(DestinationConf::redact("https://me:pw@logs.example.com/in"), "https://***@logs.example.com/in");
    /// assert_eq!(DestinationConf::redact("not a destination"), "***");
    /// ```
    pub fn redact(text: &str) -> String {
        DestinationConf::parse(text).map_or_else(|_| MASK.to_owned(), |d| d.redacted())
    }

    /// The whole text, credentials included: the value to send.
    pub fn expose(&self) -> &str {
        &self.text
    }

    /// The text with every parameter value but harmless ones masked, and the parts of the
    /// path that carry credentials: a `user:password@` and a Sumo Logic collector code
    /// (`sumo://<endpoint>/receiver/v1/http/<code>`).
    pub fn redacted(&self) -> String {
        let (userinfo, host_and_path, code) = self.path_parts();
        let mut out = format!("{}://", self.scheme);
        if userinfo.is_some() {
            out.push_str(MASK);
            out.push('@');
        }
        out.push_str(host_and_path);
        if code.is_some() {
            out.push('/');
            out.push_str(MASK);
        }
        for (i, (k, v)) in self.params.iter().enumerate() {
            out.push(if i == 0 { '?' } else { '&' });
            let shown = shown_param(k);
            match v {
                Some(v) => {
                    out.push_str(k);
                    out.push('=');
                    out.push_str(if shown { v } else { MASK });
                }
                // A part without `=` may be a token whole.
                None => out.push_str(if shown { k } else { MASK }),
            }
        }
        out
    }

    /// `text` (a server's answer about this destination) with the destination's whole text
    /// shown redacted and each of its [`DestinationConf::secret_values`] masked by the
    /// redaction rule ([`mask_secret`](escpush_filter::mask_secret)), in every form a message may
    /// quote it ([`secret_forms`](escpush_filter::secret_forms): percent-decoded, percent-encoded, a
    /// header value's token alone), the longest first.
    pub fn scrub(&self, text: &str) -> String {
        let mut out = text.replace(self.expose(), &self.redacted());
        let mut forms: Vec<String> = self
            .secret_values()
            .into_iter()
            .flat_map(escpush_filter::secret_forms)
            .collect();
        forms.sort_by_key(|f| std::cmp::Reverse(f.len()));
        for secret in &forms {
            if let std::borrow::Cow::Owned(masked) = escpush_filter::mask_secret(&out, secret) {
                out = masked;
            }
        }
        out
    }

    /// Every part [`DestinationConf::redacted`] masks, each a secret on its own (a server
    /// message may quote one alone): the `user:password` and its password, a Sumo Logic
    /// collector's path and its code (the last segment), and each parameter value that is
    /// not a harmless one.
    pub fn secret_values(&self) -> Vec<&str> {
        let (userinfo, _, code) = self.path_parts();
        let password = userinfo.and_then(|u| u.split_once(':')).map(|(_, password)| password);
        let code_alone = code.and_then(|c| c.rsplit_once('/')).map(|(_, last)| last);
        let params = self
            .params
            .iter()
            .filter(|(k, _)| !shown_param(k))
            .map(|(k, v)| v.as_deref().unwrap_or(k))
            .filter(|v| !v.is_empty());
        userinfo
            .into_iter()
            .chain(password.filter(|p| !p.is_empty()))
            .chain(code)
            .chain(code_alone.filter(|c| !c.is_empty()))
            .chain(params)
            .collect()
    }

    /// Where each part that may be a credential sits in [`DestinationConf::expose`], with a
    /// name for it: `userinfo` (a `user:password@`), `collector_path` (a Sumo Logic
    /// collector's path) and each parameter [`DestinationConf::redacted`] masks by its key,
    /// but those that hold none (`account-id`, `ddtags`, a `true` or `false`: see
    /// `PARAMS`). What an export turns into variables
    /// (escpush-terraform's `export_jobs`); empty parameter values hold nothing and are
    /// left out.
    pub fn secret_parts(&self) -> Vec<(std::ops::Range<usize>, String)> {
        let base = self.scheme.len() + "://".len();
        let path = self.path.as_str();
        let mut out = Vec::new();
        let host_end = path.find('/').unwrap_or(path.len());
        let mut rest = 0;
        if let Some(at) = path[..host_end].rfind('@') {
            if at > 0 {
                out.push((base..base + at, "userinfo".to_owned()));
            }
            rest = at + 1;
        }
        if self.scheme == "sumo" {
            if let Some(slash) = path[rest..].find('/') {
                let start = rest + slash + 1;
                if start < path.len() {
                    out.push((base + start..base + path.len(), "collector_path".to_owned()));
                }
            }
        }
        let Some(query) = self.text.get(base + path.len() + 1..) else {
            return out;
        };
        let mut at = base + path.len() + 1;
        for part in query.split('&') {
            match part.split_once('=') {
                Some((k, v)) if !v.is_empty() && may_be_credential(k, v) => {
                    let start = at + k.len() + 1;
                    out.push((start..start + v.len(), k.to_owned()));
                }
                // A part without `=` may be a token whole.
                None if !part.is_empty() && !shown_param(part) => {
                    out.push((at..at + part.len(), "query".to_owned()));
                }
                _ => {}
            }
            at += part.len() + 1;
        }
        out
    }

    /// The path as (`user:password` before an `@` of the host, what is shown, a Sumo Logic
    /// collector code after the endpoint).
    fn path_parts(&self) -> (Option<&str>, &str, Option<&str>) {
        let mut path = self.path.as_str();
        let host_end = path.find('/').unwrap_or(path.len());
        let userinfo = path[..host_end].rfind('@').map(|at| {
            let info = &path[..at];
            path = &path[at + 1..];
            info
        });
        match (self.scheme.as_str(), path.find('/')) {
            ("sumo", Some(slash)) => (userinfo, &path[..slash], Some(&path[slash + 1..])),
            _ => (userinfo, path, None),
        }
    }
}

/// A refused `destination_conf`.
fn destination_problem(message: String) -> Error {
    Error::Invalid {
        problems: vec![Problem::new(
            "destination_conf",
            ProblemCode::InvalidDestination,
            message,
        )],
    }
}

impl fmt::Display for DestinationConf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.redacted())
    }
}

impl fmt::Debug for DestinationConf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("DestinationConf").field(&self.redacted()).finish()
    }
}

impl FromStr for DestinationConf {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        DestinationConf::parse(s)
    }
}
