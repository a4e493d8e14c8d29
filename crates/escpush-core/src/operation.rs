//! One shape for every API call: each resource has an operation enum ([`EscOp`](crate::EscOp),
//! [`JobOp`](crate::JobOp)) whose variants are its calls, and every one of them describes
//! its [`Request`] on a [`Scope`] through this trait, from its row of the endpoint table
//! ([`Endpoint`](crate::Endpoint)). A transport needs one generic send function over
//! `impl Operation`.
//!
//! Adding an endpoint: its row in the table, a variant in the resource's enum and its arm
//! in `request`; a reader of the answer beside the enum if the answer has a new shape.

use crate::error::Error;
use crate::request::Request;
use crate::scope::Scope;

/// An API operation on a zone or an account, described but not sent.
pub trait Operation {
    /// The request performing this operation on `scope`, or why it cannot be made (an
    /// endpoint the scope does not have, an argument that does not fit the scope, ...).
    /// Nothing is sent.
    fn request(&self, scope: &Scope) -> Result<Request, Error>;
}
