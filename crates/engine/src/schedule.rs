//! Pure scheduling decisions: when to poll a task, how long to back off, the request budget,
//! and the finish times learned per kind of task.
//!
//! A running task is polled densely (every `base`, the spec's 5 s) wherever a finish may come,
//! and sparsely only where what was learned says it will not. That comes from an [`Outlook`]:
//! the distribution of a kind of task's total time (submission to completion), learned from
//! completed tasks. Where nothing was learned, or a task has outlived what was learned, nothing
//! is known and polls are dense: the spec's "typically 1 to 5 minutes" is no bound (fast models
//! exist, services slow down). A task that reports `progress` is polled where its own progress
//! says it will finish. When the request budget cannot carry every poll that is wanted, the
//! tasks likeliest to finish get more of it.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use reel_store::TaskRecord;

/// When and how fast to poll (spec 4.3), and the global request budget.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PollPolicy {
    /// First poll after submission.
    pub first_poll: Duration,
    /// The spec's interval: tasks are polled at it wherever a finish may come (see
    /// [`shortest`]), less often only where what was learned rules finishes out.
    pub base: Duration,
    /// Longest interval for a running task (unless the budget forces longer): how far a learned
    /// outlook may skip ahead to where its finishes start.
    pub max: Duration,
    /// Interval for stalled tasks and unrecognized statuses: a stalled task that finishes is
    /// seen within it (plus any wait for the budget).
    pub slow: Duration,
    /// Past this age a task that has not finished is `stalled` (spec 4.3: 10 minutes).
    pub client_timeout: Duration,
    /// API requests per second, never exceeded.
    pub budget_per_sec: u32,
    /// First back-off after an error; doubles per consecutive error.
    pub backoff_base: Duration,
    pub backoff_max: Duration,
    /// How long a vendor keeps a task: a gateway's `unknown` for a task it once knew, past
    /// this age, means it lost track of it for good (about a day in practice).
    pub vendor_retention: Duration,
}

impl Default for PollPolicy {
    fn default() -> Self {
        PollPolicy {
            first_poll: Duration::from_secs(5),
            base: Duration::from_secs(5),
            max: Duration::from_secs(90),
            slow: Duration::from_secs(20),
            client_timeout: Duration::from_secs(600),
            budget_per_sec: 10,
            backoff_base: Duration::from_secs(2),
            backoff_max: Duration::from_secs(120),
            vendor_retention: Duration::from_secs(24 * 3600),
        }
    }
}

/// Share of the budget that routine polling may use while submissions wait to be sent; the
/// rest is headroom for them. With none waiting, polling may use all of it.
pub const LOAD_SHARE: f64 = 0.8;

/// Share of finishes a learned outlook may see later than the dense interval: the polls saved
/// are the ones where it gives the lowest chance of a finish. Polling every `base` sees 95% of
/// finishes within 0.95 × `base`; with 3.5% seen later, the 95th percentile of what is left
/// stays within 0.99 × `base`.
const LATE_SHARE: f64 = 0.035;

/// The shortest interval between two polls of a running task: the spec's, so that a task about
/// which nothing is known costs no more polls than a fixed loop at that interval.
pub fn shortest(p: &PollPolicy) -> Duration {
    p.base
}

/// Back-off after `failures` consecutive errors, with `jitter` in [0, 1) spreading it ±20%.
pub fn backoff(p: &PollPolicy, failures: u32, jitter: f64) -> Duration {
    let exp = 2f64.powi(failures.saturating_sub(1).min(30) as i32);
    let secs = (p.backoff_base.as_secs_f64() * exp).min(p.backoff_max.as_secs_f64());
    Duration::from_secs_f64(secs * (0.8 + 0.4 * jitter.clamp(0.0, 1.0)))
}

/// A sliding one-second window: at most `per_sec` requests start in any window of that length.
#[derive(Debug, Clone)]
pub struct RateWindow {
    per_sec: usize,
    window: Duration,
    sent: VecDeque<Instant>,
}

impl RateWindow {
    pub fn new(per_sec: u32) -> RateWindow {
        // A little over a second, so that network jitter cannot squeeze one window's requests
        // into what the server sees as less than a second.
        RateWindow { per_sec: per_sec.max(1) as usize, window: Duration::from_millis(1050), sent: VecDeque::new() }
    }

    /// Takes a slot now, or says when the next one frees.
    pub fn try_acquire(&mut self, now: Instant) -> Result<(), Instant> {
        while self.sent.front().is_some_and(|t| now.duration_since(*t) >= self.window) {
            self.sent.pop_front();
        }
        if self.sent.len() < self.per_sec {
            self.sent.push_back(now);
            Ok(())
        } else {
            Err(self.sent[0] + self.window)
        }
    }
}

// ---- the next poll of one task

/// A progress value the service reported, and when.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sighting {
    pub at_ms: i64,
    /// Percent, 0 to 100.
    pub progress: f64,
}

/// How the request budget is shared when the polls wanted exceed it: a task gets
/// `per_likelihood` × √(its likelihood of finishing) polls per second (never more than it
/// wants), and waits at most `longest`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rationing {
    pub per_likelihood: f64,
    pub longest: Duration,
}

/// What decides a running task's next poll, besides the answer itself.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pace {
    /// The wait the task's outlook asks for at its age.
    pub planned: Duration,
    /// Chance, by the outlook, that the task finishes within `shortest`.
    pub likelihood: f64,
    pub shortest: Duration,
    pub longest: Duration,
    /// The previous answer's progress (0 if the task was still queued then).
    pub previous: Option<Sighting>,
    /// Set while the budget cannot carry every poll wanted.
    pub rationing: Option<Rationing>,
}

impl Pace {
    /// A fixed interval: no history, no progress, no budget pressure.
    pub fn steady(every: Duration) -> Pace {
        Pace { planned: every, likelihood: 1.0, shortest: every, longest: every, previous: None, rationing: None }
    }
}

/// When the finish is due by linear progress: (earliest, latest) seconds from `now`. Progress
/// is taken as whole percent rounded down, so each reading may be up to one percent low. A
/// previous reading of 0 (or a task still queued then) bounds only the latest: rendering may
/// have started any time since.
pub fn remaining(prev: Sighting, now: Sighting) -> Option<(f64, f64)> {
    let dt = (now.at_ms - prev.at_ms) as f64 / 1000.0;
    let dp = now.progress - prev.progress;
    if dt <= 0.0 || now.progress < 1.0 || now.progress >= 100.0 || dp < 1.0 {
        return None;
    }
    if prev.progress <= 0.0 {
        return Some((0.0, (100.0 - now.progress) * dt / now.progress));
    }
    let earliest = (99.0 - now.progress).max(0.0) * dt / (dp + 1.0);
    let latest = if dp > 1.0 { (100.0 - now.progress) * dt / (dp - 1.0) } else { f64::INFINITY };
    Some((earliest, latest))
}

/// The wait and likelihood that a task's own progress asks for: once the finish is pinned down
/// to less than half the shortest interval, poll right at its latest moment; until then, poll
/// at its earliest, which pins it down further; with only a latest moment, poll by the outlook
/// but no later than that.
fn by_progress(earliest: f64, latest: f64, pace: &Pace) -> (Duration, f64) {
    let (shortest, longest) =
        (pace.shortest.as_secs_f64(), pace.longest.as_secs_f64().max(pace.shortest.as_secs_f64()));
    let wait = if latest - earliest <= shortest / 2.0 {
        latest
    } else if earliest <= 0.0 {
        pace.planned.as_secs_f64().min(latest)
    } else {
        earliest
    };
    let middle = (earliest + latest.min(earliest + longest)) / 2.0;
    (Duration::from_secs_f64(wait.clamp(shortest, longest)), (shortest / middle.max(shortest)).clamp(0.0, 1.0))
}

/// A wait stretched as the budget requires: the less likely a finish, the longer.
pub fn rationed(wanted: Duration, likelihood: f64, rationing: Option<Rationing>) -> Duration {
    let Some(r) = rationing else { return wanted };
    let share = r.per_likelihood * likelihood.max(0.0).sqrt();
    let fair = if share > 0.0 { Duration::from_secs_f64((1.0 / share).min(1e6)) } else { r.longest };
    wanted.max(fair.min(r.longest))
}

/// The wait before the next poll of a running task that answered with `progress` (when it is
/// rendering and said one).
pub fn next_poll(pace: &Pace, progress: Option<f64>, now_ms: i64) -> Duration {
    let now = progress.map(|p| Sighting { at_ms: now_ms, progress: p });
    let by_own = pace.previous.zip(now).and_then(|(prev, now)| remaining(prev, now));
    let (wanted, likelihood) = match by_own {
        Some((earliest, latest)) => by_progress(earliest, latest, pace),
        None => (pace.planned, pace.likelihood),
    };
    rationed(wanted, likelihood, pace.rationing)
}

/// Shares `per_sec` polls per second among tasks that each want (polls per second, likelihood of
/// finishing soon): `None` when every task can have what it wants. Otherwise each task gets
/// `k × √likelihood` (the share that minimises the mean detection delay), between one poll per
/// `longest` and what it wants, with `k` chosen to spend the budget; `longest` is `floor`, or
/// longer if even that would not fit.
pub fn ration(wants: &[(f64, f64)], per_sec: f64, floor: Duration) -> Option<Rationing> {
    let per_sec = per_sec.max(1e-9);
    if wants.iter().map(|w| w.0).sum::<f64>() <= per_sec {
        return None;
    }
    let longest = floor.as_secs_f64().max(wants.len() as f64 / per_sec);
    let least = 1.0 / longest;
    let used =
        |k: f64| -> f64 { wants.iter().map(|&(want, p)| (k * p.max(0.0).sqrt()).clamp(least.min(want), want)).sum() };
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    while used(hi) < per_sec && hi < 1e12 {
        hi *= 4.0;
    }
    for _ in 0..60 {
        let mid = (lo + hi) / 2.0;
        if used(mid) <= per_sec { lo = mid } else { hi = mid }
    }
    Some(Rationing { per_likelihood: lo, longest: Duration::from_secs_f64(longest) })
}

/// Keeps the budget's sharing up to date, working it out at most once a second.
#[derive(Debug, Clone, Default)]
pub struct Rationer {
    current: Option<Rationing>,
    since: Option<Instant>,
}

impl Rationer {
    pub fn current(&self) -> Option<Rationing> {
        self.current
    }

    /// Whether a second has passed since the sharing was last worked out.
    pub fn due(&self, now: Instant) -> bool {
        self.since.is_none_or(|at| now >= at + Duration::from_secs(1))
    }

    /// Works the sharing out again (see [`ration`]); says whether the budget started or
    /// stopped binding.
    pub fn update(&mut self, wants: &[(f64, f64)], per_sec: f64, floor: Duration, now: Instant) -> bool {
        let next = ration(wants, per_sec, floor);
        let changed = next.is_some() != self.current.is_some();
        (self.current, self.since) = (next, Some(now));
        changed
    }
}

// ---- what is known of when a kind of task finishes

/// Survival below this is "nothing known": the task has outlived its outlook.
const KNOWN: f64 = 1e-4;
/// Grid points over [0, client_timeout].
const GRID: usize = 600;
/// Fewer samples than this and a kind's or a model's history is not used: the next outlook
/// (the model's, then none) is. Likewise an outlook is trusted only at ages with at least this
/// many of its samples still to come: a gap that fewer finishes stand behind (a task in a
/// learned distribution's last stretch, or past stale samples after the service slowed down)
/// is no reason to poll less.
const OUTLOOK_SAMPLES: usize = 10;
/// Kernel width as a share of Silverman's rule, which smooths two modes into one.
const BANDWIDTH_SHARE: f64 = 0.5;
/// The chance of a finish within the next interval given to a task about which nothing is
/// known, to rank it for the budget among tasks with an outlook: a middling one.
const UNKNOWN_LIKELIHOOD: f64 = 0.05;

/// The distribution of a kind of task's total time, on a grid, and where polls are dense.
#[derive(Debug, Clone, PartialEq)]
pub struct Outlook {
    step: f64,
    /// Chance of still running at each grid age; starts at 1.
    survival: Vec<f64>,
    /// Age ranges (s) polled at the shortest interval.
    dense: Vec<(f64, f64)>,
    /// Past this age the outlook knows nothing (survival below `KNOWN`).
    end: f64,
    /// Past this age too few samples are still to come to rule any finish out: polls are
    /// placed by what comes next (`beyond`, or densely).
    trusted: f64,
    /// What takes over past `trusted` (for waits) and `end` (for likelihoods): for a kind, its
    /// model's outlook; for a model, the prior.
    beyond: Option<Arc<Outlook>>,
}

/// Kernel bandwidth for `samples` (a share of Silverman's rule), at least `floor`.
fn bandwidth(sorted: &[f64], floor: f64) -> f64 {
    let n = sorted.len() as f64;
    let mean = sorted.iter().sum::<f64>() / n;
    let sd = (sorted.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt();
    let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q).round() as usize];
    let iqr = (at(0.75) - at(0.25)) / 1.34;
    let spread = if iqr > 0.0 { sd.min(iqr) } else { sd };
    (BANDWIDTH_SHARE * 0.9 * spread * n.powf(-0.2)).max(floor)
}

impl Outlook {
    /// The prior: nothing known, so a finish may come at any age and every age is polled
    /// densely. The spec's "typically 1 to 5 minutes" describes a typical service, not this
    /// one's models or its load today.
    pub fn prior() -> Outlook {
        Outlook { step: 1.0, survival: vec![1.0], dense: Vec::new(), end: 0.0, trusted: 0.0, beyond: None }
    }

    /// From learned total times (seconds), smoothed, when there are enough of them; `beyond`
    /// takes over otherwise, and past what they tell.
    pub fn learned(samples: &[f64], p: &PollPolicy, beyond: Arc<Outlook>) -> Arc<Outlook> {
        let step = p.client_timeout.as_secs_f64().max(1.0) / GRID as f64;
        let mut sorted: Vec<f64> = samples.iter().copied().filter(|x| x.is_finite() && *x >= 0.0).collect();
        if sorted.len() < OUTLOOK_SAMPLES {
            return beyond;
        }
        sorted.sort_by(f64::total_cmp);
        // A logistic kernel (its tail has a closed form) with the standard deviation wanted.
        let scale = bandwidth(&sorted, shortest(p).as_secs_f64()) * 3f64.sqrt() / std::f64::consts::PI;
        let tail = |age: f64| -> f64 {
            sorted.iter().map(|x| 1.0 / (1.0 + ((age - x) / scale).exp())).sum::<f64>() / sorted.len() as f64
        };
        let at_zero = tail(0.0).max(1e-12);
        let survival: Vec<f64> = (0..=GRID).map(|i| (tail(i as f64 * step) / at_zero).min(1.0)).collect();
        let known = survival.iter().position(|s| *s < KNOWN).unwrap_or(GRID);
        // Past the OUTLOOK_SAMPLES-th longest sample, fewer than that are still to come.
        let trusted = known.min((sorted[sorted.len() - OUTLOOK_SAMPLES] / step).floor() as usize);
        let dense = dense_runs(&survival[..=trusted], step, shortest(p).as_secs_f64());
        let (end, trusted) = (known as f64 * step, trusted as f64 * step);
        Arc::new(Outlook { step, survival, dense, end, trusted, beyond: Some(beyond) })
    }

    fn survival(&self, age: f64) -> f64 {
        let x = (age / self.step).max(0.0);
        let i = x.floor() as usize;
        match (self.survival.get(i), self.survival.get(i + 1)) {
            (Some(a), Some(b)) => a + (b - a) * (x - i as f64),
            (Some(a), None) => *a,
            _ => 0.0,
        }
    }

    /// Share of the tasks it describes that have finished by `age`.
    pub fn finished_by(&self, age: Duration) -> f64 {
        1.0 - self.survival(age.as_secs_f64()).clamp(0.0, 1.0)
    }

    /// Chance of finishing within `within` for a task still running at `age`.
    pub fn likelihood(&self, age: Duration, within: Duration) -> f64 {
        let (a, w) = (age.as_secs_f64(), within.as_secs_f64());
        if a >= self.end {
            return self.beyond.as_ref().map_or(UNKNOWN_LIKELIHOOD, |b| b.likelihood(age, within));
        }
        let now = self.survival(a).max(KNOWN);
        ((now - self.survival(a + w)) / now).clamp(0.0, 1.0)
    }

    /// The wait before the next poll of a task still running at `age`: the shortest where a
    /// finish may come, longer only across a gap that enough learned finishes stand behind.
    pub fn wait(&self, age: Duration, p: &PollPolicy) -> Duration {
        let a = age.as_secs_f64();
        let (short, long) = (shortest(p).as_secs_f64(), p.max.as_secs_f64().max(shortest(p).as_secs_f64()));
        if a >= self.trusted {
            // Outlived what is known (or nothing is): the outlook may be wrong, so what comes
            // next decides, and with nothing next, polls are dense.
            return self.beyond.as_ref().map_or(shortest(p), |b| b.wait(age, p));
        }
        let next = self.dense.iter().position(|(_, to)| *to > a);
        let skip = match next.map(|i| self.dense[i]) {
            Some((from, _)) if from <= a => return shortest(p),
            Some((from, _)) => from - a,
            None => self.trusted - a,
        };
        // Past a dense run the waits grow with the time since it ended (each at most that
        // long), so a finish in a learned gap is seen within about its own distance from the
        // likely ones, not at the far end of the gap.
        let since = match next {
            Some(0) => None,
            Some(i) => Some(self.dense[i - 1].1),
            None => self.dense.last().map(|run| run.1),
        };
        let wait = since.map_or(skip, |ended| skip.min(a - ended));
        Duration::from_secs_f64(wait.clamp(short, long))
    }
}

/// The age ranges polled densely: everywhere finishes are known to happen, except the grid
/// cells of lowest hazard (chance of finishing there, for a task still running) holding
/// `LATE_SHARE` of all finishes. Gaps shorter than two dense intervals save nothing and stay
/// dense.
fn dense_runs(survival: &[f64], step: f64, shortest: f64) -> Vec<(f64, f64)> {
    let cells = survival.len().saturating_sub(1);
    let mass = |i: usize| (survival[i] - survival[i + 1]).max(0.0);
    let mut order: Vec<usize> = (0..cells).collect();
    order.sort_by(|a, b| (mass(*a) / survival[*a]).total_cmp(&(mass(*b) / survival[*b])).then(a.cmp(b)));
    let mut sparse = vec![false; cells];
    let mut late = 0.0;
    for i in order {
        if late + mass(i) > LATE_SHARE {
            break;
        }
        late += mass(i);
        sparse[i] = true;
    }
    let mut runs: Vec<(f64, f64)> = Vec::new();
    for (i, is_sparse) in sparse.iter().enumerate() {
        if *is_sparse {
            continue;
        }
        let (from, to) = (i as f64 * step, (i + 1) as f64 * step);
        match runs.last_mut() {
            Some(last) if from - last.1 < 2.0 * shortest => last.1 = to,
            _ => runs.push((from, to)),
        }
    }
    runs
}

// ---- learning

/// What render times are grouped by: the model, and finer when there is enough history.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Kind {
    pub model: String,
    pub seconds: i64,
    pub resolution: String,
}

impl Kind {
    pub fn of(r: &TaskRecord) -> Kind {
        Kind { model: r.model.clone(), seconds: r.seconds, resolution: r.resolution.clone() }
    }
}

/// Samples kept per model and per kind.
const SAMPLES: usize = 50;
/// Fewer samples than this and a model's history gives no estimate of its own.
const MIN_SAMPLES: usize = 3;
/// Kinds remembered; the one recorded least recently is forgotten first.
const KINDS: usize = 64;

/// Total times (seconds, newest first) per model and per kind, learned from history and from
/// this run, with the outlooks made from them.
#[derive(Debug, Clone, Default)]
pub struct RenderStats {
    by_model: HashMap<String, Vec<f64>>,
    /// With the record count when last recorded, to forget the stalest kind.
    by_kind: HashMap<Kind, (u64, Vec<f64>)>,
    recorded: u64,
    /// Outlooks made for `policy`, per kind and per model (`Kind::whole`); a model's are
    /// dropped when its samples change.
    outlooks: HashMap<Kind, Arc<Outlook>>,
    prior: Option<Arc<Outlook>>,
    policy: Option<PollPolicy>,
    /// Per model, newest first: whether each of its last finishes came where its outlook
    /// expected none.
    surprises: HashMap<String, VecDeque<bool>>,
}

/// Of a model's last `SURPRISE_WINDOW` finishes, `SURPRISES` sooner than all but `EARLY` of
/// what was learned mean its history no longer describes it (the service sped up): it is
/// forgotten, and its tasks are polled as on a first run until it is learned again. Three in
/// ten so early happen by chance about once in a thousand finishes. (A service that slows down
/// needs no such rule: a task that outlives what was learned is polled densely anyway.)
const SURPRISE_WINDOW: usize = 10;
const SURPRISES: usize = 3;
const EARLY: f64 = 0.02;

impl Kind {
    /// Stands for every kind of a model.
    fn whole(model: &str) -> Kind {
        Kind { model: model.to_string(), seconds: -1, resolution: String::new() }
    }
}

impl RenderStats {
    pub fn new(by_model: HashMap<String, Vec<f64>>) -> RenderStats {
        RenderStats { by_model, ..RenderStats::default() }
    }

    pub fn record(&mut self, kind: &Kind, seconds: f64) {
        self.recorded += 1;
        let list = self.by_model.entry(kind.model.clone()).or_default();
        list.insert(0, seconds);
        list.truncate(SAMPLES);
        if !self.by_kind.contains_key(kind)
            && self.by_kind.len() >= KINDS
            && let Some(stalest) = self.by_kind.iter().min_by_key(|(_, v)| v.0).map(|(k, _)| k.clone())
        {
            self.by_kind.remove(&stalest);
            self.outlooks.remove(&stalest);
        }
        let (at, list) = self.by_kind.entry(kind.clone()).or_default();
        *at = self.recorded;
        list.insert(0, seconds);
        list.truncate(SAMPLES);
        self.outlooks.retain(|k, _| k.model != kind.model);
    }

    /// Records a finish of a task of `kind` after `seconds` in all, as [`record`] does, and
    /// says whether the model's history was forgotten first because its finishes keep coming
    /// sooner than what was learned (see `SURPRISES`).
    ///
    /// [`record`]: RenderStats::record
    pub fn learn(&mut self, kind: &Kind, seconds: f64, policy: &PollPolicy) -> bool {
        let learned = self.by_model.get(&kind.model).is_some_and(|l| l.len() >= OUTLOOK_SAMPLES);
        let at = Duration::from_secs_f64(seconds.max(0.0));
        let unexpected = learned && self.outlook(&Kind::whole(&kind.model), policy).finished_by(at) < EARLY;
        let window = self.surprises.entry(kind.model.clone()).or_default();
        window.push_front(unexpected);
        window.truncate(SURPRISE_WINDOW);
        let forget = window.iter().filter(|s| **s).count() >= SURPRISES;
        if forget {
            window.clear();
            self.by_model.remove(&kind.model);
            self.by_kind.retain(|k, _| k.model != kind.model);
        }
        self.record(kind, seconds);
        forget
    }

    pub fn quantile(&self, model: &str, q: f64) -> Option<Duration> {
        let list = self.by_model.get(model).filter(|l| l.len() >= MIN_SAMPLES)?;
        let mut sorted = list.clone();
        sorted.sort_by(f64::total_cmp);
        let idx = ((sorted.len() - 1) as f64 * q.clamp(0.0, 1.0)).round() as usize;
        Some(Duration::from_secs_f64(sorted[idx]))
    }

    /// Typical render time: the median.
    pub fn expected(&self, model: &str) -> Option<Duration> {
        self.quantile(model, 0.5)
    }

    /// The outlook for a kind of task under `policy`: its own history when there is enough,
    /// then its model's, then the prior (dense polling), each taking over where the one before
    /// knows nothing (as for tasks still running past every finish seen so far).
    pub fn outlook(&mut self, kind: &Kind, policy: &PollPolicy) -> Arc<Outlook> {
        if self.policy != Some(*policy) {
            self.outlooks.clear();
            self.prior = None;
            self.policy = Some(*policy);
        }
        if let Some(o) = self.outlooks.get(kind) {
            return o.clone();
        }
        let prior = self.prior.get_or_insert_with(|| Arc::new(Outlook::prior())).clone();
        let whole = Kind::whole(&kind.model);
        let model = match self.outlooks.get(&whole) {
            Some(o) => o.clone(),
            None => {
                let samples = self.by_model.get(&kind.model).map_or(&[][..], Vec::as_slice);
                let o = Outlook::learned(samples, policy, prior);
                self.outlooks.insert(whole, o.clone());
                o
            }
        };
        let samples = self.by_kind.get(kind).map_or(&[][..], |(_, l)| l.as_slice());
        let own = Outlook::learned(samples, policy, model);
        self.outlooks.insert(kind.clone(), own.clone());
        own
    }
}

#[cfg(test)]
#[path = "schedule_tests.rs"]
mod tests;
