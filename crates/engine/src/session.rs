//! What every engine-running command needs: the store, a client for the configured service (or
//! the embedded simulator in demo mode) and the engine's settings.

use std::path::PathBuf;
use std::time::Duration;

use thiserror::Error;

use crate::config::{self, ConfigError, Settings, Target};
use crate::recover::DEMO_PROFILE;
use crate::service::{self, Launch, Served, ServiceError};
use crate::{Engine, EngineConfig, EngineError, Event};
use reel_api::{ApiError, ApiKey, Client, ClientOptions, KeyError};
use reel_sim::{SimConfig, SimHandle};
use reel_store::{Store, StoreError};

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
    #[error(transparent)]
    Service(#[from] ServiceError),
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

fn client(base_url: &str, key: ApiKey, settings: &Settings) -> Result<Client, SessionError> {
    let options = ClientOptions {
        max_retry_after: Duration::from_secs_f64(settings.engine.max_retry_after_secs),
        wire: settings.wire,
        ..ClientOptions::default()
    };
    Client::new(base_url, key, options).map_err(SessionError::Client)
}

/// A client for the configured service and nothing else (no store, no engine): for the
/// commands that only ask the service (`reel models --service`, `reel doctor`). In demo mode,
/// the embedded simulator, which lives as long as the handle.
pub async fn service_client(settings: &Settings) -> Result<(Client, Option<SimHandle>), SessionError> {
    match &settings.target {
        Target::Demo => {
            let sim = SimHandle::start(SimConfig { catalog: settings.catalog.clone(), ..SimConfig::default() }, 0)
                .await
                .map_err(SessionError::Simulator)?;
            let key = ApiKey::new(sim.api_key()).map_err(SessionError::SimulatorKey)?;
            Ok((client(&sim.base_url(), key, settings)?, Some(sim)))
        }
        Target::Remote { base_url, key } => Ok((client(base_url, config::resolve_key(key)?, settings)?, None)),
    }
}

pub async fn open(settings: &Settings) -> Result<Session, SessionError> {
    let (client, sim) = service_client(settings).await?;
    let profile = if sim.is_some() { Some(DEMO_PROFILE.to_string()) } else { settings.profile.clone() };
    let path = db_path(settings);
    let store = Store::open(&path).map_err(|source| SessionError::Store { path, source })?;
    let mut engine = EngineConfig::new(settings.data_dir.join("videos"));
    engine.profile = profile;
    engine.previews = Some(crate::preview::Previewer::from_settings(settings));
    engine.provenance =
        settings.files.provenance.then(|| crate::provenance::Tagger { ffmpeg: settings.programs.ffmpeg.clone() });
    let e = settings.engine;
    let secs = Duration::from_secs_f64;
    engine.policy.budget_per_sec = e.requests_per_second;
    engine.policy.first_poll = secs(e.first_poll_secs);
    engine.policy.base = secs(e.poll_interval_secs);
    engine.policy.max = secs(e.max_poll_interval_secs.max(e.poll_interval_secs));
    // Stalled tasks keep the default recheck (a late finish is seen within it), between the
    // user's interval and the longest one allowed.
    engine.policy.slow = engine.policy.slow.min(engine.policy.max).max(engine.policy.base);
    engine.policy.client_timeout = secs(e.client_timeout_secs);
    engine.url_ttl = secs(e.url_ttl_secs);
    engine.max_downloads = e.max_downloads;
    engine.max_file_bytes = e.max_file_mb.saturating_mul(crate::verify::MB);
    engine.download_attempts = e.download_attempts;
    engine.stall.window = secs(e.stall_secs);
    engine.catalog = settings.catalog.clone();
    engine.limits = crate::admission::Limits {
        budget: settings.budget,
        pricing: settings.pricing.clone(),
        agents: settings.agents,
        max_tasks: settings.batch.max_tasks,
    };
    Ok(Session { client, store, engine, sim })
}

impl Session {
    pub async fn start_engine(&self) -> Result<(Engine, tokio::sync::mpsc::UnboundedReceiver<Event>), SessionError> {
        Ok(Engine::start(self.engine.clone(), self.client.clone(), self.store.clone()).await?)
    }
}

/// How a client reaches the engine of its data folder.
#[derive(Debug, Clone, PartialEq)]
pub enum Reach {
    /// The folder's engine process, started with `Launch` if none runs (the default).
    Service(Launch),
    /// An engine inside this process, as long as it runs (`--no-service`).
    InProcess,
    /// The engine of a data folder on another machine, over SSH (`--engine ssh://…`).
    Ssh(service::ssh::SshReach),
}

impl Reach {
    /// `user@host:port` when the engine is on another machine.
    pub fn far(&self) -> Option<String> {
        match self {
            Reach::Ssh(r) => Some(r.target.label()),
            _ => None,
        }
    }
}

/// An engine to talk to, and what keeps it alive.
pub struct Attached {
    pub engine: Engine,
    pub events: tokio::sync::mpsc::UnboundedReceiver<Event>,
    /// What the engine serves: the base URL, or `None` for the demo simulator.
    pub base_url: Option<String>,
    /// The store, client and (in demo mode) simulator of an engine in this process.
    pub session: Option<Session>,
    /// Settings the running engine decides by that this command's config has otherwise (the
    /// engine keeps the config it started with).
    pub differs: Vec<String>,
}

impl Attached {
    /// What to tell the user when the engine runs on another config than this command's.
    pub fn config_note(&self) -> Option<String> {
        (!self.differs.is_empty()).then(|| {
            format!(
                "the running engine keeps the config it started with, and it decides by it; it differs from this \
                 command's: {}. Stop it (`reel engine stop`) for the next command to start one with this config",
                self.differs.join("; ")
            )
        })
    }
}

/// The settings an engine decides by, as this config has them (see [`service::Decides`]).
pub fn decides(settings: &Settings) -> service::Decides {
    let e = &settings.engine;
    let money = |v: Option<f64>| v.map_or("none".to_string(), |v| format!("{v}"));
    let pairs: Vec<(&str, String)> = vec![
        ("[engine] requests_per_second", e.requests_per_second.to_string()),
        ("[engine] first_poll_secs", e.first_poll_secs.to_string()),
        ("[engine] poll_interval_secs", e.poll_interval_secs.to_string()),
        ("[engine] max_poll_interval_secs", e.max_poll_interval_secs.to_string()),
        ("[engine] client_timeout_secs", e.client_timeout_secs.to_string()),
        ("[engine] url_ttl_secs", e.url_ttl_secs.to_string()),
        ("[engine] max_downloads", e.max_downloads.to_string()),
        ("[engine] max_file_mb", e.max_file_mb.to_string()),
        ("[engine] download_attempts", e.download_attempts.to_string()),
        ("[engine] stall_secs", e.stall_secs.to_string()),
        ("[engine] max_retry_after_secs", e.max_retry_after_secs.to_string()),
        ("[profile] wire", settings.wire.to_string()),
        ("[budget] daily", money(settings.budget.daily)),
        // Plain data of strings and numbers: serializing it cannot fail.
        ("[pricing]", serde_json::to_string(&settings.pricing).unwrap_or_default()),
        ("[agents] submit", settings.agents.submit.to_string()),
        ("[agents] daily", money(settings.agents.daily)),
        ("[agents] daily_tasks", settings.agents.daily_tasks.map_or("none".into(), |n| n.to_string())),
        ("[agents] max_tasks_per_call", settings.agents.max_tasks_per_call.to_string()),
        ("[files] provenance", settings.files.provenance.to_string()),
        ("[batch] max_tasks", settings.batch.max_tasks.to_string()),
        ("[prompt] max_chars", settings.catalog.text_bounds().prompt_chars.to_string()),
        ("[prompt] max_negative_chars", settings.catalog.text_bounds().negative_chars.to_string()),
    ];
    service::Decides(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

/// What this reel would serve: the engine it attaches to must serve the same.
pub fn served(settings: &Settings) -> Result<Served, SessionError> {
    Ok(match &settings.target {
        Target::Demo => Served { profile: Some(DEMO_PROFILE.to_string()), base_url: None, key_id: None },
        Target::Remote { base_url, key } => {
            let key = config::resolve_key(key)?;
            let url = reel_api::client::normalize_base_url(base_url).map_err(SessionError::Client)?;
            Served {
                profile: settings.profile.clone(),
                base_url: Some(url.to_string()),
                key_id: Some(key.fingerprint()),
            }
        }
    })
}

/// Reaches the data folder's engine: attaches to its process (starting one if needed), or
/// starts one in this process.
pub async fn attach(settings: &Settings, reach: &Reach) -> Result<Attached, SessionError> {
    match reach {
        Reach::Service(launch) => {
            let serves = served(settings)?;
            let socket = service::socket_path(&settings.data_dir);
            std::fs::create_dir_all(&settings.data_dir)
                .map_err(|source| ServiceError::DataFolder { path: settings.data_dir.clone(), source })?;
            let (remote, events) = service::connect_or_start(&socket, launch, &serves).await?;
            let base_url = remote.welcome().serves.base_url.clone();
            let differs = decides(settings).differences(&remote.welcome().decides);
            if !differs.is_empty() {
                tracing::warn!(differs = ?differs, "the running engine's config differs from this command's");
            }
            Ok(Attached { engine: Engine::Remote(remote), events, base_url, session: None, differs })
        }
        Reach::Ssh(reach) => {
            let (remote, events) = reach.connect().await?;
            let base_url = remote.welcome().serves.base_url.clone();
            // The host's config decides there; this machine's has no say.
            Ok(Attached { engine: Engine::Remote(remote), events, base_url, session: None, differs: Vec::new() })
        }
        Reach::InProcess => {
            let session = open(settings).await?;
            let (engine, events) = session.start_engine().await?;
            let base_url = (settings.target != Target::Demo).then(|| session.client.base_url().to_string());
            Ok(Attached { engine, events, base_url, session: Some(session), differs: Vec::new() })
        }
    }
}
