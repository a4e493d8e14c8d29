//! What the emulator remembers between requests: the ESC setting of each zone and account
//! and their log-push jobs, and the redacted snapshot `Emulator::state` gives.

use std::collections::BTreeMap;

use escpush_core::{DestinationConf, ESC_COOKIE_NAME};
use escpush_filter::DatasetScope;
use serde_json::{json, Map, Value};

/// The ESC setting of one scope.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct EscSetting {
    pub always: bool,
    pub secret: Option<String>,
}

impl EscSetting {
    /// The GET body: `{}` when ESC is active without a secret; `always` and `with_secret`
    /// each shown when they apply (both when both do).
    pub fn to_result(&self) -> Value {
        let mut obj = Map::new();
        if self.always {
            obj.insert("always".to_owned(), Value::Bool(true));
        }
        if let Some(secret) = &self.secret {
            obj.insert("with_secret".to_owned(), Value::String(secret.clone()));
        }
        Value::Object(obj)
    }

    /// For snapshots: never the secret itself.
    pub fn to_snapshot(&self) -> Value {
        json!({
            "always": self.always,
            "secret_set": self.secret.is_some(),
            "secret_length": self.secret.as_ref().map(|s| s.chars().count()),
        })
    }

    /// Whether a request with this `Cookie` header is served with ESC disabled: `always`
    /// is set, or one of its cookies is exactly `disable_esc=<secret>` (core's cookie name).
    pub fn disabled_for(&self, cookie_header: Option<&str>) -> bool {
        if self.always {
            return true;
        }
        let (Some(secret), Some(header)) = (&self.secret, cookie_header) else {
            return false;
        };
        let wanted = format!("{ESC_COOKIE_NAME}={secret}");
        header.split(';').any(|pair| pair.trim() == wanted)
    }
}

/// One saved version of a transformer's SQL.
#[derive(Clone, Debug)]
pub(crate) struct Version {
    pub id: u64,
    /// Sequential, from 1.
    pub number: u64,
    pub created_at: String,
    pub code: String,
}

/// A transformer as the emulator keeps it.
#[derive(Clone, Debug)]
pub(crate) struct Stored {
    pub id: u64,
    pub name: String,
    pub description: Option<String>,
    pub dataset: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    /// Every save, oldest first; never empty.
    pub versions: Vec<Version>,
}

/// Everything the emulator remembers between requests.
#[derive(Debug, Default)]
pub(crate) struct State {
    pub esc: BTreeMap<(DatasetScope, String), EscSetting>,
    /// Log-push jobs per scope, in creation order; ids are unique across scopes.
    pub jobs: BTreeMap<(DatasetScope, String), Vec<Value>>,
    pub last_job_id: u64,
    /// The log-push quirks in force (`__emulator/logpush`).
    pub quirks: crate::faults::LogpushQuirks,
    /// Ownership challenges issued, per scope and destination (the token the API would
    /// write to the destination): never in a snapshot.
    pub challenges: BTreeMap<(DatasetScope, String, String), String>,
    /// The Instant Logs sessions of each zone (by id), each with the moment it opened.
    pub instant_logs: BTreeMap<String, Vec<(std::time::Instant, Value)>>,
    /// The transformers of each account (by id), in creation order; ids are unique across
    /// accounts, as are their versions' ids.
    pub transformers: BTreeMap<String, Vec<Stored>>,
    pub last_transformer_id: u64,
    pub last_version_id: u64,
}

impl State {
    /// What `GET {base}/__emulator/logpush` answers and [`crate::Emulator::logpush_control`]
    /// gives: whether filters are stored re-serialized, and the ownership challenges issued
    /// (the token the API would write into the destination; its credentials masked).
    pub fn logpush_control(&self) -> Value {
        let challenges: Vec<Value> = self
            .challenges
            .iter()
            .map(|((kind, id, conf), token)| {
                json!({"scope": kind.as_str(), "id": id, "destination_conf": DestinationConf::redact(conf), "challenge": token})
            })
            .collect();
        json!({
            "reserialize_filters": self.quirks.reserialize_filters,
            "challenges": challenges,
        })
    }

    pub fn esc_mut(&mut self, kind: DatasetScope, id: &str) -> &mut EscSetting {
        self.esc.entry((kind, id.to_owned())).or_default()
    }

    pub fn esc(&self, kind: DatasetScope, id: &str) -> EscSetting {
        self.esc.get(&(kind, id.to_owned())).cloned().unwrap_or_default()
    }

    /// `{"zones": {id: {"esc": {...}, "logpush_jobs": [...]}}, "accounts": {...}}`, with
    /// secrets shown only as set or not and jobs redacted by core (`redact_job`).
    pub fn snapshot(&self) -> Value {
        let side = |kind: DatasetScope| {
            if kind == DatasetScope::Zone {
                "zones"
            } else {
                "accounts"
            }
        };
        let mut snapshot = json!({ "zones": {}, "accounts": {} });
        for ((kind, id), setting) in &self.esc {
            snapshot[side(*kind)][id] = json!({ "esc": setting.to_snapshot() });
        }
        for ((kind, id), jobs) in &self.jobs {
            let redacted: Vec<Value> = jobs
                .iter()
                .cloned()
                .map(|mut job| {
                    if let Value::Object(fields) = &mut job {
                        escpush_core::redact_job(fields);
                    }
                    job
                })
                .collect();
            let entry = snapshot[side(*kind)]
                .as_object_mut()
                .expect("a snapshot side is an object")
                .entry(id.clone())
                .or_insert_with(|| json!({ "esc": EscSetting::default().to_snapshot() }));
            entry["logpush_jobs"] = Value::Array(redacted);
        }
        snapshot
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_render_as_the_spec_shows() {
        let mut s = EscSetting::default();
        assert_eq!(s.to_result(), json!({}));
        s.always = true;
        assert_eq!(s.to_result(), json!({"always": true}));
        s.secret = Some("abc".to_owned());
        assert_eq!(s.to_result(), json!({"always": true, "with_secret": "abc"}));
        assert!(!s.to_snapshot().to_string().contains("abc"));
    }

    #[test]
    fn the_cookie_disables_esc_for_one_request() {
        let s = EscSetting {
            always: false,
            secret: Some("topsecret".into()),
        };
        assert!(s.disabled_for(Some("a=b; disable_esc=topsecret")));
        assert!(!s.disabled_for(Some("disable_esc=nope")));
        assert!(!s.disabled_for(Some("disable_esc=topsecretx")));
        assert!(!s.disabled_for(None));
    }

    #[test]
    fn snapshots_list_both_sides() {
        let mut st = State::default();
        st.esc_mut(DatasetScope::Account, "a1").always = true;
        st.jobs
            .entry((DatasetScope::Zone, "z1".into()))
            .or_default()
            .push(json!({"id": 1, "ownership_challenge": "c"}));
        let snap = st.snapshot();
        assert_eq!(snap["accounts"]["a1"]["esc"]["always"], true);
        assert_eq!(snap["zones"]["z1"]["logpush_jobs"][0]["ownership_challenge"], "***");
        assert_eq!(st.esc(DatasetScope::Zone, "none"), EscSetting::default());
    }
}
