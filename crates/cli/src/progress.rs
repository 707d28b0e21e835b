//! Live progress of a headless command: on a terminal, indicatif bars on standard error (one per
//! task, or one for the whole lot when there are many), with every message printed above them;
//! piped, one plain line per change of state.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::time::{Duration, Instant};

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::output::note;
use reel_engine::media::storage::Progress;
use reel_engine::media::uploads::progress_line;
use reel_engine::{Event, Health, ServiceState, TaskUpdate};
use reel_rules::text::{clean, clock, fit, one_line, size};
use reel_store::{LocalState, TaskRecord};

#[derive(Debug, Clone, Copy, PartialEq)]
struct Transfer {
    bytes: u64,
    total: Option<u64>,
    rate: f64,
}

/// One task's line.
fn line(t: &TaskRecord, eta_ms: Option<i64>, transfer: Option<&Transfer>, now_ms: i64) -> String {
    format!("{:>5}  {}", t.id, columns(t, eta_ms, transfer, now_ms))
}

/// How far along a task is, in percent: its render, then its download.
fn percent(t: &TaskRecord, transfer: Option<&Transfer>) -> u64 {
    let done = match t.state {
        LocalState::Downloaded | LocalState::Completed => 100.0,
        LocalState::Downloading => {
            transfer.and_then(|x| Some(100.0 * x.bytes as f64 / x.total.filter(|&n| n > 0)? as f64)).unwrap_or(0.0)
        }
        _ => t.progress.unwrap_or(0.0),
    };
    done.clamp(0.0, 100.0) as u64
}

/// A task's line after its id: service id, state, detail.
fn columns(t: &TaskRecord, eta_ms: Option<i64>, transfer: Option<&Transfer>, now_ms: i64) -> String {
    let remote = t.remote_id.as_deref().map(|r| fit(r, 30)).unwrap_or_else(|| "-".into());
    let state = match (t.state, &t.remote_status) {
        (LocalState::Unrecognized, Some(s)) => format!("status \"{}\"", fit(s, 20)),
        (s, _) => s.to_string(),
    };
    let detail = match t.state {
        LocalState::Queued | LocalState::InProgress | LocalState::Stalled | LocalState::Unrecognized => {
            let mut parts = Vec::new();
            if let Some(p) = t.progress {
                parts.push(format!("{p:.0}%"));
            }
            parts.push(format!("elapsed {}", clock((now_ms - t.submitted_at.unwrap_or(t.created_at)) / 1000)));
            if let Some(eta) = eta_ms {
                parts.push(format!("eta {}", clock((eta - now_ms) / 1000)));
            }
            parts.join("  ")
        }
        LocalState::Downloading => match transfer {
            Some(x) => format!("{} of {}  {}/s", size(x.bytes), x.total.map_or("?".into(), size), size(x.rate as u64)),
            None => String::new(),
        },
        LocalState::Downloaded => t.file_path.as_deref().map(|p| fit(p, 80)).unwrap_or_default(),
        _ => t.error.as_ref().and_then(reel_api::types::message_of).map(|m| fit(&m, 80)).unwrap_or_default(),
    };
    format!("{:<30}  {:<15}  {}", remote, state, detail).trim_end().to_string()
}

/// Beyond this many tasks one bar stands for them all: a block taller than the terminal
/// cannot be redrawn in place.
const BARS_AT_MOST: usize = 12;

/// What is drawn on a terminal. indicatif redraws the block in place and prints messages above
/// it, so nothing piles up or is drawn over, whatever the terminal's width.
struct Bars {
    multi: MultiProgress,
    /// One bar per task, or none when `all` stands for them.
    tasks: HashMap<i64, ProgressBar>,
    all: Option<ProgressBar>,
    /// The service's trouble, while there is some.
    service: Option<ProgressBar>,
}

fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar())
}

impl Bars {
    fn new<'a>(tasks: impl Iterator<Item = &'a TaskRecord>, count: usize) -> Bars {
        let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr_with_hz(10));
        let task_style = style("{prefix:>5} {bar:16} {wide_msg}");
        let mut bars = Bars { multi, tasks: HashMap::new(), all: None, service: None };
        if count > BARS_AT_MOST {
            let bar = ProgressBar::new(count as u64).with_style(style("{pos}/{len} settled {bar:24} {wide_msg}"));
            bars.all = Some(bars.multi.add(bar));
        } else {
            for t in tasks {
                let bar = ProgressBar::new(100).with_style(task_style.clone()).with_prefix(t.id.to_string());
                bars.tasks.insert(t.id, bars.multi.add(bar));
            }
        }
        bars
    }
}

pub struct Board {
    tty: bool,
    tasks: BTreeMap<i64, (TaskRecord, Option<i64>)>,
    transfers: HashMap<i64, Transfer>,
    /// `None` when not on a terminal.
    bars: Option<Bars>,
    last_draw: Option<Instant>,
    pub service: ServiceState,
    pub saw_unreachable: bool,
}

impl Board {
    pub fn new(tty: bool, tasks: impl IntoIterator<Item = TaskRecord>) -> Board {
        let tasks: BTreeMap<i64, (TaskRecord, Option<i64>)> = tasks.into_iter().map(|t| (t.id, (t, None))).collect();
        let bars = tty.then(|| Bars::new(tasks.values().map(|(t, _)| t), tasks.len()));
        Board {
            tty,
            tasks,
            transfers: HashMap::new(),
            bars,
            last_draw: None,
            service: ServiceState::default(),
            saw_unreachable: false,
        }
    }

    pub fn records(&self) -> Vec<TaskRecord> {
        self.tasks.values().map(|(t, _)| t.clone()).collect()
    }

    /// Done when every task is settled. A stalled task is not: it is still checked, and may
    /// yet finish.
    /// The service refused the API key and no send is in flight: nothing more is sent until
    /// reel runs with a working key.
    pub fn key_refused(&self) -> bool {
        self.service.health == Health::KeyRefused && self.none_in_flight()
    }

    /// The service cannot be reached now and no send is in flight.
    pub fn unreachable(&self) -> bool {
        self.service.health == Health::Unreachable && self.none_in_flight()
    }

    fn none_in_flight(&self) -> bool {
        self.tasks.values().all(|(t, _)| t.state != LocalState::Submitting)
    }

    /// Why tasks still wait to be sent, and what becomes of them, if any do.
    pub fn why_waiting(&self) -> Option<String> {
        let waiting = self.tasks.values().filter(|(t, _)| t.state.is_sending()).count();
        if waiting == 0 || !(self.key_refused() || self.unreachable()) {
            return None;
        }
        let n = if waiting == 1 { "1 task waits".to_string() } else { format!("{waiting} tasks wait") };
        let detail = self.service.detail.clone().unwrap_or_else(|| self.service.health.to_string());
        Some(if self.key_refused() {
            format!("{detail}; {n} to be sent, and will go once reel runs with a working key")
        } else {
            format!("{detail}; {n} to be sent, and will go when the service answers (`reel wait` follows them)")
        })
    }

    /// Every task is sent, or waits for a reason the engine said (a model's refused key): none
    /// is only queued behind others.
    pub fn sent_or_held(&self) -> bool {
        self.tasks.values().all(|(t, _)| !t.state.is_sending() || (t.state == LocalState::Waiting && t.error.is_some()))
    }

    pub fn done(&self) -> bool {
        self.tasks.values().all(|(t, _)| t.state.is_settled())
    }

    /// Applies an event; returns the plain lines to print when not on a terminal.
    pub fn apply(&mut self, event: &Event) -> Vec<String> {
        let now = reel_engine::now_ms();
        match event {
            Event::Task(u) => return self.task(u, now).into_iter().collect(),
            Event::Tasks(us) => return us.iter().filter_map(|u| self.task(u, now)).collect(),
            // The follower asks the engine for its tasks again (see [`Board::catch_up`]).
            Event::Missed => {}
            Event::Transfer { id, bytes, total, rate } => {
                self.transfers.insert(*id, Transfer { bytes: *bytes, total: *total, rate: *rate });
            }
            Event::Service(s) => {
                let mut said: Vec<String> = Vec::new();
                // A pause for room is said once when it begins and once when it ends.
                match (&self.service.disk, &s.disk) {
                    (None, Some(disk)) => said.push(disk.summary()),
                    (Some(_), None) => said.push("resumed: the disk has room again".to_string()),
                    _ => {}
                }
                said.extend((s.health != self.service.health).then(|| format!("service: {}", s.service_summary(now))));
                self.saw_unreachable |= matches!(s.health, Health::Unreachable | Health::KeyRefused);
                self.service = s.clone();
                // A new pause of the same health is drawn live on a terminal, not printed again.
                return said;
            }
            Event::Trouble(message) => return vec![format!("problem: {}", one_line(message))],
        }
        Vec::new()
    }

    /// A task changed: the line to print when not on a terminal, if its state did.
    fn task(&mut self, update: &TaskUpdate, now: i64) -> Option<String> {
        let TaskUpdate { record, eta_ms } = update;
        let (old, eta) = self.tasks.get_mut(&record.id)?;
        let changed = old.state != record.state;
        *old = record.clone();
        *eta = *eta_ms;
        (changed && !self.tty).then(|| line(record, *eta_ms, None, now))
    }

    /// The tasks followed, by id.
    pub fn ids(&self) -> Vec<i64> {
        self.tasks.keys().copied().collect()
    }

    /// The tasks as the engine has them now, after events were missed; the lines to print.
    pub fn catch_up(&mut self, records: Vec<TaskRecord>) -> Vec<String> {
        let now = reel_engine::now_ms();
        records.into_iter().filter_map(|record| self.task(&TaskUpdate { record, eta_ms: None }, now)).collect()
    }

    /// Updates the bars on a terminal from the tasks, at most ten times a second (indicatif
    /// draws them at its own pace).
    pub fn draw(&mut self, force: bool) {
        let Some(bars) = &mut self.bars else { return };
        if !force && self.last_draw.is_some_and(|t| t.elapsed() < Duration::from_millis(100)) {
            return;
        }
        let now = reel_engine::now_ms();
        for (t, eta) in self.tasks.values() {
            if let Some(bar) = bars.tasks.get(&t.id) {
                let transfer = self.transfers.get(&t.id);
                bar.set_position(percent(t, transfer));
                bar.set_message(columns(t, *eta, transfer, now));
            }
        }
        if let Some(all) = &bars.all {
            all.set_position(self.tasks.values().filter(|(t, _)| t.state.is_settled()).count() as u64);
            all.set_message(tally(self.tasks.values().map(|(t, _)| t.state)));
        }
        let trouble = self.service.health != Health::Ok
            || self.service.paused_until_ms.is_some_and(|u| u > now)
            || self.service.disk.is_some();
        match (&bars.service, trouble) {
            (Some(bar), true) => bar.set_message(service_line(&self.service, now)),
            (Some(bar), false) => {
                bars.multi.remove(bar);
                bar.finish_and_clear();
                bars.service = None;
            }
            (None, true) => {
                // Added before any message: a bar outside the block would draw on its own.
                let bar = bars.multi.add(ProgressBar::new_spinner().with_style(style("{wide_msg}")));
                bar.set_message(service_line(&self.service, now));
                bars.service = Some(bar);
            }
            (None, false) => {}
        }
        self.last_draw = Some(Instant::now());
    }

    /// A message: above the bars on a terminal, a plain line otherwise.
    pub fn say(&self, message: &str) {
        let message = one_line(message);
        match &self.bars {
            Some(bars) => {
                let _ = bars.multi.println(message);
            }
            None => {
                let _ = writeln!(std::io::stderr(), "{message}");
            }
        }
    }

    /// The end of the live view: the bars in their last state, or none at all when the results
    /// are about to be printed on the same terminal (once is enough).
    pub fn end(&mut self, results_follow_here: bool) {
        self.draw(true);
        let Some(bars) = self.bars.take() else { return };
        let every = bars.tasks.values().chain(&bars.all).chain(&bars.service);
        if results_follow_here {
            every.for_each(ProgressBar::finish_and_clear);
            let _ = bars.multi.clear();
        } else {
            every.for_each(ProgressBar::abandon);
        }
    }
}

/// The uploads of a submission's local files: on a terminal a bar per large file, left in its
/// last state; otherwise the plain lines of [`progress_line`].
pub struct UploadBars {
    multi: Option<MultiProgress>,
    bars: HashMap<usize, ProgressBar>,
}

impl UploadBars {
    pub fn new(tty: bool) -> UploadBars {
        let multi = tty.then(|| MultiProgress::with_draw_target(ProgressDrawTarget::stderr_with_hz(10)));
        UploadBars { multi, bars: HashMap::new() }
    }

    pub fn show(&mut self, index: usize, path: &std::path::Path, p: Progress) {
        // Small files go up in a moment: no line, no bar.
        let Some(line) = progress_line(index, path, p) else { return };
        let Some(multi) = &self.multi else { return note(&line) };
        let bar = self.bars.entry(index).or_insert_with(|| {
            let bar = multi.add(ProgressBar::new(p.total));
            bar.set_style(style("{msg} {bar:24} {decimal_bytes}/{decimal_total_bytes} {decimal_bytes_per_sec}"));
            bar.set_message(format!(
                "uploading media item {} ({})",
                index + 1,
                fit(&clean(&path.display().to_string()), 40)
            ));
            bar
        });
        bar.set_position(p.sent);
    }

    pub fn end(self) {
        self.bars.values().for_each(ProgressBar::abandon);
    }
}

/// A file fetched from an engine on another machine: a bar on a terminal, else a line at
/// each quarter.
pub struct FetchBar {
    bar: Option<ProgressBar>,
    what: String,
    quarter: u64,
}

impl FetchBar {
    pub fn new(tty: bool, what: String) -> FetchBar {
        let bar = tty.then(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr_with_hz(10));
            bar.set_style(style("{msg} {bar:24} {decimal_bytes}/{decimal_total_bytes} {decimal_bytes_per_sec}"));
            bar.set_message(what.clone());
            bar
        });
        FetchBar { bar, what, quarter: 0 }
    }

    pub fn show(&mut self, done: u64, total: u64) {
        match &self.bar {
            Some(bar) => {
                bar.set_length(total);
                bar.set_position(done);
            }
            None => {
                let quarter = (done.saturating_mul(4)).checked_div(total).unwrap_or(4);
                if quarter > self.quarter {
                    self.quarter = quarter;
                    note(&format!("{}: {} of {}", self.what, size(done), size(total)));
                }
            }
        }
    }

    pub fn end(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}

/// How many tasks are in each state, the most frequent first.
fn tally(states: impl Iterator<Item = LocalState>) -> String {
    let mut counts: BTreeMap<&'static str, usize> = BTreeMap::new();
    for s in states {
        *counts.entry(s.as_str()).or_default() += 1;
    }
    let mut counts: Vec<_> = counts.into_iter().collect();
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    counts.iter().map(|(s, n)| format!("{n} {s}")).collect::<Vec<_>>().join(", ")
}

/// The live line of what holds the work: the disk's pause, then the service.
fn service_line(s: &reel_engine::ServiceState, now: i64) -> String {
    match &s.disk {
        Some(_) => s.summary(now),
        None => format!("service: {}", s.summary(now)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_name_id_state_and_detail() {
        let mut t = reel_store::fixtures::record(1, LocalState::Queued);
        t.state = LocalState::InProgress;
        t.remote_id = Some("task_\u{1b}[2Jx".into());
        t.progress = Some(42.0);
        t.submitted_at = Some(0);
        let l = line(&t, Some(90_000), None, 30_000);
        assert!(
            l.contains("in_progress") && l.contains("42%") && l.contains("elapsed 0:30") && l.contains("eta 1:00"),
            "{l}"
        );
        assert!(!l.contains('\u{1b}'), "no escape from the server reaches the terminal");
        t.state = LocalState::Downloading;
        let l = line(&t, None, Some(&Transfer { bytes: 1_500_000, total: Some(3_000_000), rate: 2_000_000.0 }), 0);
        assert!(l.contains("1.5 MB of 3.0 MB  2.0 MB/s"), "{l}");
    }

    #[test]
    fn the_bar_follows_the_render_then_the_download() {
        let at = |state, progress: Option<f64>, transfer: Option<Transfer>| {
            let mut t = reel_store::fixtures::record(1, state);
            t.progress = progress;
            percent(&t, transfer.as_ref())
        };
        let half = Transfer { bytes: 50, total: Some(100), rate: 1.0 };
        let unknown = Transfer { bytes: 50, total: None, rate: 1.0 };
        let cases = [
            (at(LocalState::Waiting, None, None), 0),
            (at(LocalState::InProgress, Some(42.7), None), 42),
            (at(LocalState::InProgress, Some(250.0), None), 100),
            (at(LocalState::InProgress, Some(f64::NAN), None), 0),
            (at(LocalState::Downloading, Some(100.0), Some(half)), 50),
            (at(LocalState::Downloading, Some(100.0), Some(unknown)), 0),
            (at(LocalState::Downloaded, None, None), 100),
        ];
        for (i, (got, want)) in cases.into_iter().enumerate() {
            assert_eq!(got, want, "case {i}");
        }
    }

    #[test]
    fn many_tasks_are_tallied_by_state_most_first() {
        use LocalState::*;
        assert_eq!(tally([Queued, Downloaded, Queued, Failed].into_iter()), "2 queued, 1 downloaded, 1 failed");
        assert_eq!(tally(std::iter::empty()), "");
    }

    #[test]
    fn a_send_stops_being_followed_once_every_task_is_sent_or_held() {
        use reel_store::fixtures::record;
        let held = || {
            let mut r = record(2, LocalState::Waiting);
            r.error = Some(serde_json::json!({"message": "not sent: the service refused the key for model m"}));
            r
        };
        let cases = [
            (vec![record(1, LocalState::Queued), record(2, LocalState::Waiting)], false, "one not sent yet"),
            (vec![record(1, LocalState::Queued), record(2, LocalState::Submitting)], false, "one in flight"),
            (vec![record(1, LocalState::Queued), held()], true, "one held for its model's key"),
            (vec![record(1, LocalState::Rejected), record(2, LocalState::InProgress)], true, "all sent or refused"),
        ];
        for (records, want, name) in cases {
            assert_eq!(Board::new(false, records).sent_or_held(), want, "{name}");
        }
    }

    #[test]
    fn a_batch_event_and_a_catch_up_move_the_tasks_followed_and_only_those() {
        use reel_store::fixtures::record;
        let mut b = Board::new(false, [record(1, LocalState::Waiting), record(2, LocalState::Waiting)]);
        let update = |id, state| TaskUpdate { record: record(id, state), eta_ms: None };
        let lines = b.apply(&Event::Tasks(vec![update(1, LocalState::Queued), update(7, LocalState::Queued)]));
        assert_eq!(lines.len(), 1, "task 7 is not followed: {lines:?}");
        assert!(b.apply(&Event::Missed).is_empty(), "the follower asks the engine instead");
        assert_eq!(b.ids(), vec![1, 2]);
        let lines = b.catch_up(vec![record(1, LocalState::Queued), record(2, LocalState::Downloaded)]);
        assert_eq!(lines.len(), 1, "only task 2 changed: {lines:?}");
        assert!(lines[0].contains("downloaded"), "{lines:?}");
        assert_eq!(
            b.records().iter().map(|r| r.state).collect::<Vec<_>>(),
            [LocalState::Queued, LocalState::Downloaded]
        );
    }
}
