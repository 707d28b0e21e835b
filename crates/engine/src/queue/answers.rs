//! What each answer (a submission's, a poll's, a download's) does to the queue: the health it
//! tells of, the task's next state and what it waits for next.

use super::*;
use crate::key_scope::{self, Scope};

impl Queue {
    /// Whom a refused key concerns, for an answer about a task of `model` (see `key_scope`), and
    /// the model's last outcome noted.
    fn key_scope(&mut self, result: &Result<VideoTask, ApiError>, submitting: bool, id: i64) -> Option<Scope> {
        let model = self.tasks.get(&id)?.record.model.clone();
        let scope = match result {
            Ok(_) => None,
            Err(e) => {
                let others_work = self.models_ok.iter().any(|(m, ok)| *ok && *m != model);
                key_scope::scope(e, submitting, &model, others_work)
            }
        };
        if result.is_ok() || scope.is_some() {
            self.models_ok.insert(model, result.is_ok());
        }
        scope
    }

    fn note_health(&mut self, result: &Result<VideoTask, ApiError>, submitting: bool, scope: Option<Scope>, now: Now) {
        if scope == Some(Scope::Model) {
            // One model's refusal: the service and the others' work are fine.
            return;
        }
        match result {
            Ok(_) => {
                if self.health.success((now.at, now.ms)).is_some() {
                    // The service answers again: what waited for it goes now, not at its
                    // backed-off time.
                    let waiting: Vec<i64> =
                        self.tasks.iter().filter(|(_, t)| t.job == Job::Send && !t.busy).map(|(id, _)| *id).collect();
                    for id in waiting {
                        self.schedule(id, Job::Send, now.at);
                    }
                }
            }
            Err(e) => {
                let jitter = self.rng.f64();
                if let Some(before) = self.health.failure(e, submitting, (now.at, now.ms), &self.limits.policy, jitter)
                {
                    tracing::warn!(from = %before, to = %self.health.health(), "service health changed");
                }
            }
        }
    }

    /// The answer to a POST. `duplicate_of` is another task that already has the id the
    /// service answered with, if one does.
    pub fn sent(&mut self, id: i64, result: &Result<VideoTask, ApiError>, duplicate_of: Option<i64>, now: Now) -> Plan {
        self.api_in_flight -= 1;
        let scope = self.key_scope(result, true, id);
        self.note_health(result, true, scope, now);
        let Some(t) = self.tasks.get_mut(&id) else { return Plan::default() };
        t.busy = false;
        if let Err(e) = result
            && transition::safe_to_resend(e)
            && !matches!(e, ApiError::RateLimited { .. })
        {
            t.send_failures += 1;
        }
        if scope.is_some() {
            t.key_refusals += 1;
        }
        let (record, attempts, refusals) = (t.record.clone(), t.send_failures, t.key_refusals);
        let ctx = self.ctx(&record, now);
        let step = match (result, duplicate_of, scope) {
            (Ok(task), Some(other), _) => transition::duplicate_id(&record, &task.id, other, &ctx),
            (Err(e), _, Some(scope)) => key_scope::after_refused_send(&record, e, scope, refusals, &ctx),
            _ => transition::after_submit(&record, result, attempts, &ctx),
        };
        let retry = retry_of(id, &step.next, result.as_ref().err());
        Plan { retry, ..self.apply(id, step, now) }
    }

    /// The answer to a poll.
    pub fn polled(&mut self, id: i64, result: &Result<VideoTask, ApiError>, now: Now) -> Plan {
        self.api_in_flight -= 1;
        let scope = self.key_scope(result, false, id);
        self.note_health(result, false, scope, now);
        let Some(t) = self.tasks.get_mut(&id) else { return Plan::default() };
        t.busy = false;
        let (record, on_disk) = (t.record.clone(), t.on_disk);
        let ctx = self.ctx(&record, now);
        let step = match (result, scope) {
            (Err(e), Some(Scope::Model)) => key_scope::after_refused_poll(&record, e, &ctx),
            _ => transition::after_poll(&record, result, &ctx),
        };
        let step = keep_saved::keep_saved(&record, step, on_disk);
        if step.record.state == LocalState::Completed
            && record.state != LocalState::Completed
            && let (Some(c), Some(d)) = (step.record.remote_created_at, step.record.remote_completed_at)
        {
            let kind = Kind::of(&step.record);
            if self.stats.learn(&kind, (d - c).max(0) as f64, &self.limits.policy) {
                // The outlook that planned the model's other polls was wrong: plan them again.
                tracing::info!(model = %kind.model, "render times changed; polling them as on a first run");
                let waiting: Vec<i64> = self
                    .tasks
                    .iter()
                    .filter(|(other, t)| **other != id && t.job == Job::Poll && !t.busy && t.record.model == kind.model)
                    .map(|(other, _)| *other)
                    .collect();
                for other in waiting {
                    self.schedule(other, Job::Poll, now.at);
                }
            }
        }
        let retry = retry_of(id, &step.next, result.as_ref().err());
        Plan { retry, ..self.apply(id, step, now) }
    }

    /// The end of a download attempt.
    pub fn fetched(&mut self, id: i64, result: &Result<Saved, FetchError>, now: Now) -> Plan {
        self.downloads_running -= 1;
        let Some(t) = self.tasks.get_mut(&id) else { return Plan::default() };
        t.busy = false;
        let (record, on_disk) = (t.record.clone(), t.on_disk);
        let ctx = self.ctx(&record, now);
        let step = transition::after_download(&record, result, self.limits.download_attempts, &ctx);
        let step = keep_saved::keep_saved(&record, step, on_disk);
        let saved = step.record.state == LocalState::Downloaded;
        let retry = retry_of(id, &step.next, result.as_ref().err());
        let mut plan = Plan { retry, ..self.apply(id, step, now) };
        if saved && let Some(w) = plan.writes.first_mut() {
            w.sidecar = true;
        }
        plan
    }

    fn apply(&mut self, id: i64, step: Step, now: Now) -> Plan {
        let mut record = step.record;
        record.next_poll_at = match step.next {
            Next::Poll(d) => Some(now.ms + d.as_millis() as i64),
            _ => None,
        };
        // Most polls of a long render change nothing anyone sees: keep their bookkeeping
        // (poll count, times) in memory rather than writing and announcing every one.
        let changed = step.event.is_some() || self.tasks.get(&id).is_none_or(|t| visibly_changed(&t.record, &record));
        let mut plan = Plan::default();
        if changed {
            plan.writes.push(Write { record: record.clone(), event: step.event, sidecar: false });
        }
        if let Some(t) = self.tasks.get_mut(&id) {
            t.record = record;
        }
        match step.next {
            Next::Poll(d) => self.schedule(id, Job::Poll, now.at + d),
            Next::Resend(d) => self.schedule(id, Job::Send, now.at + d),
            Next::Download => self.schedule(id, Job::Download, now.at),
            Next::RetryDownload(d) => self.schedule(id, Job::Download, now.at + d),
            Next::Stop => self.untrack(id),
        }
        plan
    }
}
