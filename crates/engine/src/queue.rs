//! The engine's pure core: the tasks it works on, what each waits for, and what to start next.
//!
//! No I/O, no clock and no runtime: the shell (`run.rs`) passes the time in, performs the
//! [`Plan`]s that come out (writes first, then requests) and feeds each answer back. The same
//! core runs in virtual time in the polling benchmark.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::time::{Duration, Instant};

use super::download::{FetchError, Saved};
use super::health::{Health, HealthTracker, ServiceState};
use super::keep_saved;
use super::recover::{Recovery, Resume};
use super::schedule::{Kind, LOAD_SHARE, Pace, PollPolicy, RateWindow, Rationer, RenderStats, Sighting, shortest};
use super::timeline::Entry;
use super::transition::{self, Ctx, Next, Step};
use reel_api::{ApiError, VideoTask};
use reel_store::{LocalState, TaskRecord};

mod answers;

/// A moment, as both the monotonic clock (for waiting) and Unix milliseconds (for rows).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Now {
    pub at: Instant,
    pub ms: i64,
}

impl Now {
    pub fn after(self, d: Duration) -> Now {
        Now { at: self.at + d, ms: self.ms + d.as_millis() as i64 }
    }
}

/// What a tracked task waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Job {
    Send,
    Poll,
    Download,
}

/// The limits the core keeps to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    pub policy: PollPolicy,
    /// URL lifetime assumed when the service does not say.
    pub url_ttl: Duration,
    /// API requests under way at once.
    pub max_in_flight: usize,
    /// Downloads at once.
    pub max_downloads: usize,
    /// Failed download attempts (not counting the one URL refresh) before `download_failed`.
    pub download_attempts: u32,
}

/// Work the shell starts now.
#[derive(Debug, Clone, PartialEq)]
pub enum Start {
    /// POST the task (built from its row by `journal::request`).
    Send {
        id: i64,
        record: TaskRecord,
    },
    Poll {
        id: i64,
        remote_id: String,
    },
    /// Fetch `url` to the task's file.
    Download {
        id: i64,
        url: String,
        record: TaskRecord,
    },
}

impl Start {
    pub fn id(&self) -> i64 {
        match self {
            Start::Send { id, .. } | Start::Poll { id, .. } | Start::Download { id, .. } => *id,
        }
    }
}

/// A row to write and announce; `sidecar` asks for the file's sidecar to be written first.
#[derive(Debug, Clone, PartialEq)]
pub struct Write {
    pub record: TaskRecord,
    /// `Some` records an event in the task's timeline (the state changed).
    pub event: Option<Entry>,
    pub sidecar: bool,
}

/// What the shell does after a decision: write these rows, then start this work, then wake up
/// at `wake` (or at the next answer or command).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plan {
    pub writes: Vec<Write>,
    pub starts: Vec<Start>,
    pub wake: Option<Instant>,
    /// A request or transfer failed and is tried again after this long: (task, delay, why).
    pub retry: Option<(i64, Duration, String)>,
}

struct Tracked {
    record: TaskRecord,
    job: Job,
    /// Bumped on every reschedule; heap entries with an older value are stale.
    generation: u64,
    busy: bool,
    /// Sends that provably did not take effect.
    send_failures: u32,
    /// Sends the service refused a key for (see `key_scope`).
    key_refusals: u32,
    /// Whether the file saved before is on disk, when a fresh copy was asked for.
    on_disk: Option<bool>,
}

type Due = BinaryHeap<Reverse<(Instant, u64, i64)>>;

/// The retry a failed request leads to, for the log.
fn retry_of(id: i64, next: &Next, err: Option<&impl std::fmt::Display>) -> Option<(i64, Duration, String)> {
    let delay = match next {
        Next::Poll(d) | Next::Resend(d) | Next::RetryDownload(d) => *d,
        Next::Download | Next::Stop => return None,
    };
    err.map(|e| (id, delay, e.to_string()))
}

fn soonest(wake: &mut Option<Instant>, t: Instant) {
    *wake = Some(wake.map_or(t, |w| w.min(t)));
}

pub struct Queue {
    limits: Limits,
    tasks: HashMap<i64, Tracked>,
    /// API work (sends and polls) by due time.
    due: Due,
    /// Download starts and retries by due time.
    due_downloads: Due,
    /// Downloads ready to start, most urgent URL deadline first.
    ready: BinaryHeap<Reverse<(i64, i64)>>,
    generation: u64,
    api_in_flight: usize,
    downloads_running: usize,
    polled: usize,
    budget: RateWindow,
    health: HealthTracker,
    stats: RenderStats,
    /// How the budget is shared while the polls wanted would exceed it.
    rationer: Rationer,
    rng: fastrand::Rng,
    /// Per model, whether the last API answer about one of its tasks was a success (a refused
    /// key, false): whether other models work when one is refused.
    models_ok: HashMap<String, bool>,
}

/// How long ago the task was accepted (by the service's clock when it said, else ours).
fn age_of(r: &TaskRecord, now: Now) -> Duration {
    let started = r.remote_created_at.map(|c| c * 1000).or(r.submitted_at).unwrap_or(now.ms);
    Duration::from_millis((now.ms - started).max(0) as u64)
}

/// Whether a row changed in a way someone can see; polls that change nothing else are kept in
/// memory only.
fn visibly_changed(a: &TaskRecord, b: &TaskRecord) -> bool {
    a.state != b.state
        || a.remote_status != b.remote_status
        || a.progress != b.progress
        || a.url != b.url
        || a.remote_id != b.remote_id
        || a.download_attempts != b.download_attempts
        || a.url_refreshes != b.url_refreshes
        || a.rendered != b.rendered
        || a.billed_seconds != b.billed_seconds
}

impl Queue {
    pub fn new(limits: Limits, stats: RenderStats, rng: fastrand::Rng) -> Queue {
        Queue {
            budget: RateWindow::new(limits.policy.budget_per_sec),
            limits,
            tasks: HashMap::new(),
            due: BinaryHeap::new(),
            due_downloads: BinaryHeap::new(),
            ready: BinaryHeap::new(),
            generation: 0,
            api_in_flight: 0,
            downloads_running: 0,
            polled: 0,
            health: HealthTracker::default(),
            stats,
            rationer: Rationer::default(),
            rng,
            models_ok: HashMap::new(),
        }
    }

    // ---- what the shell and the commands may ask

    pub fn get(&self, id: i64) -> Option<&TaskRecord> {
        self.tasks.get(&id).map(|t| &t.record)
    }

    /// Keeps a tracked task's review as the journal has it, so that its next update carries them.
    pub fn reviewed(&mut self, id: i64, review: &reel_store::Review) {
        if let Some(t) = self.tasks.get_mut(&id) {
            t.record.review = review.clone();
        }
    }

    /// A request or transfer for the task is under way.
    pub fn is_busy(&self, id: i64) -> bool {
        self.tasks.get(&id).is_some_and(|t| t.busy)
    }

    pub fn tracked(&self) -> usize {
        self.tasks.len()
    }

    /// (Tasks that wait for the API only, to be sent or polled; tasks of those whose status
    /// reel does not know.) What decides whether an engine has anything it can still progress.
    pub fn waiting(&self) -> (usize, usize) {
        let api = self.tasks.values().filter(|t| t.job != Job::Download);
        api.fold((0, 0), |(all, unknown), t| {
            (all + 1, unknown + usize::from(t.record.state == LocalState::Unrecognized))
        })
    }

    pub fn health(&self) -> Health {
        self.health.health()
    }

    /// No request starts before this (after a 429 or repeated failures).
    pub fn paused_until(&self, now: Instant) -> Option<Instant> {
        self.health.paused_until(now)
    }

    /// What is known of the service, as shown.
    pub fn service(&self, now: Now) -> ServiceState {
        self.health.state(now.at, now.ms)
    }

    /// (API requests, downloads) under way.
    pub fn running(&self) -> (usize, usize) {
        (self.api_in_flight, self.downloads_running)
    }

    /// Whether a download is under way or ready to start (the previews wait for none to be).
    pub fn downloads_waiting(&self) -> bool {
        self.downloads_running > 0 || !self.ready.is_empty()
    }

    /// When a polled task should finish, judging by its model's history.
    pub fn eta_ms(&self, r: &TaskRecord) -> Option<i64> {
        if !r.state.is_polled() {
            return None;
        }
        let start = r.remote_created_at.map(|c| c * 1000).or(r.submitted_at)?;
        self.stats.expected(&r.model).map(|d| start + d.as_millis() as i64)
    }

    /// Whether a tracked task's saved file is on disk, as found when a fresh copy was asked
    /// for: what its timeline says if the fresh copy cannot be had.
    pub fn file_on_disk(&mut self, id: i64, on_disk: bool) {
        if let Some(t) = self.tasks.get_mut(&id) {
            t.on_disk = Some(on_disk);
        }
    }

    /// Stops working on a task the user removes (it is not busy): nothing more is sent, polled
    /// or fetched for it.
    pub fn forget(&mut self, id: i64) {
        self.untrack(id);
    }

    // ---- bookkeeping

    /// Works on `record` from now on: `job` at `at`.
    pub fn track(&mut self, record: TaskRecord, job: Job, at: Instant) {
        let id = record.id;
        let tracked =
            Tracked { record, job, generation: 0, busy: false, send_failures: 0, key_refusals: 0, on_disk: None };
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

    /// Resumes what an earlier run left unfinished; returns the rows recovery changed.
    pub fn recover(&mut self, plans: Vec<Recovery>, now: Now) -> Vec<Write> {
        let mut writes = Vec::new();
        for plan in plans {
            if let Some(event) = plan.event {
                writes.push(Write { record: plan.record.clone(), event: Some(event), sidecar: false });
            }
            match plan.resume {
                Resume::Send => self.track(plan.record, Job::Send, now.at),
                Resume::Poll => self.track(plan.record, Job::Poll, now.at),
                Resume::Download => self.track(plan.record, Job::Download, now.at),
                Resume::Nothing => {}
            }
        }
        writes
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

    fn ctx(&mut self, record: &TaskRecord, now: Now) -> Ctx {
        self.ration(record.id, now);
        let policy = self.limits.policy;
        let age = age_of(record, now);
        let short = shortest(&policy);
        let outlook = self.stats.outlook(&Kind::of(record), &policy);
        // The send's own answer (queued, when the task was accepted) is the first sighting, so
        // the first progress a poll brings already dates the finish.
        let previous = match (record.state, record.last_polled_at.or(record.submitted_at)) {
            (LocalState::Queued, Some(at_ms)) => Some(Sighting { at_ms, progress: 0.0 }),
            (LocalState::InProgress, Some(at_ms)) => Some(Sighting { at_ms, progress: record.progress.unwrap_or(0.0) }),
            _ => None,
        };
        let pace = Pace {
            planned: outlook.wait(age, &policy),
            likelihood: outlook.likelihood(age, short),
            shortest: short,
            longest: policy.max,
            previous,
            rationing: self.rationer.current(),
        };
        Ctx { now_ms: now.ms, policy, url_ttl: self.limits.url_ttl, pace, jitter: self.rng.f64() }
    }

    /// Works out, at most once a second, whether the polls wanted fit the budget and how to
    /// share it when they do not. Costs one outlook lookup per polled task. `answered` is the
    /// task whose answer is being handled (its send, if it was one, no longer waits).
    fn ration(&mut self, answered: i64, now: Now) {
        if !self.rationer.due(now.at) {
            return;
        }
        let policy = self.limits.policy;
        let short = shortest(&policy);
        let mut wants = Vec::with_capacity(self.polled);
        let mut sends_wait = false;
        for (id, t) in &self.tasks {
            sends_wait |= t.job == Job::Send && *id != answered;
            if t.job != Job::Poll {
                continue;
            }
            let r = &t.record;
            wants.push(if matches!(r.state, LocalState::Stalled | LocalState::Unrecognized) {
                (1.0 / policy.slow.as_secs_f64().max(1e-3), 0.0)
            } else {
                let (age, outlook) = (age_of(r, now), self.stats.outlook(&Kind::of(r), &policy));
                (1.0 / outlook.wait(age, &policy).as_secs_f64(), outlook.likelihood(age, short))
            });
        }
        let share = if sends_wait { LOAD_SHARE } else { 1.0 };
        if self.rationer.update(&wants, f64::from(policy.budget_per_sec) * share, policy.max, now.at) {
            // While it binds, the budget, not the scheduler, is what delays detection.
            let binds = self.rationer.current().is_some();
            tracing::info!(polled = wants.len(), binds, "request budget");
        }
    }

    // ---- starting work

    /// Starts whatever is due and allowed at `now`.
    pub fn next(&mut self, now: Now) -> Plan {
        let mut plan = Plan::default();

        while let Some(&Reverse((at, generation, id))) = self.due_downloads.peek() {
            if !self.is_current(generation, id) {
                self.due_downloads.pop();
            } else if at > now.at {
                soonest(&mut plan.wake, at);
                break;
            } else {
                self.due_downloads.pop();
                let deadline = self.tasks.get(&id).and_then(|t| t.record.url_deadline).unwrap_or(i64::MAX);
                self.ready.push(Reverse((deadline, id)));
            }
        }
        while self.downloads_running < self.limits.max_downloads {
            let Some(Reverse((_, id))) = self.ready.pop() else { break };
            if self.tasks.get(&id).is_some_and(|t| t.job == Job::Download && !t.busy) {
                self.start_download(id, now, &mut plan);
            }
        }

        let paused = self.health.paused_until(now.at);
        while let Some(&Reverse((at, generation, id))) = self.due.peek() {
            if !self.is_current(generation, id) {
                self.due.pop();
                continue;
            }
            if at > now.at {
                soonest(&mut plan.wake, at);
                break;
            }
            if let Some(until) = paused {
                soonest(&mut plan.wake, until);
                break;
            }
            if self.api_in_flight >= self.limits.max_in_flight {
                break;
            }
            if let Err(free) = self.budget.try_acquire(now.at) {
                soonest(&mut plan.wake, free);
                break;
            }
            self.due.pop();
            self.start_request(id, now, &mut plan);
        }
        plan
    }

    fn start_request(&mut self, id: i64, now: Now, plan: &mut Plan) {
        let Some(t) = self.tasks.get_mut(&id) else { return };
        t.busy = true;
        self.api_in_flight += 1;
        if t.job == Job::Send && t.record.state != LocalState::Submitting {
            // Journaled before the POST leaves: only a task in this state can be ambiguous. A
            // send tried again after an outage or a refusal records no event each time.
            let again = t.record.state == LocalState::Waiting && t.record.error.is_some();
            t.record.state = LocalState::Submitting;
            t.record.updated_at = now.ms;
            plan.writes.push(Write {
                record: t.record.clone(),
                event: (!again).then_some(Entry::Bare),
                sidecar: false,
            });
        }
        plan.starts.push(match t.job {
            Job::Send => Start::Send { id, record: t.record.clone() },
            Job::Poll | Job::Download => Start::Poll { id, remote_id: t.record.remote_id.clone().unwrap_or_default() },
        });
    }

    fn start_download(&mut self, id: i64, now: Now, plan: &mut Plan) {
        let Some(t) = self.tasks.get_mut(&id) else { return };
        let Some(url) = t.record.url.clone() else {
            // No URL: ask the service again.
            self.schedule(id, Job::Poll, now.at);
            return;
        };
        t.busy = true;
        self.downloads_running += 1;
        if t.record.state != LocalState::Downloading {
            t.record.state = LocalState::Downloading;
            t.record.updated_at = now.ms;
            plan.writes.push(Write { record: t.record.clone(), event: Some(Entry::Bare), sidecar: false });
        }
        plan.starts.push(Start::Download { id, url, record: t.record.clone() });
    }

    /// A start the shell could not perform (its row could not be journaled first): the task
    /// waits and is tried again at `at`.
    pub fn not_started(&mut self, id: i64, at: Instant) {
        let Some(t) = self.tasks.get_mut(&id) else { return };
        if !t.busy {
            return;
        }
        t.busy = false;
        let job = t.job;
        if job == Job::Download {
            self.downloads_running -= 1;
        } else {
            self.api_in_flight -= 1;
        }
        self.schedule(id, job, at);
    }
}

#[cfg(test)]
#[path = "queue_tests.rs"]
mod tests;
