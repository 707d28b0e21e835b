//! The engine's loop: one scheduler for every request, fed by commands and by the answers of
//! the requests it started.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use tokio::sync::mpsc;

use super::download::{self, FetchError, Saved};
use super::files;
use super::health::HealthTracker;
use super::recover::{self, Resume};
use super::schedule::{RateWindow, RenderStats, backoff};
use super::transition::{self, Ctx, Next, Step};
use super::{Command, EngineConfig, EngineError, Event, TaskUpdate};
use crate::api::types::{MediaItem, Metadata};
use crate::api::{ApiError, Client, SubmitRequest, VideoTask};
use crate::store::tasks::{self, MediaRecord, NewTask};
use crate::store::{LocalState, Store, StoreError, TaskRecord};

pub fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Job {
    Send,
    Poll,
    Download,
}

struct Tracked {
    record: TaskRecord,
    job: Job,
    /// Bumped on every reschedule; heap entries with an older value are stale.
    generation: u64,
    busy: bool,
    /// Sends that provably did not take effect.
    send_failures: u32,
}

enum Outcome {
    Sent { id: i64, result: Result<VideoTask, ApiError> },
    Polled { id: i64, result: Result<VideoTask, ApiError> },
    Fetched { id: i64, result: Result<Saved, FetchError> },
}

pub struct Runner {
    cfg: EngineConfig,
    client: Client,
    store: Store,
    events: mpsc::UnboundedSender<Event>,
    commands: mpsc::UnboundedReceiver<Command>,
    outcomes_tx: mpsc::UnboundedSender<Outcome>,
    outcomes: mpsc::UnboundedReceiver<Outcome>,
    tasks: HashMap<i64, Tracked>,
    /// API work (sends and polls) by due time.
    due: BinaryHeap<Reverse<(Instant, u64, i64)>>,
    /// Download retries by due time.
    due_downloads: BinaryHeap<Reverse<(Instant, u64, i64)>>,
    /// Downloads ready to start, most urgent URL deadline first.
    ready: BinaryHeap<Reverse<(i64, i64)>>,
    generation: u64,
    api_in_flight: usize,
    downloads_running: usize,
    polled: usize,
    budget: RateWindow,
    health: HealthTracker,
    stats: RenderStats,
    rng: fastrand::Rng,
}

/// The request body of a journaled task. Rows are written only from validated submissions.
fn request_of(r: &TaskRecord) -> SubmitRequest {
    SubmitRequest {
        model: r.model.clone(),
        prompt: r.prompt.clone(),
        seconds: r.seconds,
        metadata: Metadata {
            resolution: r.resolution.clone(),
            ratio: r.ratio.clone(),
            watermark: r.watermark,
            media: r.media.iter().map(|m| MediaItem { kind: m.kind.clone(), url: m.url.clone() }).collect(),
            negative_prompt: r.negative_prompt.clone(),
        },
    }
}

fn idempotency_key(rng: &mut fastrand::Rng) -> String {
    (0..32).map(|_| format!("{:x}", rng.u8(..16))).collect()
}

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
        let mut runner = Runner {
            budget: RateWindow::new(cfg.policy.budget_per_sec),
            cfg,
            client,
            store,
            events,
            commands,
            outcomes_tx,
            outcomes,
            tasks: HashMap::new(),
            due: BinaryHeap::new(),
            due_downloads: BinaryHeap::new(),
            ready: BinaryHeap::new(),
            generation: 0,
            api_in_flight: 0,
            downloads_running: 0,
            polled: 0,
            health: HealthTracker::default(),
            stats: RenderStats::new(times),
            rng: fastrand::Rng::new(),
        };
        runner.recover().await?;
        Ok(runner)
    }

    async fn recover(&mut self) -> Result<(), EngineError> {
        let unfinished = self.store.read(tasks::unfinished).await?;
        let now = Instant::now();
        let here = self.client.base_url().to_string();
        for record in unfinished {
            let plan = recover::plan(record, &here, now_ms());
            if plan.event.is_some() {
                self.persist(&plan.record, plan.event.as_deref()).await?;
            }
            match plan.resume {
                Resume::Poll => self.track(plan.record, Job::Poll, now),
                Resume::Download => self.track(plan.record, Job::Download, now),
                Resume::Nothing => {}
            }
        }
        Ok(())
    }

    pub async fn run(mut self) {
        loop {
            let wake = self.dispatch();
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
                    if let Err(e) = self.outcome(outcome).await {
                        let _ = self.events.send(Event::Trouble(e.to_string()));
                    }
                }
                () = sleep => {}
            }
        }
    }

    // ---- bookkeeping

    fn track(&mut self, record: TaskRecord, job: Job, at: Instant) {
        let id = record.id;
        let tracked = Tracked { record, job, generation: 0, busy: false, send_failures: 0 };
        if job == Job::Poll {
            self.polled += 1;
        }
        if let Some(old) = self.tasks.insert(id, tracked)
            && old.job == Job::Poll
        {
            self.polled -= 1;
        }
        self.schedule(id, job, at);
    }

    fn schedule(&mut self, id: i64, job: Job, at: Instant) {
        self.generation += 1;
        let generation = self.generation;
        let Some(t) = self.tasks.get_mut(&id) else { return };
        match (t.job == Job::Poll, job == Job::Poll) {
            (false, true) => self.polled += 1,
            (true, false) => self.polled -= 1,
            _ => {}
        }
        t.job = job;
        t.generation = generation;
        let entry = Reverse((at, generation, id));
        if job == Job::Download { self.due_downloads.push(entry) } else { self.due.push(entry) }
    }

    fn untrack(&mut self, id: i64) {
        if let Some(t) = self.tasks.remove(&id)
            && t.job == Job::Poll
        {
            self.polled -= 1;
        }
    }

    fn is_current(&self, generation: u64, id: i64) -> bool {
        self.tasks.get(&id).is_some_and(|t| t.generation == generation && !t.busy)
    }

    fn emit(&self, record: &TaskRecord) {
        let eta_ms = match record.state {
            s if s.is_polled() => record
                .remote_created_at
                .map(|c| c * 1000)
                .or(record.submitted_at)
                .zip(self.stats.expected(&record.model))
                .map(|(start, d)| start + d.as_millis() as i64),
            _ => None,
        };
        let _ = self.events.send(Event::Task(Box::new(TaskUpdate { record: record.clone(), eta_ms })));
    }

    async fn persist(&self, record: &TaskRecord, event: Option<&str>) -> Result<(), StoreError> {
        let record_copy = record.clone();
        let event = event.map(|d| (record.state.as_str().to_string(), (!d.is_empty()).then(|| d.to_string())));
        self.store
            .write(move |c| {
                let tx = c.transaction()?;
                tasks::save(&tx, &record_copy)?;
                if let Some((state, detail)) = event {
                    tasks::add_event(&tx, record_copy.id, record_copy.updated_at, &state, detail.as_deref())?;
                }
                tx.commit()?;
                Ok(())
            })
            .await?;
        self.emit(record);
        Ok(())
    }

    fn ctx(&mut self, record: &TaskRecord) -> Ctx {
        let now = now_ms();
        let started = record.remote_created_at.map(|c| c * 1000).or(record.submitted_at).unwrap_or(now);
        let expected_left = self
            .stats
            .early(&record.model)
            .map(|d| d.as_millis() as i64 - (now - started))
            .filter(|left| *left > 0)
            .map(|left| Duration::from_millis(left as u64));
        Ctx {
            now_ms: now,
            policy: self.cfg.policy,
            url_ttl: self.cfg.url_ttl,
            in_flight: self.polled.max(1),
            expected_left,
            jitter: self.rng.f64(),
        }
    }

    // ---- starting work

    /// Starts whatever is due and allowed; returns when to look again.
    fn dispatch(&mut self) -> Option<Instant> {
        let now = Instant::now();
        let mut wake: Option<Instant> = None;
        let mut soonest = |t: Instant| wake = Some(wake.map_or(t, |w: Instant| w.min(t)));

        while let Some(&Reverse((at, generation, id))) = self.due_downloads.peek() {
            if !self.is_current(generation, id) {
                self.due_downloads.pop();
            } else if at > now {
                soonest(at);
                break;
            } else {
                self.due_downloads.pop();
                let deadline = self.tasks.get(&id).and_then(|t| t.record.url_deadline).unwrap_or(i64::MAX);
                self.ready.push(Reverse((deadline, id)));
            }
        }
        while self.downloads_running < self.cfg.max_downloads {
            let Some(Reverse((_, id))) = self.ready.pop() else { break };
            if self.tasks.get(&id).is_some_and(|t| t.job == Job::Download && !t.busy) {
                self.start_download(id);
            }
        }

        let paused = self.health.paused_until(now);
        while let Some(&Reverse((at, generation, id))) = self.due.peek() {
            if !self.is_current(generation, id) {
                self.due.pop();
                continue;
            }
            if at > now {
                soonest(at);
                break;
            }
            if let Some(until) = paused {
                soonest(until);
                break;
            }
            if self.api_in_flight >= self.cfg.max_in_flight {
                break;
            }
            if let Err(free) = self.budget.try_acquire(now) {
                soonest(free);
                break;
            }
            self.due.pop();
            self.start_request(id);
        }
        wake
    }

    fn start_request(&mut self, id: i64) {
        let Some(t) = self.tasks.get_mut(&id) else { return };
        t.busy = true;
        self.api_in_flight += 1;
        let client = self.client.clone();
        let tx = self.outcomes_tx.clone();
        match t.job {
            Job::Send => {
                let request = request_of(&t.record);
                let key = t.record.idempotency_key.clone();
                tokio::spawn(async move {
                    let result = client.submit(&request, Some(&key)).await;
                    let _ = tx.send(Outcome::Sent { id, result });
                });
            }
            Job::Poll | Job::Download => {
                let remote = t.record.remote_id.clone().unwrap_or_default();
                tokio::spawn(async move {
                    let result = client.get(&remote).await;
                    let _ = tx.send(Outcome::Polled { id, result });
                });
            }
        }
    }

    fn start_download(&mut self, id: i64) {
        let Some(t) = self.tasks.get_mut(&id) else { return };
        let rel = files::relative_video_path(&t.record);
        let (Some(url), true) = (t.record.url.clone(), files::stays_inside(&rel)) else {
            // No URL (or an impossible path): ask the service again.
            let job_at = Instant::now();
            self.schedule(id, Job::Poll, job_at);
            return;
        };
        t.busy = true;
        self.downloads_running += 1;
        let path = self.cfg.videos_dir.join(rel);
        let starting = t.record.state != LocalState::Downloading;
        if starting {
            t.record.state = LocalState::Downloading;
            t.record.updated_at = now_ms();
        }
        let record = t.record.clone();
        let (client, store, events, tx) =
            (self.client.clone(), self.store.clone(), self.events.clone(), self.outcomes_tx.clone());
        tokio::spawn(async move {
            if starting {
                let copy = record.clone();
                let saved = store
                    .write(move |c| {
                        let tx = c.transaction()?;
                        tasks::save(&tx, &copy)?;
                        tasks::add_event(&tx, copy.id, copy.updated_at, LocalState::Downloading.as_str(), None)?;
                        tx.commit()?;
                        Ok(())
                    })
                    .await;
                if let Err(e) = saved {
                    let _ = events.send(Event::Trouble(e.to_string()));
                }
                let _ = events.send(Event::Task(Box::new(TaskUpdate { record, eta_ms: None })));
            }
            let started = Instant::now();
            let first: Mutex<Option<u64>> = Mutex::new(None);
            let progress_events = events.clone();
            let progress = move |bytes: u64, total: Option<u64>| {
                let base = *first.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(bytes);
                let secs = started.elapsed().as_secs_f64();
                let rate = if secs > 0.0 { (bytes - base.min(bytes)) as f64 / secs } else { 0.0 };
                let _ = progress_events.send(Event::Transfer { id, bytes, total, rate });
            };
            let result = download::fetch(&client, &url, &path, &progress).await;
            let _ = tx.send(Outcome::Fetched { id, result });
        });
    }

    // ---- answers

    async fn outcome(&mut self, outcome: Outcome) -> Result<(), EngineError> {
        match outcome {
            Outcome::Sent { id, result } => {
                self.api_in_flight -= 1;
                self.note_health(&result);
                let Some(t) = self.tasks.get_mut(&id) else { return Ok(()) };
                t.busy = false;
                if let Err(e) = &result
                    && transition::safe_to_resend(e)
                    && !matches!(e, ApiError::RateLimited { .. })
                {
                    t.send_failures += 1;
                }
                let (record, attempts) = (t.record.clone(), t.send_failures);
                let ctx = self.ctx(&record);
                let step = transition::after_submit(&record, &result, attempts, &ctx);
                self.apply(id, step).await
            }
            Outcome::Polled { id, result } => {
                self.api_in_flight -= 1;
                self.note_health(&result);
                let Some(t) = self.tasks.get_mut(&id) else { return Ok(()) };
                t.busy = false;
                let record = t.record.clone();
                let ctx = self.ctx(&record);
                let step = transition::after_poll(&record, &result, &ctx);
                if step.record.state == LocalState::Completed
                    && record.state != LocalState::Completed
                    && let (Some(c), Some(d)) = (step.record.remote_created_at, step.record.remote_completed_at)
                {
                    self.stats.record(&step.record.model, (d - c).max(0) as f64);
                }
                self.apply(id, step).await
            }
            Outcome::Fetched { id, result } => {
                self.downloads_running -= 1;
                self.fetched(id, result).await
            }
        }
    }

    fn note_health(&mut self, result: &Result<VideoTask, ApiError>) {
        let changed = match result {
            Ok(_) => self.health.success(),
            Err(e) => {
                let jitter = self.rng.f64();
                self.health.failure(e, Instant::now(), &self.cfg.policy, jitter)
            }
        };
        if let Some(h) = changed {
            let _ = self.events.send(Event::Health(h));
        }
    }

    async fn apply(&mut self, id: i64, step: Step) -> Result<(), EngineError> {
        let now = Instant::now();
        let mut record = step.record;
        record.next_poll_at = match step.next {
            Next::Poll(d) => Some(now_ms() + d.as_millis() as i64),
            _ => None,
        };
        // Most polls of a long render change nothing anyone sees: keep their bookkeeping
        // (poll count, times) in memory rather than writing and announcing every one.
        let seen = |r: &TaskRecord| (r.state, r.remote_status.clone(), r.progress, r.url.clone(), r.remote_id.clone());
        let changed = step.event.is_some() || self.tasks.get(&id).is_none_or(|t| seen(&t.record) != seen(&record));
        if changed {
            self.persist(&record, step.event.as_deref()).await?;
        }
        if let Some(t) = self.tasks.get_mut(&id) {
            t.record = record;
        }
        match step.next {
            Next::Poll(d) => self.schedule(id, Job::Poll, now + d),
            Next::Resend(d) => self.schedule(id, Job::Send, now + d),
            Next::Download => self.schedule(id, Job::Download, now),
            Next::Stop => self.untrack(id),
        }
        Ok(())
    }

    async fn fetched(&mut self, id: i64, result: Result<Saved, FetchError>) -> Result<(), EngineError> {
        let Some(t) = self.tasks.get_mut(&id) else { return Ok(()) };
        t.busy = false;
        let mut r = t.record.clone();
        let now = now_ms();
        r.updated_at = now;
        match result {
            Ok(saved) => {
                r.state = LocalState::Downloaded;
                r.file_path = Some(saved.path.to_string_lossy().into_owned());
                r.file_size = Some(saved.size as i64);
                r.sha256 = Some(saved.sha256.clone());
                r.finished_at = Some(now);
                r.progress = Some(100.0);
                let sidecar = saved.path.with_extension("json");
                let body = serde_json::to_vec_pretty(&files::sidecar(&r)).unwrap_or_default();
                if let Err(e) = download::write_atomic(&sidecar, &body).await {
                    let _ = self.events.send(Event::Trouble(format!("cannot write {}: {e}", sidecar.display())));
                }
                let detail = format!("saved {} ({} bytes)", saved.path.display(), saved.size);
                self.persist(&r, Some(&detail)).await?;
                self.untrack(id);
            }
            Err(FetchError::Gone(e)) if r.url_refreshes == 0 => {
                r.url_refreshes += 1;
                r.state = LocalState::Completed;
                let detail = format!("{e}; asking the service for a fresh URL");
                self.persist(&r, Some(&detail)).await?;
                if let Some(t) = self.tasks.get_mut(&id) {
                    t.record = r;
                }
                self.schedule(id, Job::Poll, Instant::now());
            }
            Err(FetchError::Gone(e)) => {
                r.state = LocalState::Expired;
                r.finished_at = Some(now);
                let message = format!("{e}, and a fresh poll did not give a working URL; the file was not saved");
                r.error = Some(serde_json::json!({ "message": message }));
                self.persist(&r, Some(&message)).await?;
                self.untrack(id);
            }
            Err(FetchError::Retry(message)) => {
                r.download_attempts += 1;
                if r.download_attempts >= i64::from(self.cfg.download_attempts) {
                    r.state = LocalState::DownloadFailed;
                    r.finished_at = Some(now);
                    r.error = Some(serde_json::json!({ "message": message }));
                    let detail = format!("gave up after {} attempts: {message}", r.download_attempts);
                    self.persist(&r, Some(&detail)).await?;
                    self.untrack(id);
                } else {
                    let wait = backoff(&self.cfg.policy, r.download_attempts as u32, self.rng.f64());
                    self.persist(&r, None).await?;
                    if let Some(t) = self.tasks.get_mut(&id) {
                        t.record = r;
                    }
                    self.schedule(id, Job::Download, Instant::now() + wait);
                }
            }
        }
        Ok(())
    }

    // ---- commands

    async fn command(&mut self, command: Command) {
        match command {
            Command::Submit { submission, count, parent, reply } => {
                let _ = reply.send(self.submit(&submission, count, parent).await);
            }
            Command::Resend { id, reply } => {
                let _ = reply.send(self.resend(id).await);
            }
            Command::Recheck { id, reply } => {
                let _ = reply.send(self.recheck(id).await);
            }
            Command::Download { id, reply } => {
                let _ = reply.send(self.redownload(id).await);
            }
            Command::Delete { id, remove_file, reply } => {
                let _ = reply.send(self.delete(id, remove_file).await);
            }
            Command::Shutdown => {}
        }
    }

    async fn submit(
        &mut self,
        s: &crate::rules::ValidSubmission,
        count: u32,
        parent: Option<i64>,
    ) -> Result<Vec<TaskRecord>, EngineError> {
        let now = now_ms();
        let rows: Vec<NewTask> = (0..count.max(1))
            .map(|_| NewTask {
                parent_id: parent,
                idempotency_key: idempotency_key(&mut self.rng),
                profile: self.cfg.profile.clone(),
                base_url: self.client.base_url().to_string(),
                model: s.model.to_string(),
                prompt: s.prompt.clone(),
                negative_prompt: s.negative_prompt.clone(),
                seconds: s.seconds,
                resolution: s.resolution.to_string(),
                ratio: s.ratio.to_string(),
                watermark: s.watermark,
                media: s
                    .media
                    .iter()
                    .map(|m| MediaRecord { kind: m.kind.to_string(), url: m.url.clone(), seconds: m.seconds })
                    .collect(),
                billed_seconds: s.billing.total(),
                created_at: now,
            })
            .collect();
        let records = self
            .store
            .write(move |c| {
                let tx = c.transaction()?;
                let out = rows.iter().map(|r| tasks::insert(&tx, r)).collect::<Result<Vec<_>, _>>()?;
                tx.commit()?;
                Ok(out)
            })
            .await?;
        let at = Instant::now();
        for r in &records {
            self.emit(r);
            self.track(r.clone(), Job::Send, at);
        }
        Ok(records)
    }

    async fn load(&self, id: i64) -> Result<TaskRecord, EngineError> {
        if let Some(t) = self.tasks.get(&id) {
            return Ok(t.record.clone());
        }
        self.store.read(move |c| tasks::get(c, id)).await?.ok_or(EngineError::NoTask(id))
    }

    async fn resend(&mut self, id: i64) -> Result<(), EngineError> {
        let mut r = self.load(id).await?;
        if !matches!(r.state, LocalState::SubmitUnknown | LocalState::Rejected) {
            return Err(EngineError::NotApplicable { id, state: r.state, action: "sending it again" });
        }
        r.state = LocalState::Submitting;
        r.error = None;
        r.finished_at = None;
        r.updated_at = now_ms();
        self.persist(&r, Some("sent again at the user's request, with the same idempotency key")).await?;
        self.track(r, Job::Send, Instant::now());
        Ok(())
    }

    async fn recheck(&mut self, id: i64) -> Result<(), EngineError> {
        let mut r = self.load(id).await?;
        match r.state {
            LocalState::DownloadFailed => return self.redownload(id).await,
            s if s.is_polled() || matches!(s, LocalState::Expired | LocalState::Lost) => {}
            s => return Err(EngineError::NotApplicable { id, state: s, action: "checking it again" }),
        }
        if r.remote_id.is_none() {
            return Err(EngineError::NotApplicable { id, state: r.state, action: "checking it (it has no remote id)" });
        }
        r.url_refreshes = 0;
        self.track(r, Job::Poll, Instant::now());
        Ok(())
    }

    async fn delete(&mut self, id: i64, remove_file: bool) -> Result<TaskRecord, EngineError> {
        if let Some(t) = self.tasks.get(&id) {
            return Err(EngineError::NotApplicable { id, state: t.record.state, action: "deleting it while it runs" });
        }
        let task =
            self.store.write(move |c| crate::store::history::delete(c, id)).await?.ok_or(EngineError::NoTask(id))?;
        if remove_file && let Some(path) = &task.file_path {
            let path = std::path::PathBuf::from(path);
            for p in [path.with_extension("json"), path] {
                match tokio::fs::remove_file(&p).await {
                    Ok(()) => {}
                    // Moved or deleted already: that is what the user wants anyway.
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(source) => return Err(EngineError::Io { path: p, source }),
                }
            }
        }
        Ok(task)
    }

    async fn redownload(&mut self, id: i64) -> Result<(), EngineError> {
        let mut r = self.load(id).await?;
        if self.tasks.get(&id).is_some_and(|t| t.busy) {
            return Err(EngineError::NotApplicable { id, state: r.state, action: "downloading it again now" });
        }
        if r.remote_id.is_none()
            || !matches!(
                r.state,
                LocalState::Completed
                    | LocalState::Downloading
                    | LocalState::Downloaded
                    | LocalState::DownloadFailed
                    | LocalState::Expired
            )
        {
            return Err(EngineError::NotApplicable { id, state: r.state, action: "downloading it" });
        }
        r.state = LocalState::Completed;
        r.download_attempts = 0;
        r.url_refreshes = 0;
        r.error = None;
        r.finished_at = None;
        r.updated_at = now_ms();
        self.persist(&r, Some("download requested")).await?;
        let job = if r.url.is_some() { Job::Download } else { Job::Poll };
        self.track(r, job, Instant::now());
        Ok(())
    }
}
