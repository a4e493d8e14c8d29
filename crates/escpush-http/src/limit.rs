//! The optional client-side rate limit: at most `max` attempts in any window of `per`,
//! counted where the server counts them.
//!
//! Each attempt (a retry counts as one) holds a slot from the moment it starts until `per`
//! after it ends. The server receives a request between those two moments, so however long
//! each request takes on the way, the server never sees more than `max` requests within
//! `per` from one client (clones of a [`crate::Client`] share the slots). A wait for a slot
//! that would end after the call's deadline fails at once, nothing sent.

use std::fmt;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// The API's own limit: 1200 requests per 5 minutes per user.
pub const API_RATE_LIMIT: RateLimit = RateLimit {
    max: 1200,
    per: Duration::from_secs(300),
};

/// At most `max` requests (retries included) in any window of `per`. Build one with
/// [`RateLimit::new`], which checks it; [`API_RATE_LIMIT`] is the API's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimit {
    max: u32,
    per: Duration,
}

/// The most requests a window may hold (the slots are kept one by one).
pub const MAX_RATE_LIMIT_REQUESTS: u32 = 1_000_000;

impl RateLimit {
    /// `max` requests (1 to [`MAX_RATE_LIMIT_REQUESTS`]) per `per` (more than zero, at most
    /// a day); anything else is an `InvalidInput` naming what is wrong.
    pub fn new(max: u32, per: Duration) -> Result<RateLimit, crate::Error> {
        if !(1..=MAX_RATE_LIMIT_REQUESTS).contains(&max) {
            return Err(crate::auth::invalid_arg(
                "rate limit",
                format!("the number of requests must be from 1 to {MAX_RATE_LIMIT_REQUESTS} (got {max})"),
            ));
        }
        if per.is_zero() || per > Duration::from_secs(86_400) {
            return Err(crate::auth::invalid_arg(
                "rate limit",
                format!(
                    "the window must be more than 0 and at most 86400 s (got {} s)",
                    per.as_secs_f64()
                ),
            ));
        }
        Ok(RateLimit { max, per })
    }

    /// The most requests in a window.
    pub fn max(&self) -> u32 {
        self.max
    }

    /// The window.
    pub fn per(&self) -> Duration {
        self.per
    }
}

impl fmt::Display for RateLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} requests per {} s", self.max, self.per.as_secs_f64())
    }
}

/// The slots of one limit, shared by the clones of a client.
#[derive(Debug, Clone)]
pub(crate) struct Limiter {
    limit: RateLimit,
    shared: Arc<(Mutex<Slots>, Condvar)>,
}

#[derive(Debug, Default)]
struct Slots {
    next_id: u64,
    /// Each held slot: its id and, once its attempt ended, when it frees.
    held: Vec<(u64, Option<Instant>)>,
}

/// A slot held by an attempt; dropping it starts the slot's last `per`.
#[derive(Debug)]
pub(crate) struct Slot<'a> {
    limiter: &'a Limiter,
    id: u64,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        let (slots, wake) = &*self.limiter.shared;
        let frees = Instant::now() + self.limiter.limit.per;
        let mut slots = lock(slots);
        if let Some(slot) = slots.held.iter_mut().find(|(id, _)| *id == self.id) {
            slot.1 = Some(frees);
        }
        drop(slots);
        wake.notify_all();
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Limiter {
    pub fn new(limit: RateLimit) -> Limiter {
        Limiter {
            limit,
            shared: Arc::new((Mutex::new(Slots::default()), Condvar::new())),
        }
    }

    pub fn limit(&self) -> RateLimit {
        self.limit
    }

    /// A slot for one attempt, waiting for one to free until `deadline`. `Err(wait)` when the
    /// next slot frees after the deadline (`wait` from now; `None` when it is not known yet
    /// because every slot's attempt is still running): the caller fails at once.
    pub fn acquire(&self, deadline: Instant) -> Result<Slot<'_>, Option<Duration>> {
        let (slots, freed) = &*self.shared;
        let mut guard = lock(slots);
        loop {
            let now = Instant::now();
            guard.held.retain(|(_, frees)| frees.is_none_or(|at| at > now));
            if guard.held.len() < self.limit.max as usize {
                let id = guard.next_id;
                guard.next_id += 1;
                guard.held.push((id, None));
                return Ok(Slot { limiter: self, id });
            }
            let first_free = guard.held.iter().filter_map(|(_, frees)| *frees).min();
            let until = match first_free {
                Some(at) if at > deadline => return Err(Some(at - now)),
                Some(at) => at,
                None if now >= deadline => return Err(None),
                None => deadline,
            };
            guard = freed
                .wait_timeout(guard, until.saturating_duration_since(now))
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_checked() {
        assert!(RateLimit::new(0, Duration::from_secs(1)).is_err());
        assert!(RateLimit::new(MAX_RATE_LIMIT_REQUESTS + 1, Duration::from_secs(1)).is_err());
        assert!(RateLimit::new(1, Duration::ZERO).is_err());
        let err = RateLimit::new(1, Duration::from_secs(86_401)).unwrap_err().to_string();
        assert!(err.contains("window") && err.contains("86401"), "{err}");
        assert_eq!(API_RATE_LIMIT.to_string(), "1200 requests per 300 s");
        assert_eq!(RateLimit::new(1200, Duration::from_secs(300)).unwrap(), API_RATE_LIMIT);
    }

    #[test]
    fn a_window_holds_at_most_max_and_frees_per_after_each_end() {
        let per = Duration::from_millis(200);
        let l = Limiter::new(RateLimit::new(3, per).unwrap());
        let far = Instant::now() + Duration::from_secs(5);
        let t = Instant::now();
        for _ in 0..3 {
            drop(l.acquire(far).unwrap());
        }
        assert!(t.elapsed() < Duration::from_millis(100));
        let fourth = l.acquire(far).unwrap();
        assert!(t.elapsed() >= per, "{:?}", t.elapsed());
        // Waiting past a near deadline fails at once and says how long the wait would be.
        let t = Instant::now();
        let near = Instant::now() + Duration::from_millis(20);
        let _a = l.acquire(far).unwrap();
        let _b = l.acquire(far).unwrap();
        // Three held, none ended: the wait is unknown and ends at the deadline.
        assert_eq!(l.acquire(near).unwrap_err(), None);
        assert!(t.elapsed() < Duration::from_millis(150));
        drop(fourth);
        let wait = l.acquire(near).unwrap_err().unwrap();
        assert!(wait > Duration::from_millis(150) && wait <= per, "{wait:?}");
    }

    #[test]
    fn threads_share_the_window() {
        let per = Duration::from_millis(300);
        let l = Limiter::new(RateLimit::new(4, per).unwrap());
        let far = Instant::now() + Duration::from_secs(10);
        let starts = Mutex::new(Vec::new());
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..3 {
                        let slot = l.acquire(far).unwrap();
                        lock(&starts).push(Instant::now());
                        drop(slot);
                    }
                });
            }
        });
        let mut starts = starts.into_inner().unwrap();
        starts.sort();
        assert_eq!(starts.len(), 12);
        for w in starts.windows(5) {
            assert!(w[4] - w[0] >= per, "5 starts within {:?}", w[4] - w[0]);
        }
    }
}
