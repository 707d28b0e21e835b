//! The simulator's memory: tasks, the request log and the settings that tests may change.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;

use super::SimConfig;
use super::faults::Faults;
use super::hostile::{Hostile, TaskHostility, Trigger};
use super::lifecycle::Timeline;
use super::video::{self, VideoSpec};
use reel_rules::{Ratio, Resolution, ValidSubmission};

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
    /// The hostile content this task was given at submission.
    pub hostility: TaskHostility,
    /// How it ends besides its timeline (`--answers openai`: cancelled or expired).
    pub ending: super::openai_config::Ending,
    video: OnceLock<Bytes>,
    /// The file after it "changed" (`Hostile::file_changes`): version and bytes.
    changed: Mutex<Option<(u32, Bytes)>>,
}

impl SimTask {
    pub fn created_unix(&self) -> i64 {
        self.created_at as i64
    }

    pub fn completed_at(&self) -> f64 {
        self.created_at + self.timeline.finish_after().as_secs_f64()
    }

    /// The result file as first rendered (version 0), rendered on first use.
    pub fn video(&self) -> Bytes {
        self.video.get_or_init(|| self.render(self.id.clone())).clone()
    }

    /// The file as served now: its version (0 until it changes) and bytes.
    pub fn file(&self) -> (u32, Bytes) {
        match lock(&self.changed).as_ref() {
            Some((version, bytes)) => (*version, bytes.clone()),
            None => (0, self.video()),
        }
    }

    /// Makes a new version of the file (other bytes, another length) and returns it.
    pub fn change_file(&self) -> (u32, Bytes) {
        let mut changed = lock(&self.changed);
        let version = changed.as_ref().map_or(1, |(v, _)| v + 1);
        let bytes = self.render(format!("{}#{version}", self.id));
        *changed = Some((version, bytes.clone()));
        (version, bytes)
    }

    fn render(&self, label: String) -> Bytes {
        let (width, height) = video::dimensions(self.resolution, self.ratio);
        let mut h = DefaultHasher::new();
        self.id.hash(&mut h);
        let spec = VideoSpec { width, height, seconds: self.video_seconds, seed: h.finish(), label };
        Bytes::from(video::render_mp4(&spec))
    }
}

/// Which listener a request came in on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Main,
    /// The second listener, another port on 127.0.0.1: the target of cross-origin redirects.
    Other,
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
    /// The fault or hostile behaviour applied, by name (`rate_limit`, `trickle`, ...).
    pub fault: Option<&'static str>,
    pub origin: Origin,
}

/// Tasks by id. Ids may repeat (`HostileId::Duplicate`, or fixed ids like `..`): the latest
/// task with an id answers for it, as a real service with a unique index gone wrong would.
#[derive(Default)]
struct Tasks {
    by_id: HashMap<String, Arc<SimTask>>,
    count: usize,
    last_id: Option<String>,
}

pub struct State {
    pub config: SimConfig,
    /// `http://127.0.0.1:PORT/`, for the file URLs handed out.
    pub base_url: String,
    /// The second listener's `http://127.0.0.1:PORT/`, where cross-origin redirects point.
    pub other_base_url: String,
    faults: Mutex<Faults>,
    hostile: Mutex<Hostile>,
    /// The 429 storm's window, from `Hostile::storm` when it was applied.
    storm: Mutex<Option<(Instant, Instant)>>,
    /// Occurrences so far of each hostile behaviour, for `Trigger`s.
    counts: Mutex<HashMap<&'static str, u64>>,
    tasks: Mutex<Tasks>,
    /// Idempotency-Key → task, so a repeated submission returns the first task.
    idempotency: Mutex<HashMap<String, Arc<SimTask>>>,
    /// Rendered `/media/*.mp4` files by duration.
    media: Mutex<HashMap<u32, Bytes>>,
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
    pub fn new(config: SimConfig, base_url: String, other_base_url: String) -> State {
        let mut rng = config.seed.map(fastrand::Rng::with_seed).unwrap_or_default();
        let secret = rng.u64(..);
        State {
            faults: Mutex::new(config.faults),
            hostile: Mutex::new(config.hostile),
            storm: Mutex::new(storm_window(&config.hostile)),
            counts: Mutex::default(),
            config,
            base_url,
            other_base_url,
            tasks: Mutex::default(),
            idempotency: Mutex::default(),
            media: Mutex::default(),
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

    pub fn hostile(&self) -> Hostile {
        *lock(&self.hostile)
    }

    /// Changes the hostile behaviours; triggers count, and a storm's window runs, from now.
    pub fn set_hostile(&self, hostile: Hostile) {
        lock(&self.counts).clear();
        *lock(&self.storm) = storm_window(&hostile);
        *lock(&self.hostile) = hostile;
    }

    /// How long the 429 storm still lasts, when one is raging now.
    pub fn storm_left(&self) -> Option<Duration> {
        let (from, until) = (*lock(&self.storm))?;
        let now = Instant::now();
        (from <= now && now < until).then(|| until - now)
    }

    /// Counts one more occurrence of behaviour `name` and says whether `trigger` hits it.
    pub fn fires(&self, name: &'static str, trigger: Trigger) -> bool {
        if trigger == Trigger::Never {
            return false;
        }
        let n = {
            let mut counts = lock(&self.counts);
            let count = counts.entry(name).or_insert(0);
            *count += 1;
            *count
        };
        trigger.hits(n, || self.with_rng(|rng| rng.f64()))
    }

    /// A `/media/` MP4 of `seconds`, rendered once per duration.
    pub fn media_mp4(&self, seconds: u32, render: impl FnOnce() -> Bytes) -> Bytes {
        lock(&self.media).entry(seconds).or_insert_with(render).clone()
    }

    pub fn with_rng<R>(&self, f: impl FnOnce(&mut fastrand::Rng) -> R) -> R {
        f(&mut lock(&self.rng))
    }

    /// The task a submission with this idempotency key created before, if any.
    pub fn by_idempotency_key(&self, key: &str) -> Option<Arc<SimTask>> {
        lock(&self.idempotency).get(key).cloned()
    }

    /// A new task; `ending` is how it ends besides its timeline (see `openai::ending`).
    pub fn create(
        &self,
        sub: &ValidSubmission,
        idempotency_key: Option<&str>,
        ending: super::openai_config::Ending,
    ) -> Arc<SimTask> {
        let (normal, timeline) = self.with_rng(|rng| {
            let id: String = (0..24).map(|_| rng.alphanumeric().to_ascii_lowercase()).collect();
            (
                format!("{}{id}", self.config.id_prefix),
                Timeline::plan(&self.config.lifecycle, !sub.media.is_empty(), rng),
            )
        });
        let hostile = self.hostile();
        let chosen = hostile.shapes_tasks() && self.fires("tasks", hostile.tasks);
        let hostility = if chosen { hostile.task_hostility() } else { TaskHostility::default() };
        let id = match hostile.task_id.filter(|_| chosen) {
            Some(kind) => kind.make(&normal, lock(&self.tasks).last_id.as_deref()),
            None => normal,
        };
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
            hostility,
            ending,
            video: OnceLock::new(),
            changed: Mutex::default(),
        });
        if let Some(key) = idempotency_key {
            lock(&self.idempotency).insert(key.to_string(), task.clone());
        }
        let mut tasks = lock(&self.tasks);
        tasks.count += 1;
        tasks.last_id = Some(id.clone());
        tasks.by_id.insert(id, task.clone());
        task
    }

    pub fn get(&self, id: &str) -> Option<Arc<SimTask>> {
        let forgotten = |t: &&Arc<SimTask>| self.config.forget_tasks_after.is_some_and(|d| t.created.elapsed() >= d);
        lock(&self.tasks).by_id.get(id).filter(|t| !forgotten(t)).cloned()
    }

    /// Forgets a task: its id and file answer 404 from now on, as a gateway's do after a day.
    pub fn forget(&self, id: &str) -> bool {
        lock(&self.tasks).by_id.remove(id).is_some()
    }

    /// Tasks created so far (tasks that share an id count each).
    pub fn task_count(&self) -> usize {
        lock(&self.tasks).count
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

fn storm_window(hostile: &Hostile) -> Option<(Instant, Instant)> {
    let storm = hostile.storm?;
    let from = Instant::now() + storm.after;
    Some((from, from + storm.lasting))
}
