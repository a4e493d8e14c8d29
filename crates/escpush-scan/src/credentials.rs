//! The credentials of object storage that no message may show (`store.rs` cleans every
//! message of the stores with [`clean`]): the values of the environment's credential
//! variables, those in an endpoint URL from the environment, and those read from an AWS
//! profile (`aws_profile.rs` gives them to [`remember_secret`]).

use std::sync::{Mutex, PoisonError};

use escpush_filter::Secrets;

/// A variable of the environment, empty counted as unset.
pub(crate) fn env(name: &str) -> Option<String> {
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
