//! Live progress of a headless command: on a terminal, one line per task redrawn in place;
//! piped, one plain line per change of state.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::time::{Duration, Instant};

use crate::engine::{Event, Health, ServiceState, TaskUpdate};
use crate::store::{LocalState, TaskRecord};
use crate::text::{clock, fit, one_line, size};

#[derive(Debug, Clone, Copy, PartialEq)]
struct Transfer {
    bytes: u64,
    total: Option<u64>,
    rate: f64,
}

/// One task's line.
fn line(t: &TaskRecord, eta_ms: Option<i64>, transfer: Option<&Transfer>, now_ms: i64) -> String {
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
        _ => t.error.as_ref().and_then(crate::api::types::message_of).map(|m| fit(&m, 80)).unwrap_or_default(),
    };
    format!("{:>5}  {:<30}  {:<15}  {}", t.id, remote, state, detail).trim_end().to_string()
}

pub struct Board {
    tty: bool,
    tasks: BTreeMap<i64, (TaskRecord, Option<i64>)>,
    transfers: HashMap<i64, Transfer>,
    drawn: usize,
    last_draw: Option<Instant>,
    pub service: ServiceState,
    pub saw_unreachable: bool,
}

impl Board {
    pub fn new(tty: bool, tasks: impl IntoIterator<Item = TaskRecord>) -> Board {
        Board {
            tty,
            tasks: tasks.into_iter().map(|t| (t.id, (t, None))).collect(),
            transfers: HashMap::new(),
            drawn: 0,
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

    pub fn done(&self) -> bool {
        self.tasks.values().all(|(t, _)| t.state.is_settled())
    }

    /// Applies an event; returns the plain lines to print when not on a terminal.
    pub fn apply(&mut self, event: &Event) -> Vec<String> {
        let now = crate::engine::now_ms();
        match event {
            Event::Task(u) => {
                let TaskUpdate { record, eta_ms } = u.as_ref();
                let Some((old, eta)) = self.tasks.get_mut(&record.id) else { return Vec::new() };
                let changed = old.state != record.state;
                *old = record.clone();
                *eta = *eta_ms;
                if changed && !self.tty {
                    return vec![line(record, *eta_ms, None, now)];
                }
            }
            Event::Transfer { id, bytes, total, rate } => {
                self.transfers.insert(*id, Transfer { bytes: *bytes, total: *total, rate: *rate });
            }
            Event::Service(s) => {
                let said = (s.health != self.service.health).then(|| format!("service: {}", s.summary(now)));
                self.saw_unreachable |= matches!(s.health, Health::Unreachable | Health::KeyRefused);
                self.service = s.clone();
                // A new pause of the same health is drawn live on a terminal, not printed again.
                return said.into_iter().collect();
            }
            Event::Trouble(message) => return vec![format!("problem: {}", one_line(message))],
        }
        Vec::new()
    }

    /// Redraws the block of lines on a terminal, at most ten times a second.
    pub fn draw(&mut self, out: &mut impl Write, force: bool) -> std::io::Result<()> {
        if !self.tty || (!force && self.last_draw.is_some_and(|t| t.elapsed() < Duration::from_millis(100))) {
            return Ok(());
        }
        let now = crate::engine::now_ms();
        if self.drawn > 0 {
            write!(out, "\x1b[{}A", self.drawn)?;
        }
        let mut lines: Vec<String> =
            self.tasks.values().map(|(t, eta)| line(t, *eta, self.transfers.get(&t.id), now)).collect();
        if self.service.health != Health::Ok || self.service.paused_until_ms.is_some_and(|u| u > now) {
            lines.push(format!("service: {}", self.service.summary(now)));
        }
        for l in &lines {
            writeln!(out, "\x1b[2K{l}")?;
        }
        self.drawn = lines.len();
        self.last_draw = Some(Instant::now());
        out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_name_id_state_and_detail() {
        let mut t = crate::store::fixtures::record(1, LocalState::Queued);
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
}
