//! What every engine-running command needs: the store, a client for the configured service (or
//! the embedded simulator in demo mode) and the engine's settings.

use std::path::PathBuf;
use std::time::Duration;

use thiserror::Error;

use crate::api::{ApiError, ApiKey, Client, ClientOptions, KeyError};
use crate::config::{self, ConfigError, Settings, Target};
use crate::engine::recover::DEMO_PROFILE;
use crate::engine::{Engine, EngineConfig, EngineError, Event};
use crate::sim::{SimConfig, SimHandle};
use crate::store::{Store, StoreError};

/// Why a session could not be opened, said so that the user knows what to change.
#[derive(Debug, Error)]
pub enum SessionError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(
        "cannot start the embedded simulator for demo mode: {0}; set REEL_BASE_URL and REEL_API_KEY \
         to use a real service"
    )]
    Simulator(#[source] std::io::Error),
    #[error("the embedded simulator's API key is unusable: {0}")]
    SimulatorKey(#[source] KeyError),
    #[error("{0}; check REEL_BASE_URL or the profile's base_url")]
    Client(#[source] ApiError),
    #[error("cannot open the task database {path}: {source}")]
    Store { path: PathBuf, source: StoreError },
    #[error(transparent)]
    Engine(#[from] EngineError),
}

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

fn client(base_url: &str, key: ApiKey) -> Result<Client, SessionError> {
    Client::new(base_url, key, ClientOptions::default()).map_err(SessionError::Client)
}

pub async fn open(settings: &Settings) -> Result<Session, SessionError> {
    let (client, sim, profile) = match &settings.target {
        Target::Demo => {
            let sim = SimHandle::start(SimConfig { catalog: settings.catalog.clone(), ..SimConfig::default() }, 0)
                .await
                .map_err(SessionError::Simulator)?;
            let key = ApiKey::new(sim.api_key()).map_err(SessionError::SimulatorKey)?;
            (client(&sim.base_url(), key)?, Some(sim), Some(DEMO_PROFILE.to_string()))
        }
        Target::Remote { base_url, key } => {
            let key = config::resolve_key(key)?;
            (client(base_url, key)?, None, settings.profile.clone())
        }
    };
    let path = db_path(settings);
    let store = Store::open(&path).map_err(|source| SessionError::Store { path, source })?;
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
    pub async fn start_engine(&self) -> Result<(Engine, tokio::sync::mpsc::UnboundedReceiver<Event>), SessionError> {
        Ok(Engine::start(self.engine.clone(), self.client.clone(), self.store.clone()).await?)
    }
}
