//! A soak of the emulator by concurrent clients, shared by the in-test soak
//! (`tests/soak.rs`, a few seconds) and the full run (`examples/soak.rs`, 100,000 requests):
//! each worker has its own client and zone and, per round, switches ESC off and on (each
//! switch read back), sets a secret every tenth round, and creates, reads and deletes a job
//! (the last one kept). At the end the emulator's state and request count must be exactly
//! what the workers did; the process's RSS is sampled along the way.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use escpush_core::{EscSecret, EscState, JobSpec, Scope};
use escpush_emulator::Emulator;
use escpush_filter::DatasetScope;
use escpush_http::Client;

/// Requests per round (one more every tenth round, for the secret).
const PER_ROUND: u64 = 7;

/// What a soak did and measured.
#[derive(Debug)]
pub struct Report {
    pub requests: u64,
    pub errors: u64,
    pub wall: Duration,
    /// RSS in KiB at the start, at 10 %, 50 % and 100 % of the requests.
    pub rss_kib: [u64; 4],
}

impl Report {
    pub fn per_second(&self) -> f64 {
        f64::from(u32::try_from(self.requests).unwrap_or(u32::MAX)) / self.wall.as_secs_f64()
    }
}

/// The resident set of this process in KiB (Linux; 0 elsewhere).
pub fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// The rounds that give at least `requests` requests over `workers` workers.
pub fn rounds_for(requests: u64, workers: u64) -> u64 {
    requests.div_ceil(workers * PER_ROUND).max(1)
}

/// `workers` threads, `rounds` rounds each, against `emu`, on zones `{tag}-{worker}`. Panics when the state or the
/// count at the end is not exactly what the workers did.
pub fn run(emu: &Emulator, tag: &str, workers: u64, rounds: u64) -> Report {
    let expected = workers * (rounds * PER_ROUND + rounds.div_ceil(10));
    let done = AtomicU64::new(0);
    let errors = AtomicU64::new(0);
    let samples = Mutex::new([rss_kib(), 0, 0, 0]);
    let ids = Mutex::new(Vec::new());
    let sample = |n: u64| {
        for (i, frac) in [(1, 10), (2, 2)] {
            if n == expected / frac {
                samples.lock().unwrap()[i] = rss_kib();
            }
        }
    };
    let start = Instant::now();
    let before = emu.stats().requests;
    std::thread::scope(|s| {
        for w in 0..workers {
            let (done, errors, ids, sample) = (&done, &errors, &ids, &sample);
            s.spawn(move || {
                let c = Client::builder()
                    .base_url(emu.base_url())
                    .api_token(emu.api_token())
                    .backoff(Duration::from_millis(5))
                    .timeout(Duration::from_secs(30))
                    .build()
                    .unwrap();
                let zone = Scope::zone(format!("{tag}-{w}")).unwrap();
                let secret = EscSecret::new(format!("soak-secret-{w}")).unwrap();
                let mut mine = Vec::new();
                let count = |ok: bool| {
                    if !ok {
                        errors.fetch_add(1, Ordering::Relaxed);
                    }
                    sample(done.fetch_add(1, Ordering::Relaxed) + 1);
                };
                for round in 0..rounds {
                    count(c.esc_disable(&zone).is_ok());
                    count(c.esc_status(&zone).is_ok_and(|s| s.always));
                    count(c.esc_enable(&zone).is_ok());
                    count(c.esc_status(&zone).is_ok_and(|s| !s.always));
                    if round % 10 == 0 {
                        count(c.esc_set_secret(&zone, &secret).is_ok());
                    }
                    let name = format!("w{w}-r{round}");
                    let spec = JobSpec::builder("http_requests", DatasetScope::Zone)
                        .name(name.clone())
                        .destination_conf("s3://soak?region=r&access-key-id=AKID&secret-access-key=SAK")
                        .build()
                        .unwrap();
                    let id = c.create_job(&zone, &spec).ok().and_then(|j| j["id"].as_u64());
                    count(id.is_some());
                    let id = id.unwrap_or(0);
                    mine.push(id);
                    count(c.job(&zone, id).is_ok_and(|j| j["name"] == name.as_str()));
                    if round + 1 < rounds {
                        count(c.delete_job(&zone, id).is_ok_and(|d| d == Some(id)));
                    } else {
                        count(
                            c.jobs(&zone)
                                .is_ok_and(|j| j.len() == 1 && j[0]["name"] == name.as_str()),
                        );
                    }
                }
                let st = c.esc_status(&zone).unwrap();
                assert_eq!((st.state(), st.secret.as_ref()), (EscState::Secret, Some(&secret)));
                ids.lock().unwrap().extend(mine);
            });
        }
    });
    let wall = start.elapsed();
    let mut rss = samples.into_inner().unwrap();
    rss[3] = rss_kib();
    // Exactly what the workers did: every request received, every zone as left, every job
    // id distinct, one job per zone.
    let received = emu.stats().requests - before;
    assert_eq!(
        received,
        expected + workers,
        "requests received (the final reads included)"
    );
    let mut ids = ids.into_inner().unwrap();
    let total = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), total, "job ids are unique");
    let state = emu.state();
    for w in 0..workers {
        let z = &state["zones"][format!("{tag}-{w}")];
        assert_eq!(z["esc"]["always"], false, "{z}");
        assert_eq!(z["esc"]["secret_length"], format!("soak-secret-{w}").len());
        let jobs = z["logpush_jobs"].as_array().unwrap();
        assert_eq!(jobs.len(), 1, "{z}");
        assert_eq!(jobs[0]["name"], format!("w{w}-r{}", rounds - 1));
    }
    Report {
        requests: done.into_inner(),
        errors: errors.into_inner(),
        wall,
        rss_kib: rss,
    }
}
