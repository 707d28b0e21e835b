//! Who an engine process is and what it serves: its status, the target it serves and the
//! settings it decides by. Kept apart from the messages (`protocol`), which carry it.

use serde::{Deserialize, Serialize};

use super::super::ServiceState;

/// Who an engine works for. A client attaches only to an engine that serves what it would
/// serve itself, so that nobody's tasks silently go to another account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Served {
    pub profile: Option<String>,
    /// `None` in demo mode: the embedded simulator's address is the engine's own.
    pub base_url: Option<String>,
    /// A short fingerprint of the API key (sha256, 12 hex digits), never the key.
    pub key_id: Option<String>,
}

impl Served {
    /// How `other` (the engine) differs from `self` (the client), in words; `None` if it does not.
    pub fn difference(&self, other: &Served) -> Option<String> {
        let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "none (demo)".into());
        if self.base_url != other.base_url {
            Some(format!("it serves {} and this reel {}", show(&other.base_url), show(&self.base_url)))
        } else if self.profile != other.profile {
            let p = |v: &Option<String>| v.clone().unwrap_or_else(|| "no profile".into());
            Some(format!("it serves profile {} and this reel {}", p(&other.profile), p(&self.profile)))
        } else if self.key_id != other.key_id {
            Some("it uses another API key than this reel would".into())
        } else {
            None
        }
    }
}

/// What the engine is doing, for `reel engine status` and the decision to exit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Status {
    pub pid: u32,
    pub version: String,
    pub started_at_ms: i64,
    pub socket: String,
    pub clients: usize,
    /// Tasks the engine works on (sending, polling, downloading).
    pub unfinished: usize,
    pub requests_in_flight: usize,
    pub downloads: usize,
    /// The service's health, since when, and the pause on every request.
    pub service: ServiceState,
    pub serves: Served,
    /// What the engine decides by, from the config it started with: each setting by name,
    /// with its value as the config would write it.
    #[serde(default)]
    pub decides: Decides,
}

/// The settings an engine decides by (polling, downloads, the budget, prices, agents' limits,
/// bounds), by name and value: a client compares them with its own config's.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Decides(pub Vec<(String, String)>);

impl Decides {
    /// The settings on which `engine` (the running engine's) differs from `self` (this
    /// command's config): "[agents] daily_tasks: the engine's 10, this config's 4".
    pub fn differences(&self, engine: &Decides) -> Vec<String> {
        let theirs: std::collections::BTreeMap<&str, &str> =
            engine.0.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        self.0
            .iter()
            .filter_map(|(name, ours)| match theirs.get(name.as_str()) {
                Some(t) if *t == ours => None,
                Some(t) => Some(format!("{name}: the engine's {t}, this config's {ours}")),
                None => Some(format!("{name}: unknown to the engine, this config's {ours}")),
            })
            .collect()
    }
}
