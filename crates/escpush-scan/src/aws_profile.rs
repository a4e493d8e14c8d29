//! AWS profiles for `s3://` and `r2://` when no keys are in the environment: `AWS_PROFILE`
//! (else `default`) in `~/.aws/credentials` and `~/.aws/config` (or `AWS_SHARED_CREDENTIALS_FILE`
//! and `AWS_CONFIG_FILE`), read by the AWS SDK's own provider (`aws-config`), as boto3, the
//! AWS CLI, DuckDB and polars read them: static keys, `credential_process`, a role assumed
//! from a source profile or with a `web_identity_token_file`, and SSO. Its credentials are
//! kept until five minutes before they expire, so that a `credential_process` runs once per
//! scan, not once per object.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use aws_config::meta::region::ProvideRegion;
use aws_config::profile::{ProfileFileCredentialsProvider, ProfileFileRegionProvider};
use aws_config::provider_config::ProviderConfig;
use aws_credential_types::provider::ProvideCredentials;
use object_store::aws::AwsCredential;
use object_store::CredentialProvider;

use crate::credentials::remember_secret;

/// Whether a profile may give credentials: `AWS_PROFILE` is set, or a credentials or config
/// file is where the SDK looks for it.
pub(crate) fn configured() -> bool {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if var("AWS_PROFILE").is_some() {
        return true;
    }
    let home = var("HOME").or_else(|| var("USERPROFILE")).map(PathBuf::from);
    let file = |env: &str, default: &str| {
        var(env)
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(".aws").join(default)))
            .is_some_and(|p| p.is_file())
    };
    file("AWS_SHARED_CREDENTIALS_FILE", "credentials") || file("AWS_CONFIG_FILE", "config")
}

/// The SDK's configuration: environment and files as the SDK reads them; its HTTP client
/// (for STS and SSO) on rustls with ring.
fn provider_config() -> ProviderConfig {
    let http = aws_smithy_http_client::Builder::new()
        .tls_provider(aws_smithy_http_client::tls::Provider::Rustls(
            aws_smithy_http_client::tls::rustls_provider::CryptoMode::Ring,
        ))
        .build_https();
    ProviderConfig::default().with_http_client(http)
}

/// The profile's `region`, if it names one.
pub(crate) async fn region() -> Option<String> {
    let provider = ProfileFileRegionProvider::builder()
        .configure(&provider_config())
        .build();
    provider.region().await.map(|r| r.to_string())
}

/// The profile's credentials for object_store, kept while they are valid.
#[derive(Debug)]
pub(crate) struct ProfileCredentials {
    provider: ProfileFileCredentialsProvider,
    cached: Mutex<Option<(Arc<AwsCredential>, Option<SystemTime>)>>,
}

impl ProfileCredentials {
    pub(crate) fn new() -> ProfileCredentials {
        ProfileCredentials {
            provider: ProfileFileCredentialsProvider::builder()
                .configure(&provider_config())
                .build(),
            cached: Mutex::new(None),
        }
    }

    /// Loads the credentials now (a scan fails at once, naming the profile, when it has
    /// none); the message of a failure says which profile and why, its secrets masked by the
    /// caller.
    pub(crate) async fn load(&self) -> Result<Arc<AwsCredential>, String> {
        {
            let cached = self.cached.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if let Some((credential, expiry)) = &*cached {
                let fresh = expiry.is_none_or(|at| SystemTime::now() + Duration::from_secs(300) < at);
                if fresh {
                    return Ok(Arc::clone(credential));
                }
            }
        }
        let got = self.provider.provide_credentials().await.map_err(|e| {
            let profile = std::env::var("AWS_PROFILE").unwrap_or_else(|_| "default".to_owned());
            format!("no AWS credentials from the profile `{profile}`: {}", chain(&e))
        })?;
        remember_secret(got.secret_access_key());
        if let Some(token) = got.session_token() {
            remember_secret(token);
        }
        let credential = Arc::new(AwsCredential {
            key_id: got.access_key_id().to_owned(),
            secret_key: got.secret_access_key().to_owned(),
            token: got.session_token().map(str::to_owned),
        });
        *self.cached.lock().unwrap_or_else(std::sync::PoisonError::into_inner) =
            Some((Arc::clone(&credential), got.expiry()));
        Ok(credential)
    }
}

/// An error and its sources, one line. What a failed `credential_process` wrote on stderr
/// (which the SDK quotes after `. Stderr: `) is left out: it may hold a credential escpush
/// cannot know to mask.
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = String::new();
    let mut next: Option<&dyn std::error::Error> = Some(e);
    while let Some(error) = next {
        let mut more = error.to_string();
        if let Some(at) = more.find(STDERR) {
            more.truncate(at);
            more.push_str(" (its stderr is not shown, as it may hold a credential: run the process to see it)");
        }
        if !text.contains(&more) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&more);
        }
        next = error.source();
    }
    text
}

/// Where the SDK's message of a failed `credential_process` starts quoting its stderr.
const STDERR: &str = ". Stderr: ";

#[async_trait::async_trait]
impl CredentialProvider for ProfileCredentials {
    type Credential = AwsCredential;

    async fn get_credential(&self) -> object_store::Result<Arc<AwsCredential>> {
        self.load().await.map_err(|message| object_store::Error::Generic {
            store: "S3",
            source: message.into(),
        })
    }
}
