//! Synchronous transport for escpush on [`ureq`]: executes the requests that `escpush-core`
//! describes, with authentication, timeouts, retries, a response size cap, and one error type.
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
#![forbid(unsafe_code)]

mod client;
mod error;

pub use client::{Auth, Client, ClientBuilder, DEFAULT_BASE_URL};
pub use error::Error;
