//! Synchronous transport for escpush on [`ureq`]: executes the requests that `escpush-core`
//! describes, with authentication, one deadline per call, retries, a response size cap,
//! secrets scrubbed from errors, and one error type.
//!
//! ```no_run
//! use escpush_core::Scope;
//! use escpush_http::Client;
//!
//! let client = Client::builder().api_token("...").build()?;
//! let zone = Scope::zone("023e105f4ecef8ad9ca31a8372d0c353")?;
//! client.esc_disable(&zone)?;
//! assert!(client.esc_status(&zone)?.always);
//! client.esc_enable(&zone)?;
//! # Ok::<(), escpush_http::Error>(())
//! ```
//!
//! Modules: `auth` (credentials, the environment), `builder` (settings, their defaults and
//! ranges, and their checks),
//! `client` (one method per API operation), `assess` (the driver of an ESC
//! assessment: core's machine run with this client, and the fetches of the user's own URLs), `send` (the one generic send: the deadline,
//! and the driver of core's retry machine, `escpush_core::Retry`), `limit` (the optional client-side rate limit), `events` (the request events, target `escpush`, for the `log` facade), `scrub` (a call's secrets out of its errors), `error`.
#![forbid(unsafe_code)]

mod assess;
mod auth;
mod builder;
mod client;
mod error;
mod events;
mod limit;
mod scrub;
mod send;
mod transformers;

pub use assess::{random_secret, MAX_SITE_BODY};
pub use auth::{Auth, EnvOverrides, ENV_ACCOUNT_ID, ENV_API_KEY, ENV_API_TOKEN, ENV_BASE_URL, ENV_EMAIL};
pub use builder::{
    ClientBuilder, TimeSetting, DEFAULT_BASE_URL, DEFAULT_CONNECT_TIMEOUT, DEFAULT_MAX_BACKOFF,
    DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_MAX_RETRIES, DEFAULT_MAX_RETRY_AFTER, DEFAULT_RETRY_BACKOFF, DEFAULT_TIMEOUT,
    MAX_RETRIES,
};
pub use client::{Client, PlannedEnsure, DELETED_BY_EARLIER_ATTEMPT};
pub use error::Error;
pub use events::LOG_TARGET;
pub use limit::{RateLimit, API_RATE_LIMIT, MAX_RATE_LIMIT_REQUESTS};
