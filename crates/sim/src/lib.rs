//! The embedded simulator of the API: a real HTTP server on 127.0.0.1, for the demo and the tests.
//!
//! `server` takes connections and runs every request through the fault and hostile layers;
//! `routes` maps paths to endpoints; `api`, `files`, `media` and `models` answer (`takes`: the
//! body form a submission is taken in, `gateway`: new-api's answers, `openai` and
//! `openai_config`: OpenAI's, with the file at `/content`, `upstream`: what a gateway's upstream
//! does to what was asked); `reply` and `raw` put answers on the wire; `faults` and `hostile`
//! say what goes wrong; `state`, `lifecycle`, `range` and `video` hold tasks, their timelines,
//! byte ranges and result files.

mod api;
pub mod faults;
mod files;
pub mod gateway;
pub mod hostile;
pub mod lifecycle;
mod media;
mod models;
pub mod openai;
mod openai_config;
pub mod range;
mod raw;
mod reply;
pub mod routes;
pub mod server;
pub mod state;
pub mod takes;
pub mod upstream;
pub mod video;

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

pub use faults::Faults;
pub use gateway::{Answers, Gateway, UrlPlacement};
pub use hostile::{Hostile, HostileId, HostileProgress, HostileStatus, HostileUrl, Storm, Trigger};
pub use lifecycle::LifecycleConfig;
pub use media::{PNG as MEDIA_PNG, WAV_RATE as MEDIA_WAV_RATE};
pub use openai::{NotReady, OpenAi};
pub use state::{Origin, RequestRecord};
pub use upstream::Upstream;

use reel_rules::Catalog;
use state::State;

/// The key `reel sim` and the demo use unless told otherwise.
pub const DEFAULT_API_KEY: &str = "sim-key";

#[derive(Debug, Clone, PartialEq)]
pub struct SimConfig {
    pub api_key: String,
    pub lifecycle: LifecycleConfig,
    /// How long a result URL works.
    pub url_ttl: Duration,
    /// Hand out a new URL (with a new expiry) on every poll, as some providers do.
    pub fresh_urls: bool,
    /// Send the fields the spec does not name but real providers do: `progress`, `expires_at`.
    pub extensions: bool,
    pub faults: Faults,
    /// Adversarial answers (all off by default); see [`Hostile`].
    pub hostile: Hostile,
    /// The shape of every answer: the spec's, a real gateway's (see [`gateway`]) or OpenAI's
    /// (see [`openai`]).
    pub answers: Answers,
    /// The body it takes for a submission (see [`takes`]).
    pub takes: reel_api::Wire,
    /// Makes ids, render times, failures and faults repeatable.
    pub seed: Option<u64>,
    /// Start of every task id; tests set hostile ones (`../../x`) to check clients.
    pub id_prefix: String,
    /// Serve result files at most this many bytes per second (a slow CDN).
    pub file_rate: Option<u64>,
    /// Forget every task this long after it was created: its id and file answer 404, as real
    /// gateways' do after about a day.
    pub forget_tasks_after: Option<Duration>,
    pub catalog: Catalog,
    /// What the gateway's upstream does (see [`upstream`]): another size, one model's key refused.
    pub upstream: Upstream,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            api_key: DEFAULT_API_KEY.to_string(),
            lifecycle: LifecycleConfig::default(),
            url_ttl: Duration::from_secs(3600),
            fresh_urls: false,
            extensions: true,
            faults: Faults::default(),
            hostile: Hostile::default(),
            answers: Answers::Spec,
            takes: reel_api::Wire::default(),
            seed: None,
            id_prefix: "task_".into(),
            file_rate: None,
            forget_tasks_after: None,
            catalog: Catalog::builtin(),
            upstream: Upstream::default(),
        }
    }
}

/// A running simulator. Dropping it stops the server.
pub struct SimHandle {
    addr: SocketAddr,
    other_addr: SocketAddr,
    state: Arc<State>,
    stop: watch::Sender<bool>,
    tasks: Vec<JoinHandle<()>>,
}

impl SimHandle {
    /// Starts the simulator on 127.0.0.1:`port` (0 picks a free port), and a second listener on
    /// a free port: the other origin that hostile redirects point to.
    pub async fn start(config: SimConfig, port: u16) -> std::io::Result<SimHandle> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port)).await?;
        let other = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
        let (addr, other_addr) = (listener.local_addr()?, other.local_addr()?);
        let state = Arc::new(State::new(config, format!("http://{addr}/"), format!("http://{other_addr}/")));
        let (stop, stopped) = watch::channel(false);
        let tasks = vec![
            tokio::spawn(server::serve(listener, state.clone(), Origin::Main, stopped.clone())),
            tokio::spawn(server::serve(other, state.clone(), Origin::Other, stopped)),
        ];
        Ok(SimHandle { addr, other_addr, state, stop, tasks })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The second listener: same service, another origin (cross-origin redirects point here).
    pub fn other_addr(&self) -> SocketAddr {
        self.other_addr
    }

    /// `http://127.0.0.1:OTHER_PORT`.
    pub fn other_base_url(&self) -> String {
        format!("http://{}", self.other_addr)
    }

    /// `http://127.0.0.1:PORT`, the base URL a client is configured with.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn api_key(&self) -> &str {
        &self.state.config.api_key
    }

    pub fn config(&self) -> &SimConfig {
        &self.state.config
    }

    /// Changes fault injection while running (tests turn faults on and off).
    pub fn set_faults(&self, faults: Faults) {
        self.state.set_faults(faults);
    }

    /// Changes the hostile behaviours while running; triggers count again from zero and a
    /// storm's window starts now. Task content
    /// (status, id, url, progress, strings) applies to tasks submitted from now on.
    pub fn set_hostile(&self, hostile: Hostile) {
        self.state.set_hostile(hostile);
    }

    pub fn hostile(&self) -> Hostile {
        self.state.hostile()
    }

    /// Every request seen so far, in order.
    pub fn requests(&self) -> Vec<RequestRecord> {
        self.state.requests()
    }

    /// A live feed of requests (for `reel sim` to print them).
    pub fn watch_requests(&self) -> tokio::sync::mpsc::UnboundedReceiver<RequestRecord> {
        self.state.watch()
    }

    pub fn task_count(&self) -> usize {
        self.state.task_count()
    }

    /// Forgets a task id (real gateways forget theirs after about a day): polls of it answer
    /// 404 "no task", and its file is gone. False if no task had this id.
    pub fn forget(&self, task_id: &str) -> bool {
        self.state.forget(task_id)
    }

    /// What a task was made with: model, seconds, resolution and ratio as the simulator read
    /// them from the body (tests check what arrived of what was sent).
    pub fn task(&self, task_id: &str) -> Option<std::sync::Arc<state::SimTask>> {
        self.state.get(task_id)
    }

    /// The exact bytes of a completed task's file as first served, to compare downloads with.
    pub fn video_bytes(&self, task_id: &str) -> Option<Bytes> {
        self.state.get(task_id).map(|t| t.video())
    }

    /// The bytes of a task's file as served now (after any `Hostile::file_changes`).
    pub fn current_file_bytes(&self, task_id: &str) -> Option<Bytes> {
        self.state.get(task_id).map(|t| t.file().1)
    }

    /// Stops accepting connections and closes open ones.
    pub async fn stop(mut self) {
        let _ = self.stop.send(true);
        for task in self.tasks.drain(..) {
            let _ = task.await;
        }
    }
}

impl Drop for SimHandle {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
    }
}
