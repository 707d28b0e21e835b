//! The engine's I/O shell: it asks the pure core ([`Queue`]) what to do, performs it (store
//! writes first, then requests and transfers), and feeds every answer back.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use thiserror::Error;
use tokio::sync::{mpsc, watch};

use super::disk::{self, Site};
use super::download::{self, FetchError, Saved};
use super::provenance;
use super::queue::{Limits, Now, Plan, Queue, Start, Write};
use super::schedule::RenderStats;
use super::timeline::Entry;
use super::{Command, EngineConfig, EngineError, Event, TaskUpdate, files, journal, recover};
use crate::preview::background::Background;
use pause::{Paused, full, tagging_found_full};
use reel_api::{ApiError, Client, VideoTask};
use reel_store::{LocalState, Store, StoreError, TaskRecord, tasks};

mod pause;

pub fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

pub(super) fn now() -> Now {
    Now { at: Instant::now(), ms: now_ms() }
}

enum Outcome {
    Sent { id: i64, result: Result<VideoTask, ApiError> },
    Polled { id: i64, result: Result<VideoTask, ApiError> },
    Fetched { id: i64, result: Result<Saved, FetchError> },
}

pub struct Runner {
    pub(super) cfg: EngineConfig,
    pub(super) client: Client,
    pub(super) store: Store,
    pub(super) events: mpsc::UnboundedSender<Event>,
    commands: mpsc::UnboundedReceiver<Command>,
    outcomes_tx: mpsc::UnboundedSender<Outcome>,
    outcomes: mpsc::UnboundedReceiver<Outcome>,
    pub(super) queue: Queue,
    /// The service's state last announced, so that each change is announced once.
    announced: super::ServiceState,
    /// Makes the preview stills of files just saved.
    previews: Option<Background>,
    /// `true` while no download waits or runs: the previews wait for it.
    downloads_idle: watch::Sender<bool>,
    /// The disk is full: what could not be written waits here, and nothing new starts.
    pub(super) paused: Option<Paused>,
}

/// Why rows could not be journaled.
#[derive(Debug, Error)]
pub(super) enum WriteError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot write {}: {source}", path.display())]
    Sidecar { path: PathBuf, source: std::io::Error },
}

impl From<WriteError> for EngineError {
    fn from(e: WriteError) -> EngineError {
        match e {
            WriteError::Store(e) => e.into(),
            WriteError::Sidecar { path, source } => EngineError::Io { path, source },
        }
    }
}

/// Answers handled together at most: their rows go in one transaction.
const BATCH: usize = 256;

impl Runner {
    pub async fn start(
        cfg: EngineConfig,
        client: Client,
        store: Store,
        events: mpsc::UnboundedSender<Event>,
        commands: mpsc::UnboundedReceiver<Command>,
    ) -> Result<Runner, EngineError> {
        let (outcomes_tx, outcomes) = mpsc::unbounded_channel();
        let times = store.read(|c| tasks::render_times(c, 50)).await?;
        let limits = Limits {
            policy: cfg.policy,
            url_ttl: cfg.url_ttl,
            max_in_flight: cfg.max_in_flight,
            max_downloads: cfg.max_downloads,
            download_attempts: cfg.download_attempts,
        };
        let mut runner = Runner {
            queue: Queue::new(limits, RenderStats::new(times), fastrand::Rng::new()),
            cfg,
            client,
            store,
            events,
            commands,
            outcomes_tx,
            outcomes,
            announced: super::ServiceState::default(),
            previews: None,
            paused: None,
            downloads_idle: watch::channel(true).0,
        };
        let idle = runner.downloads_idle.subscribe();
        runner.previews = runner.cfg.previews.clone().map(|p| Background::start(p, idle));
        let unfinished = runner.store.read(tasks::unfinished).await?;
        let now = now();
        let here = runner.client.base_url().to_string();
        let plans = unfinished.into_iter().map(|r| recover::plan(r, &here, now.ms)).collect();
        let writes = runner.queue.recover(plans, now);
        tracing::info!(base_url = %here, resumed = runner.queue.tracked(), "engine started");
        runner.write(&writes).await?;
        Ok(runner)
    }

    pub async fn run(mut self) {
        loop {
            // While the disk is full nothing new starts; the engine only looks for room.
            let plan = if self.paused.is_some() { Plan::default() } else { self.queue.next(now()) };
            let wake = self.paused.as_ref().map_or(plan.wake, |p| Some(p.next_probe));
            self.perform(plan).await;
            let sleep = async {
                match wake {
                    Some(at) => tokio::time::sleep_until(at.into()).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                command = self.commands.recv() => match command {
                    Some(Command::Shutdown) | None => break,
                    Some(c) => self.command(c).await,
                },
                Some(outcome) = self.outcomes.recv() => {
                    // Answers that arrived meanwhile (a burst of finished downloads) are
                    // journaled with this one in one transaction.
                    let mut plan = self.answer(outcome).await;
                    for _ in 1..BATCH {
                        let Ok(more) = self.outcomes.try_recv() else { break };
                        if matches!(more, Outcome::Sent { .. }) {
                            // Its duplicate check reads the journal: what came before is in it.
                            self.perform(std::mem::take(&mut plan)).await;
                            plan = self.answer(more).await;
                        } else {
                            let more = self.answer(more).await;
                            merge(&mut plan, more);
                        }
                    }
                    self.perform(plan).await;
                }
                () = sleep => if self.paused.is_some() {
                    self.try_resume().await;
                }
            }
        }
        tracing::info!(unfinished = self.queue.tracked(), "engine stopped");
    }

    /// What an answer changes; its retry, if any, is logged here.
    async fn answer(&mut self, outcome: Outcome) -> Plan {
        let now = now();
        let mut plan = match outcome {
            Outcome::Sent { id, result } => {
                let duplicate_of = self.holder_of(id, &result).await;
                self.queue.sent(id, &result, duplicate_of, now)
            }
            Outcome::Polled { id, result } => self.queue.polled(id, &result, now),
            Outcome::Fetched { id, result } => {
                if let Err(FetchError::DiskFull { dir, needed, .. }) = &result {
                    let what = format!("task {id}'s file");
                    self.pause(full(dir.clone(), *needed, what, now.ms), Vec::new(), Vec::new());
                }
                self.queue.fetched(id, &result, now)
            }
        };
        log_retry(plan.retry.take());
        plan
    }

    /// Another task of the same service that already has the id a POST was answered with.
    async fn holder_of(&self, id: i64, result: &Result<VideoTask, ApiError>) -> Option<i64> {
        let remote = result.as_ref().ok()?.id.clone();
        let base_url = self.client.base_url().to_string();
        let found = self.store.read(move |c| tasks::holder_of(c, &remote, &base_url, id)).await;
        found.unwrap_or_else(|e| {
            self.trouble(&e);
            None
        })
    }

    /// Writes the plan's rows, then starts its work.
    pub(super) async fn perform(&mut self, mut plan: Plan) {
        log_retry(plan.retry.take());
        if let Some(p) = &mut self.paused {
            // After the rows it waits for, in order.
            p.writes.extend(plan.writes);
            p.starts.extend(plan.starts);
            return;
        }
        let written = self.write(&plan.writes).await;
        // After the rows: whoever hears the service is down already sees the tasks that wait.
        self.announce_service();
        if let Err(e) = written {
            if let Some(disk) = self.full_disk(&e) {
                self.pause(disk, plan.writes, plan.starts);
                return;
            }
            // Nothing may leave unless its row says so: the work waits and is tried again.
            self.trouble(&e);
            let later = Instant::now() + self.cfg.policy.backoff_base;
            for start in &plan.starts {
                self.queue.not_started(start.id(), later);
            }
        } else {
            for start in plan.starts {
                self.launch(start);
            }
        }
        let idle = !self.queue.downloads_waiting();
        self.downloads_idle.send_if_modified(|was| std::mem::replace(was, idle) != idle);
    }

    pub(super) fn announce_service(&mut self) {
        let service = self.service();
        if service == self.announced {
            return;
        }
        if let Some(until_ms) = service.paused_until_ms.filter(|u| Some(*u) != self.announced.paused_until_ms) {
            let why = service.detail.as_deref().map(reel_rules::text::safe).unwrap_or_default();
            tracing::warn!(until_ms, health = %service.health, why = %why, "every request waits");
        }
        self.announced = service.clone();
        let _ = self.events.send(Event::Service(service));
    }

    /// What the engine works on. While paused, tasks finished here but not yet journaled still
    /// count as unfinished, as the journal has them.
    pub(super) fn activity(&self) -> super::Activity {
        let (requests_in_flight, downloads) = self.queue.running();
        let held: std::collections::BTreeSet<i64> = self
            .paused
            .iter()
            .flat_map(|p| p.writes.iter().map(|w| w.record.id))
            .filter(|id| self.queue.get(*id).is_none())
            .collect();
        let (waiting_on_api, unrecognized) = self.queue.waiting();
        super::Activity {
            unfinished: self.queue.tracked() + held.len(),
            requests_in_flight,
            downloads,
            service: self.service(),
            waiting_on_api,
            unrecognized,
        }
    }

    pub(super) fn trouble(&self, e: &dyn std::error::Error) {
        tracing::error!(error = %reel_rules::text::safe(&e.to_string()), "engine trouble");
        let _ = self.events.send(Event::Trouble(e.to_string()));
    }

    pub(super) fn emit(&self, record: &TaskRecord) {
        let eta_ms = self.queue.eta_ms(record);
        let _ = self.events.send(Event::Task(Box::new(TaskUpdate { record: record.clone(), eta_ms })));
    }

    /// Announces tasks journaled together: one event for them all.
    pub(super) fn emit_all(&self, records: &[TaskRecord]) {
        match records {
            [] => {}
            [one] => self.emit(one),
            many => {
                let updates = many.iter().map(|r| TaskUpdate { record: r.clone(), eta_ms: self.queue.eta_ms(r) });
                let _ = self.events.send(Event::Tasks(updates.collect()));
            }
        }
    }

    /// Journals the rows in one transaction (sidecars first), then announces them. A full disk
    /// fails the whole write (a sidecar too), so that it can be done again whole.
    pub(super) async fn write(&self, writes: &[Write]) -> Result<(), WriteError> {
        if writes.is_empty() {
            return Ok(());
        }
        // A burst of saved files: their sidecars are written (and fsynced) at once. A full disk
        // fails the whole write, so that it can be done again whole.
        let sidecars = writes.iter().filter(|w| w.sidecar).filter_map(|w| {
            let sidecar = std::path::Path::new(w.record.file_path.as_ref()?).with_extension("json");
            let body = serde_json::to_vec_pretty(&files::sidecar(&w.record)).unwrap_or_default();
            Some(async move {
                let written = match disk::check(Site::Sidecar, &sidecar) {
                    Ok(()) => download::write_atomic(&sidecar, &body).await,
                    Err(e) => Err(e),
                };
                match written {
                    Ok(()) => Ok(()),
                    Err(source) if disk::is_full(&source) => Err(WriteError::Sidecar { path: sidecar, source }),
                    Err(e) => {
                        tracing::error!(task = w.record.id, path = %sidecar.display(), error = %e, "cannot write sidecar");
                        let _ = self.events.send(Event::Trouble(format!("cannot write {}: {e}", sidecar.display())));
                        Ok(())
                    }
                }
            })
        });
        for written in futures_util::future::join_all(sidecars).await {
            written?;
        }
        let rows: Vec<(TaskRecord, Option<Entry>)> =
            writes.iter().map(|w| (w.record.clone(), w.event.clone())).collect();
        self.store
            .write(move |c| {
                let tx = c.transaction()?;
                for (record, event) in &rows {
                    tasks::save(&tx, record)?;
                    if let Some(entry) = event {
                        tasks::add_event(&tx, record.id, record.updated_at, record.state.as_str(), entry.detail())?;
                    }
                }
                tx.commit()?;
                Ok(())
            })
            .await?;
        for w in writes {
            if let Some(entry) = &w.event {
                let detail = reel_rules::text::safe(entry.detail().unwrap_or_default());
                tracing::info!(task = w.record.id, state = %w.record.state, detail = %detail, "transition");
            }
            self.emit(&w.record);
        }
        if let Some(previews) = &self.previews {
            // A sidecar marks a file just saved and verified.
            for w in writes.iter().filter(|w| w.sidecar && w.record.state == LocalState::Downloaded) {
                if let (Some(path), Some(sha)) = (&w.record.file_path, &w.record.sha256) {
                    previews.saved(path.into(), sha.clone());
                }
            }
        }
        Ok(())
    }

    pub(super) fn launch(&self, start: Start) {
        let (client, tx) = (self.client.clone(), self.outcomes_tx.clone());
        match start {
            Start::Send { id, record } => {
                let request = journal::request(&record);
                let key = record.idempotency_key;
                tokio::spawn(async move {
                    let result = client.submit(&request, Some(&key)).await;
                    log_answer(id, "submit", &result);
                    let _ = tx.send(Outcome::Sent { id, result });
                });
            }
            Start::Poll { id, remote_id } => {
                tokio::spawn(async move {
                    let result = client.get(&remote_id).await;
                    log_answer(id, "poll", &result);
                    let _ = tx.send(Outcome::Polled { id, result });
                });
            }
            Start::Download { id, url, record } => {
                let rel = files::relative_video_path(&record);
                if !files::stays_inside(&rel) {
                    // Cannot happen with local names; refuse rather than write outside the folder.
                    let result = Err(FetchError::Retry(format!("unsafe file name {}", rel.display())));
                    let _ = tx.send(Outcome::Fetched { id, result });
                    return;
                }
                let path = self.cfg.videos_dir.join(rel);
                let (events, stall) = (self.events.clone(), self.cfg.stall);
                let expect = super::verify::Expect::of(&record, &self.cfg.catalog, self.cfg.max_file_bytes);
                let tagging = self.cfg.provenance.clone().map(|t| (t, provenance::fields(&record)));
                // The key goes only with the service's own file route; a file URL never gets it.
                let source = client.source_of(&url, record.remote_id.as_deref());
                tokio::spawn(async move {
                    let started = Instant::now();
                    let first: Mutex<Option<u64>> = Mutex::new(None);
                    let progress = move |bytes: u64, total: Option<u64>| {
                        let base = *first.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(bytes);
                        let secs = started.elapsed().as_secs_f64();
                        let rate = if secs > 0.0 { (bytes - base.min(bytes)) as f64 / secs } else { 0.0 };
                        let _ = events.send(Event::Transfer { id, bytes, total, rate });
                    };
                    let mut result = download::fetch(&client, &source, &path, stall, &expect, &progress).await;
                    if let (Ok(saved), Some((tagger, fields))) = (&mut result, tagging) {
                        let file = saved.path.clone();
                        let tagged = tokio::task::spawn_blocking(move || tagger.tag(&file, &fields)).await;
                        let tagged = match tagged {
                            Ok(Err(e)) if let Some(full) = tagging_found_full(&e, &saved.path, saved.size) => {
                                // Saved again, tagged, once there is room: never left untagged for good.
                                Err(full)
                            }
                            Ok(result) => Ok(result.map_err(|e| e.to_string())),
                            Err(e) => Ok(Err(e.to_string())),
                        };
                        match tagged {
                            Ok(t) => saved.tagged = Some(t),
                            Err(full) => result = Err(full),
                        }
                    }
                    match &result {
                        Ok(saved) => tracing::info!(task = id, bytes = saved.size, "download saved"),
                        Err(e) => {
                            tracing::warn!(task = id, error = %reel_rules::text::safe(&e.to_string()), "download attempt failed")
                        }
                    }
                    let _ = tx.send(Outcome::Fetched { id, result });
                });
            }
        }
    }
}

fn log_retry(retry: Option<(i64, std::time::Duration, String)>) {
    if let Some((task, delay, why)) = retry {
        let why = reel_rules::text::safe(&why);
        tracing::warn!(task, delay_ms = delay.as_millis() as u64, error = %why, "retrying");
    }
}

/// Adds `more` to `plan`: its rows after, its starts after, the sooner wake.
fn merge(plan: &mut Plan, more: Plan) {
    plan.writes.extend(more.writes);
    plan.starts.extend(more.starts);
    plan.wake = match (plan.wake, more.wake) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
}

fn log_answer(id: i64, what: &str, result: &Result<VideoTask, ApiError>) {
    match result {
        Ok(task) => {
            tracing::debug!(task = id, request = what, status = %reel_rules::text::safe(task.status.as_str()), "answer")
        }
        Err(e) => {
            tracing::warn!(task = id, request = what, error = %reel_rules::text::safe(&e.to_string()), "request failed")
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::{Engine, EngineConfig, Event, PollPolicy};
    use reel_api::{ApiKey, Client, ClientOptions};
    use reel_rules::{Catalog, Draft, UnknownModels, validate};
    use reel_sim::{LifecycleConfig, SimConfig, SimHandle};
    use reel_store::{LocalState, Store, tasks};

    /// A task's timeline as stored: a bare change of state has no detail (never an empty text),
    /// and one with words keeps them.
    #[tokio::test]
    async fn bare_entries_are_stored_without_a_detail_and_said_ones_with_theirs() {
        let lifecycle = LifecycleConfig {
            queue_time: Duration::from_millis(30),
            render_min: Duration::from_millis(60),
            render_max: Duration::from_millis(60),
            failure_rate: 0.0,
        };
        let sim = SimHandle::start(SimConfig { lifecycle, seed: Some(3), ..SimConfig::default() }, 0)
            .await
            .expect("the simulator starts");
        let client = Client::new(&sim.base_url(), ApiKey::new(sim.api_key()).expect("key"), ClientOptions::default())
            .expect("client");
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(&dir.path().join("reel.db")).expect("store");
        let mut config = EngineConfig::new(dir.path().join("videos"));
        let fast = Duration::from_millis(50);
        config.policy = PollPolicy { first_poll: fast, base: fast, max: fast, slow: fast, ..PollPolicy::default() };
        let (engine, mut events) = Engine::start(config, client, store).await.expect("engine");
        let draft = Draft { model: "acme/aurora-3.0/text-to-video".into(), prompt: "a fox".into(), ..Draft::default() };
        let valid = validate(&draft, &Catalog::builtin(), UnknownModels::Warn).expect("valid");
        let id = engine.submit(valid, 1, None).await.expect("submitted")[0].id;
        let saved = tokio::time::timeout(Duration::from_secs(20), async {
            while let Some(event) = events.recv().await {
                if let Event::Task(t) = event
                    && t.record.id == id
                    && t.record.state == LocalState::Downloaded
                {
                    return true;
                }
            }
            false
        })
        .await;
        assert_eq!(saved, Ok(true), "the task is saved");
        engine.shutdown().await;
        let reader = reel_store::open_reader(&dir.path().join("reel.db")).expect("reader");
        let timeline: Vec<(String, Option<String>)> =
            tasks::events(&reader, id).expect("events").into_iter().map(|e| (e.state, e.detail)).collect();
        let bare = |state: &str| (state.to_string(), None);
        assert_eq!(timeline[..3], [bare("waiting"), bare("submitting"), bare("queued")], "{timeline:?}");
        let (state, detail) = timeline.last().expect("an entry");
        assert_eq!(state, "downloaded");
        assert!(detail.as_deref().is_some_and(|d| d.starts_with("saved ")), "{detail:?}");
        assert!(timeline.iter().all(|(_, d)| d.as_deref() != Some("")), "{timeline:?}");
    }
}
