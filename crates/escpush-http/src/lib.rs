//! Synchronous transport for escpush on [`ureq`]: executes the requests that
//! `escpush-core` describes. The ESC client lands with the ESC issue.
