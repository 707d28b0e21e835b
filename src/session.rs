//! What every engine-running command needs: the store, a client for the configured service (or
//! the embedded simulator in demo mode) and the engine's settings.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context as _;

use crate::api::{ApiKey, Client, ClientOptions};
use crate::config::{self, Settings, Target};
use crate::engine::recover::DEMO_PROFILE;
use crate::engine::{Engine, EngineConfig, Event};
use crate::sim::{SimConfig, SimHandle};
use crate::store::Store;

pub struct Session {
    pub client: Client,
    pub store: Store,
    pub engine: EngineConfig,
    /// The embedded simulator, in demo mode. It lives as long as the session.
    pub sim: Option<SimHandle>,
}

pub fn db_path(settings: &Settings) -> PathBuf {
    settings.data_dir.join("reel.db")
}

pub async fn open(settings: &Settings) -> anyhow::Result<Session> {
    let (client, sim, profile) = match &settings.target {
        Target::Demo => {
            let sim = SimHandle::start(SimConfig { catalog: settings.catalog.clone(), ..SimConfig::default() }, 0)
                .await
                .context("cannot start the embedded simulator")?;
            let key = ApiKey::new(sim.api_key())?;
            let client = Client::new(&sim.base_url(), key, ClientOptions::default())?;
            (client, Some(sim), Some(DEMO_PROFILE.to_string()))
        }
        Target::Remote { base_url, key } => {
            let key = config::resolve_key(key)?;
            (Client::new(base_url, key, ClientOptions::default())?, None, settings.profile.clone())
        }
    };
    let store = Store::open(&db_path(settings))?;
    let mut engine = EngineConfig::new(settings.data_dir.join("videos"));
    engine.profile = profile;
    let e = settings.engine;
    let secs = Duration::from_secs_f64;
    engine.policy.budget_per_sec = e.requests_per_second;
    engine.policy.first_poll = secs(e.first_poll_secs);
    engine.policy.base = secs(e.poll_interval_secs);
    engine.policy.max = secs(e.max_poll_interval_secs.max(e.poll_interval_secs));
    engine.policy.slow = engine.policy.max;
    engine.policy.client_timeout = secs(e.client_timeout_secs);
    engine.url_ttl = secs(e.url_ttl_secs);
    engine.max_downloads = e.max_downloads;
    Ok(Session { client, store, engine, sim })
}

impl Session {
    pub async fn start_engine(&self) -> anyhow::Result<(Engine, tokio::sync::mpsc::UnboundedReceiver<Event>)> {
        Ok(Engine::start(self.engine.clone(), self.client.clone(), self.store.clone()).await?)
    }
}
