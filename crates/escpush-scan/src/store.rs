//! Object storage inputs (the `store` feature): `s3://bucket/prefix/`, `r2://bucket/prefix/`,
//! `gs://bucket/prefix/` and `az://container/prefix/`, through the `object_store` crate on a
//! small tokio runtime of its own (two threads, started on first use).
//!
//! - A URL that ends with `/` (or names only the bucket) is a prefix: its objects are listed
//!   (every page, so thousands of objects are fine), kept when their names look like logs (as
//!   in a folder, see [`crate::Selection`]) and sorted by key. A URL with glob characters in
//!   its path lists the part before them and keeps the keys the pattern matches. Any other URL
//!   is one object, or, when no object has that key, a prefix.
//! - Objects stream: each is fetched as a stream of pieces into a small bounded queue (at
//!   most [`QUEUE`] pieces of at most [`PIECE`] bytes), read, decompressed and cut into
//!   chunks like any other stream; the next [`AHEAD`] objects are already being fetched while
//!   one is read, so memory stays bounded (about 4 MiB of queues) whatever the objects' sizes
//!   or number.
//! - An object that ends before the size its listing gave (deleted or replaced while it was
//!   read), or that cannot be fetched (deleted after it was listed), stops the scan with an
//!   error naming it.
//!
//! The listing ([`crate::Selection::expand`]) waits on that runtime: call it from ordinary
//! threads, not from inside another async runtime's tasks.
//!
//! Credentials come from each store's usual environment variables, as `object_store` reads
//! them (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION`,
//! `AWS_ENDPOINT_URL`; without keys, an AWS profile as the AWS SDK reads it: `AWS_PROFILE`,
//! `~/.aws/credentials`, `~/.aws/config`, `credential_process`, roles, SSO (`aws_profile.rs`); `GOOGLE_APPLICATION_CREDENTIALS` or `GOOGLE_SERVICE_ACCOUNT(_KEY)`;
//! `AZURE_STORAGE_ACCOUNT_NAME` with `AZURE_STORAGE_ACCOUNT_KEY`, `AZURE_STORAGE_SAS_KEY`, a
//! service principal, or else the Azure CLI's login when `az` is installed). `r2://` is S3 at the account's endpoint: `R2_ACCOUNT_ID` (giving
//! `https://<id>.r2.cloudflarestorage.com`) or `R2_ENDPOINT`, else `AWS_ENDPOINT_URL`, with
//! `R2_ACCESS_KEY_ID`/`R2_SECRET_ACCESS_KEY` when set, else the `AWS_` ones, region `auto`.
//! When none of a store's credentials are set the scan stops at once with an error saying
//! which variables to set, rather than trying instance metadata servers over the network.
//! Secrets never appear in errors: messages from the stores are cleaned of every credential
//! value and of URL query strings (which may hold signatures).

use std::fmt;
use std::io::{self, Read};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use escpush_filter::Secrets;
use futures_util::StreamExt;
use object_store::path::Path as ObjectPath;
use object_store::{BackoffConfig, ClientOptions, GetOptions, ObjectStore, ObjectStoreExt, RetryConfig};
use tokio::runtime::Runtime;
use tokio::sync::mpsc;

use crate::aws_profile::{self, ProfileCredentials};
use crate::inputs::{has_glob, is_log_file_name, parse_time};
use crate::ScanError;

/// Pieces of an object queued ahead of the reader, per object.
pub const QUEUE: usize = 8;
/// The largest piece queued (bigger network frames are split).
pub const PIECE: usize = 128 << 10;
/// Objects fetched ahead of the one being read.
pub const AHEAD: usize = 3;

/// One object to read, from [`crate::Selection::expand`] on an `s3://`, `r2://`, `gs://` or
/// `az://` URL: a prefix is listed (every page) and its log objects sorted by key, a glob
/// matched against the keys, any other URL is one object (or, when there is none with that
/// key, a prefix). Objects are streamed through small bounded queues, the next three fetched
/// while one is read; credentials come from each store's usual environment variables (see
/// the README) and never appear in errors.
pub struct Object {
    store: Arc<dyn ObjectStore>,
    scheme: &'static str,
    bucket: String,
    path: ObjectPath,
    size: u64,
    stream: Option<mpsc::Receiver<Result<Bytes, String>>>,
}

impl fmt::Debug for Object {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Object")
            .field("url", &self.url())
            .field("size", &self.size)
            .finish_non_exhaustive()
    }
}

impl Object {
    /// `scheme://bucket/key`.
    pub fn url(&self) -> String {
        format!("{}://{}/{}", self.scheme, self.bucket, self.path)
    }

    /// The last segment of the key.
    pub fn name(&self) -> &str {
        self.path.filename().unwrap_or("")
    }

    /// The size the listing gave.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Starts fetching the object (once): its pieces queue up until [`Object::reader`] takes
    /// them.
    pub(crate) fn start(&mut self) {
        if self.stream.is_some() {
            return;
        }
        let (tx, rx) = mpsc::channel(QUEUE);
        let store = Arc::clone(&self.store);
        let path = self.path.clone();
        runtime().spawn(async move {
            let result = match store.get_opts(&path, GetOptions::default()).await {
                Ok(result) => result,
                Err(e) => {
                    let _ = tx.send(Err(message(&e))).await;
                    return;
                }
            };
            let mut stream = result.into_stream();
            while let Some(piece) = stream.next().await {
                match piece {
                    Ok(mut bytes) => {
                        while !bytes.is_empty() {
                            let part = bytes.split_to(bytes.len().min(PIECE));
                            if tx.send(Ok(part)).await.is_err() {
                                return; // the reader is gone
                            }
                        }
                    }
                    Err(e) => {
                        let _ = tx.send(Err(message(&e))).await;
                        return;
                    }
                }
            }
        });
        self.stream = Some(rx);
    }

    /// A reader of the object's bytes (starting the fetch if it has not started).
    pub(crate) fn reader(mut self) -> ObjectReader {
        self.start();
        ObjectReader {
            rx: self.stream.take().expect("started"),
            piece: Bytes::new(),
            got: 0,
            size: self.size,
        }
    }
}

/// Reads an object's queued pieces on the scan's reader thread.
pub(crate) struct ObjectReader {
    rx: mpsc::Receiver<Result<Bytes, String>>,
    piece: Bytes,
    got: u64,
    size: u64,
}

impl Read for ObjectReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.piece.is_empty() {
            match self.rx.blocking_recv() {
                Some(Ok(piece)) => self.piece = piece,
                Some(Err(message)) => return Err(io::Error::other(message)),
                None if self.got < self.size => {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        format!(
                            "the object ended after {} of the {} bytes its listing gave (deleted or replaced \
                             while it was read?)",
                            self.got, self.size
                        ),
                    ))
                }
                None => return Ok(0),
            }
        }
        let n = buf.len().min(self.piece.len());
        buf[..n].copy_from_slice(&self.piece.split_to(n));
        self.got += n as u64;
        Ok(n)
    }
}

/// The runtime the fetches run on.
fn runtime() -> &'static Runtime {
    static RUNTIME: OnceLock<Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("escpush-store")
            .enable_all()
            .build()
            .expect("a tokio runtime of two threads can be built")
    })
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// Every credential value in the environment, to be cleaned out of messages.
const SECRET_VARS: &[&str] = &[
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "R2_ACCESS_KEY_ID",
    "R2_SECRET_ACCESS_KEY",
    "GOOGLE_SERVICE_ACCOUNT_KEY",
    "AZURE_STORAGE_ACCOUNT_KEY",
    "AZURE_STORAGE_ACCESS_KEY",
    "AZURE_STORAGE_SAS_KEY",
    "AZURE_STORAGE_SAS_TOKEN",
    "AZURE_STORAGE_CLIENT_SECRET",
    "AZURE_CLIENT_SECRET",
    "AZURE_STORAGE_TOKEN",
];

/// What went wrong, in a line: a missing object said plainly; a store's XML error body cut down
/// to its code and message; no secrets.
fn message(e: &object_store::Error) -> String {
    if let object_store::Error::NotFound { .. } = e {
        return "the object is not there (deleted after it was listed?)".to_owned();
    }
    let text = e.to_string();
    let tag = |name: &str| {
        let open = format!("<{name}>");
        let start = text.find(&open)? + open.len();
        let end = start + text[start..].find("</")?;
        Some(text[start..end].to_owned())
    };
    let short = match text.find("<?xml").or_else(|| text.find("<Error>")) {
        Some(i) => {
            let head = text[..i].trim_end().trim_end_matches(':');
            match (tag("Code"), tag("Message")) {
                (Some(code), Some(msg)) => format!("{head}: {code}: {msg}"),
                (Some(code), None) => format!("{head}: {code}"),
                _ => head.to_owned(),
            }
        }
        None => text.clone(),
    };
    clean(&short)
}

/// Credentials read from elsewhere than the environment (an AWS profile's), to be cleaned out
/// of messages as those of [`SECRET_VARS`] are.
static READ_SECRETS: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Adds a credential read from a profile to those [`clean`] removes.
pub(crate) fn remember_secret(value: &str) {
    let mut known = READ_SECRETS.lock().unwrap_or_else(PoisonError::into_inner);
    if !value.is_empty() && !known.iter().any(|k| k == value) {
        known.push(value.to_owned());
    }
}

/// The variables that may name an endpoint URL, whose `user:password@` or query may hold a
/// credential (`http://user:PW@minio.local:9000`).
const ENDPOINT_VARS: &[&str] = &[
    "AWS_ENDPOINT_URL_S3",
    "AWS_ENDPOINT_URL",
    "AWS_ENDPOINT",
    "R2_ENDPOINT",
    "AZURE_STORAGE_ENDPOINT",
    "AZURE_ENDPOINT",
];

/// `message` without credential values (core's rule and mask: [`Secrets`], the credentials of
/// an endpoint URL from the environment included) and with each URL it quotes shown as core
/// shows a URL ([`escpush_filter::mask_urls`]: no `user:password@`, no query value).
pub(crate) fn clean(message: &str) -> String {
    let mut secrets = Secrets::new();
    for value in SECRET_VARS.iter().filter_map(|var| env(var)) {
        secrets.add(&value);
    }
    for url in ENDPOINT_VARS.iter().filter_map(|var| env(var)) {
        for credential in escpush_filter::url_credentials(&url) {
            secrets.add(&credential);
        }
    }
    for value in READ_SECRETS.lock().unwrap_or_else(PoisonError::into_inner).iter() {
        secrets.add(value);
    }
    escpush_filter::mask_urls(&secrets.scrub(message))
}

fn select_error(url: &str, message: impl Into<String>) -> ScanError {
    ScanError::Select {
        what: url.to_owned(),
        message: message.into(),
    }
}

fn options(endpoint: Option<&str>) -> (ClientOptions, RetryConfig, bool) {
    let allow_http = endpoint.is_some_and(|e| e.starts_with("http://"))
        || env("AWS_ALLOW_HTTP").is_some_and(|v| v.eq_ignore_ascii_case("true"));
    let options = ClientOptions::new()
        .with_connect_timeout(Duration::from_secs(10))
        // Objects are read as fast as the scan goes: no limit on a whole request.
        .with_timeout_disabled()
        .with_allow_http(allow_http);
    let retry = RetryConfig {
        backoff: BackoffConfig::default(),
        max_retries: 3,
        retry_timeout: Duration::from_secs(30),
    };
    (options, retry, allow_http)
}

const AWS_HINT: &str = "set AWS_PROFILE to a profile of ~/.aws/credentials or ~/.aws/config (or \
                        AWS_SHARED_CREDENTIALS_FILE, AWS_CONFIG_FILE), or AWS_ACCESS_KEY_ID and \
                        AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary credentials), or \
                        AWS_WEB_IDENTITY_TOKEN_FILE with AWS_ROLE_ARN, or \
                        AWS_CONTAINER_CREDENTIALS_RELATIVE_URI/FULL_URI";

fn has_aws_credentials() -> bool {
    env("AWS_ACCESS_KEY_ID").is_some() && env("AWS_SECRET_ACCESS_KEY").is_some()
        || env("AWS_WEB_IDENTITY_TOKEN_FILE").is_some()
        || env("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI").is_some()
        || env("AWS_CONTAINER_CREDENTIALS_FULL_URI").is_some()
}

type Store = Arc<dyn ObjectStore>;

/// The store a URL names, its scheme as shown, the bucket, and the key (or prefix) in it.
fn open(url: &str) -> Result<(Store, &'static str, String, String), ScanError> {
    init_tls();
    let (scheme, rest) = url.split_once("://").expect("a URL");
    let (bucket, key) = rest.split_once('/').unwrap_or((rest, ""));
    if bucket.is_empty() {
        return Err(select_error(url, "the URL names no bucket (scheme://bucket/prefix/)"));
    }
    let (store, scheme) = match scheme.to_ascii_lowercase().as_str() {
        "s3" | "s3a" => (s3(url, bucket)?, "s3"),
        "r2" => (r2(url, bucket)?, "r2"),
        "gs" | "gcs" => (gcs(url, bucket)?, "gs"),
        "az" | "azure" | "abfs" | "abfss" => (azure(url, bucket)?, "az"),
        other => {
            return Err(select_error(
                url,
                format!("`{other}://` is not an object store escpush reads (s3://, r2://, gs://, az://)"),
            ))
        }
    };
    Ok((store, scheme, bucket.to_owned(), key.to_owned()))
}

/// The credentials of the AWS profile (see `aws_profile`), loaded now so that a profile
/// without any stops the scan at once, naming it; and the profile's region.
fn profile(url: &str) -> Result<(Arc<ProfileCredentials>, Option<String>), ScanError> {
    let provider = Arc::new(ProfileCredentials::new());
    let region = runtime().block_on(async {
        provider.load().await?;
        Ok::<_, String>(aws_profile::region().await)
    });
    region
        .map(|region| (provider, region))
        .map_err(|e| select_error(url, clean(&e)))
}

fn s3(url: &str, bucket: &str) -> Result<Store, ScanError> {
    let from_profile = if has_aws_credentials() {
        None
    } else if aws_profile::configured() {
        Some(profile(url)?)
    } else {
        return Err(select_error(url, format!("no AWS credentials: {AWS_HINT}")));
    };
    let endpoint = env("AWS_ENDPOINT_URL_S3")
        .or_else(|| env("AWS_ENDPOINT_URL"))
        .or_else(|| env("AWS_ENDPOINT"));
    let (client, retry, allow_http) = options(endpoint.as_deref());
    let mut builder = object_store::aws::AmazonS3Builder::from_env()
        .with_bucket_name(bucket)
        .with_client_options(client)
        .with_retry(retry)
        .with_allow_http(allow_http);
    let mut region = None;
    if let Some((credentials, profile_region)) = from_profile {
        builder = builder.with_credentials(credentials);
        region = profile_region;
    }
    if env("AWS_REGION").is_none() && env("AWS_DEFAULT_REGION").is_none() {
        if let Some(region) = region.or_else(|| endpoint.is_some().then(|| "us-east-1".to_owned())) {
            builder = builder.with_region(region);
        }
    }
    Ok(Arc::new(builder.build().map_err(|e| select_error(url, message(&e)))?))
}

fn r2(url: &str, bucket: &str) -> Result<Store, ScanError> {
    let endpoint = env("R2_ENDPOINT")
        .or_else(|| env("R2_ACCOUNT_ID").map(|id| format!("https://{id}.r2.cloudflarestorage.com")))
        .or_else(|| env("AWS_ENDPOINT_URL"));
    let Some(endpoint) = endpoint else {
        return Err(select_error(
            url,
            "r2:// needs the account's endpoint: set R2_ACCOUNT_ID (for https://<account \
             id>.r2.cloudflarestorage.com), or R2_ENDPOINT or AWS_ENDPOINT_URL to the full URL",
        ));
    };
    let key_id = env("R2_ACCESS_KEY_ID").or_else(|| env("AWS_ACCESS_KEY_ID"));
    let secret = env("R2_SECRET_ACCESS_KEY").or_else(|| env("AWS_SECRET_ACCESS_KEY"));
    let (client, retry, allow_http) = options(Some(&endpoint));
    let mut builder = object_store::aws::AmazonS3Builder::from_env()
        .with_bucket_name(bucket)
        .with_endpoint(endpoint)
        .with_region(env("R2_REGION").unwrap_or_else(|| "auto".to_owned()))
        .with_client_options(client)
        .with_retry(retry)
        .with_allow_http(allow_http);
    builder = match (key_id, secret) {
        (Some(key_id), Some(secret)) => builder.with_access_key_id(key_id).with_secret_access_key(secret),
        // An R2 token's keys kept in a profile (`aws configure --profile r2`).
        _ if aws_profile::configured() => builder.with_credentials(profile(url)?.0),
        _ => {
            return Err(select_error(
                url,
                "no R2 credentials: set R2_ACCESS_KEY_ID and R2_SECRET_ACCESS_KEY (an R2 API token's S3 \
                 credentials), or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE to a profile \
                 that holds them",
            ))
        }
    };
    Ok(Arc::new(builder.build().map_err(|e| select_error(url, message(&e)))?))
}

fn gcs(url: &str, bucket: &str) -> Result<Store, ScanError> {
    let adc = std::env::var_os("HOME")
        .map(|home| std::path::Path::new(&home).join(".config/gcloud/application_default_credentials.json"))
        .filter(|p| p.is_file());
    let explicit = [
        "GOOGLE_SERVICE_ACCOUNT",
        "GOOGLE_SERVICE_ACCOUNT_PATH",
        "SERVICE_ACCOUNT",
        "GOOGLE_SERVICE_ACCOUNT_KEY",
        "GOOGLE_APPLICATION_CREDENTIALS",
    ]
    .iter()
    .any(|v| env(v).is_some());
    if !explicit && adc.is_none() {
        return Err(select_error(
            url,
            "no Google Cloud credentials: set GOOGLE_APPLICATION_CREDENTIALS (or GOOGLE_SERVICE_ACCOUNT) to \
             a service account key file, or GOOGLE_SERVICE_ACCOUNT_KEY to its JSON, or run `gcloud auth \
             application-default login`",
        ));
    }
    let (client, retry, _) = options(None);
    let mut builder = object_store::gcp::GoogleCloudStorageBuilder::from_env()
        .with_bucket_name(bucket)
        .with_client_options(client)
        .with_retry(retry);
    if let Some(path) = env("GOOGLE_APPLICATION_CREDENTIALS") {
        builder = builder.with_application_credentials(path);
    }
    Ok(Arc::new(builder.build().map_err(|e| select_error(url, message(&e)))?))
}

fn azure(url: &str, bucket: &str) -> Result<Store, ScanError> {
    if env("AZURE_STORAGE_ACCOUNT_NAME").is_none() {
        return Err(select_error(
            url,
            "az://container/prefix/ needs the storage account: set AZURE_STORAGE_ACCOUNT_NAME",
        ));
    }
    let credentials = [
        "AZURE_STORAGE_ACCOUNT_KEY",
        "AZURE_STORAGE_ACCESS_KEY",
        "AZURE_STORAGE_SAS_KEY",
        "AZURE_STORAGE_TOKEN",
        "AZURE_STORAGE_CLIENT_SECRET",
        "AZURE_CLIENT_SECRET",
        "AZURE_FEDERATED_TOKEN_FILE",
    ]
    .iter()
    .any(|v| env(v).is_some())
        || env("AZURE_STORAGE_USE_EMULATOR").is_some_and(|v| v.eq_ignore_ascii_case("true"));
    // Else the Azure CLI's login (`az login`), as object_store runs it (`az account
    // get-access-token`), when `az` is installed or AZURE_USE_AZURE_CLI says so.
    let cli =
        !credentials && (env("AZURE_USE_AZURE_CLI").is_some_and(|v| v.eq_ignore_ascii_case("true")) || on_path("az"));
    if !credentials && !cli {
        return Err(select_error(
            url,
            "no Azure credentials: set AZURE_STORAGE_ACCOUNT_KEY, or AZURE_STORAGE_SAS_KEY, or a service \
             principal (AZURE_STORAGE_CLIENT_ID, AZURE_STORAGE_CLIENT_SECRET, AZURE_STORAGE_TENANT_ID), or log \
             in with the Azure CLI (`az login`)",
        ));
    }
    let endpoint = env("AZURE_STORAGE_ENDPOINT").or_else(|| env("AZURE_ENDPOINT"));
    let (client, retry, allow_http) = options(endpoint.as_deref());
    let builder = object_store::azure::MicrosoftAzureBuilder::from_env()
        .with_container_name(bucket)
        .with_client_options(client)
        .with_allow_http(allow_http)
        .with_use_azure_cli(cli)
        .with_retry(retry);
    Ok(Arc::new(builder.build().map_err(|e| select_error(url, message(&e)))?))
}

/// Whether an executable `name` is in a folder of `PATH`.
fn on_path(name: &str) -> bool {
    let names = if cfg!(windows) {
        vec![format!("{name}.cmd"), format!("{name}.exe")]
    } else {
        vec![name.to_owned()]
    };
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| names.iter().any(|n| dir.join(n).is_file())))
}

/// The objects a URL stands for (see the module docs), sorted by key. With a time range
/// (`since`, `until`), a prefix's date folders (`YYYYMMDD/`, as log-push writes them) wholly
/// outside it are not listed at all, and an empty result is not an error.
pub(crate) fn list(url: &str, since: Option<i64>, until: Option<i64>) -> Result<Vec<Object>, ScanError> {
    let (store, scheme, bucket, key) = open(url)?;
    let object = |meta: object_store::ObjectMeta| Object {
        store: Arc::clone(&store),
        scheme,
        bucket: bucket.clone(),
        size: meta.size,
        path: meta.location,
        stream: None,
    };
    let listing_error = |e: &object_store::Error| select_error(url, format!("cannot list: {}", message(e)));
    let rt = runtime();
    // A glob: list what comes before it and match the rest.
    if has_glob(&key) {
        let parts: Vec<&str> = key.split('/').collect();
        let literal = parts.iter().take_while(|p| !has_glob(p)).count();
        let prefix = parts[..literal].join("/");
        let matcher = globset::GlobBuilder::new(&key)
            .literal_separator(true)
            .build()
            .map_err(|e| select_error(url, format!("not a valid glob: {}", e.kind())))?
            .compile_matcher();
        let metas = rt.block_on(collect(&store, &prefix)).map_err(|e| listing_error(&e))?;
        let mut objects: Vec<Object> = metas
            .into_iter()
            .filter(|m| matcher.is_match(m.location.as_ref()))
            .map(object)
            .collect();
        if objects.is_empty() {
            return Err(select_error(url, "the pattern matches no objects"));
        }
        sort(&mut objects);
        return Ok(objects);
    }
    if !key.is_empty() && !key.ends_with('/') {
        // One object, if there is one with this key.
        let path = ObjectPath::from(key.as_str());
        match rt.block_on(store.head(&path)) {
            Ok(meta) => return Ok(vec![object(meta)]),
            Err(object_store::Error::NotFound { .. }) => {}
            Err(e) => return Err(listing_error(&e)),
        }
    }
    let ranged = since.is_some() || until.is_some();
    let prefix = key.trim_end_matches('/');
    let metas = if ranged {
        rt.block_on(collect_in_range(&store, prefix, since, until))
    } else {
        rt.block_on(collect(&store, prefix))
    }
    .map_err(|e| listing_error(&e))?;
    let mut objects: Vec<Object> = metas
        .into_iter()
        .filter(|m| {
            m.location.parts().all(|p| !p.as_ref().starts_with('.'))
                && is_log_file_name(m.location.filename().unwrap_or(""))
        })
        .map(object)
        .collect();
    if objects.is_empty() && !ranged {
        return Err(select_error(
            url,
            "there are no log objects here (.gz, .log, .ndjson, .jsonl or .json)",
        ));
    }
    sort(&mut objects);
    Ok(objects)
}

/// The objects under `prefix` but those in date folders (`YYYYMMDD`, one level down) that
/// cannot hold a batch of `[since, until)`: a folder is kept when the range overlaps its day
/// widened by a day on each side (a batch near midnight may sit in either day's folder).
async fn collect_in_range(
    store: &Arc<dyn ObjectStore>,
    prefix: &str,
    since: Option<i64>,
    until: Option<i64>,
) -> object_store::Result<Vec<object_store::ObjectMeta>> {
    let path = (!prefix.is_empty()).then(|| ObjectPath::from(prefix));
    let top = store.list_with_delimiter(path.as_ref()).await?;
    let mut metas = top.objects;
    for folder in top.common_prefixes {
        let name = folder.filename().unwrap_or("");
        let day = (name.len() == 8).then(|| parse_time(name).ok()).flatten();
        if let Some(day) = day {
            let (start, end) = (day - 86_400, day + 2 * 86_400);
            if since.is_some_and(|s| end <= s) || until.is_some_and(|u| start >= u) {
                continue;
            }
        }
        metas.extend(collect(store, folder.as_ref()).await?);
    }
    Ok(metas)
}

/// Sorted by key, segment by segment (as folders are).
fn sort(objects: &mut [Object]) {
    objects.sort_by(|a, b| a.path.parts().cmp(b.path.parts()));
}

async fn collect(store: &Arc<dyn ObjectStore>, prefix: &str) -> object_store::Result<Vec<object_store::ObjectMeta>> {
    let prefix = (!prefix.is_empty()).then(|| ObjectPath::from(prefix));
    let mut stream = store.list(prefix.as_ref());
    let mut metas = Vec::new();
    while let Some(meta) = stream.next().await {
        metas.push(meta?);
    }
    Ok(metas)
}

/// Installs rustls' ring provider for the process (once) when none is.
pub(crate) fn init_tls() {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}
