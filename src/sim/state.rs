//! The simulator's memory: tasks, the request log and the settings that tests may change.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;

use super::SimConfig;
use super::faults::Faults;
use super::lifecycle::Timeline;
use super::video::{self, VideoSpec};
use crate::rules::{Ratio, Resolution, ValidSubmission};

/// A task as the simulated service holds it.
#[derive(Debug)]
pub struct SimTask {
    pub id: String,
    pub model: String,
    pub created: Instant,
    /// Unix time of creation, in seconds with fractions.
    pub created_at: f64,
    pub video_seconds: u32,
    pub resolution: Resolution,
    pub ratio: Ratio,
    pub timeline: Timeline,
    video: OnceLock<Bytes>,
}

impl SimTask {
    pub fn created_unix(&self) -> i64 {
        self.created_at as i64
    }

    pub fn completed_at(&self) -> f64 {
        self.created_at + self.timeline.finish_after().as_secs_f64()
    }

    /// The result file, rendered on first use.
    pub fn video(&self) -> Bytes {
        self.video
            .get_or_init(|| {
                let (width, height) = video::dimensions(self.resolution, self.ratio);
                let mut h = DefaultHasher::new();
                self.id.hash(&mut h);
                let spec =
                    VideoSpec { width, height, seconds: self.video_seconds, seed: h.finish(), label: self.id.clone() };
                Bytes::from(video::render_mp4(&spec))
            })
            .clone()
    }
}

/// One request as the simulator saw it, for tests and `reel sim` statistics.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestRecord {
    /// When the request arrived.
    pub arrived: Instant,
    /// When it was answered.
    pub at: Instant,
    pub method: String,
    pub path: String,
    pub task_id: Option<String>,
    pub status: u16,
    pub fault: Option<&'static str>,
}

pub struct State {
    pub config: SimConfig,
    /// `http://127.0.0.1:PORT/`, for the file URLs handed out.
    pub base_url: String,
    faults: Mutex<Faults>,
    tasks: Mutex<HashMap<String, Arc<SimTask>>>,
    /// Idempotency-Key → task id, so a repeated submission returns the first task.
    idempotency: Mutex<HashMap<String, String>>,
    rng: Mutex<fastrand::Rng>,
    log: Mutex<Vec<RequestRecord>>,
    watcher: Mutex<Option<tokio::sync::mpsc::UnboundedSender<RequestRecord>>>,
    secret: u64,
}

/// A poisoned lock means a handler panicked mid-update; the data is still usable for a simulator.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

pub fn unix_now() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_secs_f64()
}

impl State {
    pub fn new(config: SimConfig, base_url: String) -> State {
        let mut rng = config.seed.map(fastrand::Rng::with_seed).unwrap_or_default();
        let secret = rng.u64(..);
        State {
            faults: Mutex::new(config.faults),
            config,
            base_url,
            tasks: Mutex::default(),
            idempotency: Mutex::default(),
            rng: Mutex::new(rng),
            log: Mutex::default(),
            watcher: Mutex::default(),
            secret,
        }
    }

    pub fn faults(&self) -> Faults {
        *lock(&self.faults)
    }

    pub fn set_faults(&self, faults: Faults) {
        *lock(&self.faults) = faults;
    }

    pub fn with_rng<R>(&self, f: impl FnOnce(&mut fastrand::Rng) -> R) -> R {
        f(&mut lock(&self.rng))
    }

    /// The task a submission with this idempotency key created before, if any.
    pub fn by_idempotency_key(&self, key: &str) -> Option<Arc<SimTask>> {
        let id = lock(&self.idempotency).get(key).cloned()?;
        self.get(&id)
    }

    pub fn create(&self, sub: &ValidSubmission, idempotency_key: Option<&str>) -> Arc<SimTask> {
        let (id, timeline) = self.with_rng(|rng| {
            let id: String = (0..24).map(|_| rng.alphanumeric().to_ascii_lowercase()).collect();
            (format!("{}{id}", self.config.id_prefix), Timeline::plan(&self.config.lifecycle, rng))
        });
        let seconds = if sub.seconds > 0 { sub.seconds as u32 } else { 8 };
        let task = Arc::new(SimTask {
            id: id.clone(),
            model: sub.model.to_string(),
            created: Instant::now(),
            created_at: unix_now(),
            video_seconds: seconds,
            resolution: sub.resolution,
            ratio: sub.ratio,
            timeline,
            video: OnceLock::new(),
        });
        if let Some(key) = idempotency_key {
            lock(&self.idempotency).insert(key.to_string(), id.clone());
        }
        lock(&self.tasks).insert(id, task.clone());
        task
    }

    pub fn get(&self, id: &str) -> Option<Arc<SimTask>> {
        lock(&self.tasks).get(id).cloned()
    }

    pub fn task_count(&self) -> usize {
        lock(&self.tasks).len()
    }

    pub fn record(&self, record: RequestRecord) {
        if let Some(tx) = lock(&self.watcher).as_ref() {
            let _ = tx.send(record.clone());
        }
        lock(&self.log).push(record);
    }

    /// Every request from now on is also sent to the returned receiver.
    pub fn watch(&self) -> tokio::sync::mpsc::UnboundedReceiver<RequestRecord> {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        *lock(&self.watcher) = Some(tx);
        rx
    }

    pub fn requests(&self) -> Vec<RequestRecord> {
        lock(&self.log).clone()
    }

    /// A signature for a file URL of `id` valid until `expires_ms`.
    pub fn sign(&self, id: &str, expires_ms: u64) -> String {
        let mut h = DefaultHasher::new();
        (self.secret, id, expires_ms).hash(&mut h);
        format!("{:016x}", h.finish())
    }

    /// When the file URL handed out now stops working, in Unix milliseconds.
    pub fn url_expiry_ms(&self, task: &SimTask) -> u64 {
        let ttl = self.config.url_ttl;
        let from = if self.config.fresh_urls { unix_now() } else { task.completed_at() };
        ((from + ttl.as_secs_f64()) * 1000.0) as u64
    }
}
