//! The engine's answer to a submission: validate every part again with the engine's rules,
//! then, in one store transaction, read what today holds, decide ([`admission::admit`]) and
//! journal the admitted tasks. The store has one writer, so two submissions from any clients
//! are admitted one after the other, each seeing the other's rows.

use rusqlite::Connection;

use super::admission::{self, Admitted, Ask, Candidate, Limits, Sender, Today};
use super::calls::{Submission, Submitted};
use super::journal::{self, Origin};
use super::ledger;
use super::queue::Job;
use super::run::{Runner, now};
use super::{EngineError, Refused};
use reel_rules::{Catalog, MediaKind, UnknownModels, ValidSubmission, validate};
use reel_store::tasks::{self, NewTask};
use reel_store::{StoreError, TaskRecord, admitted, history, since};

/// The tag every task an agent sends carries: `agent-NAME`.
pub const AGENT_PREFIX: &str = "agent-";

impl Runner {
    pub(super) async fn submit(&mut self, submission: Submission) -> Result<Submitted, EngineError> {
        let valid = validated(&submission, &self.cfg.catalog)?;
        // Uploads happen in the client that holds the storage credentials; a path never
        // reaches the service, whichever client forgot.
        for part in &valid {
            if let Some(i) = part.0.media.iter().position(|m| m.awaits_upload()) {
                return Err(Refused::NotUploaded { item: i + 1 }.into());
            }
        }
        let now = now();
        let service = self.queue.service(now);
        if service.refuses_sends() && !submission.dry_run {
            // Journaling it would only add tasks that wait for a key nobody has given yet.
            let detail = service.detail.unwrap_or_else(|| "the service refused the API key".into());
            return Err(Refused::KeyRefused { detail }.into());
        }
        let pricing = &self.cfg.limits.pricing;
        let candidates: Vec<Candidate> = valid
            .iter()
            .map(|(v, count, _)| Candidate {
                key: reel_rules::batch::key::content_key(v),
                count: *count,
                each: pricing.quote(std::slice::from_ref(v), 1),
            })
            .collect();
        let origin = Origin {
            parent_id: None,
            idempotency_key: String::new(),
            profile: self.cfg.profile.clone(),
            base_url: self.client.base_url().to_string(),
            created_at: now.ms,
        };
        let job = Journaling {
            limits: self.cfg.limits.clone(),
            catalog: self.cfg.catalog.clone(),
            sender: submission.sender.clone(),
            over_budget: submission.over_budget,
            resume: submission.resume,
            retry_failed: submission.retry_failed,
            dry_run: submission.dry_run,
            today_from: super::query::start_of_today(),
            valid,
            candidates,
            origin,
        };
        let (admitted, records) = self.store.write(move |c| job.run(c)).await?.map_err(Refused::Limit)?;
        let submitted = Submitted {
            admitted: admitted.tasks(),
            left_out: admitted.left_out,
            quote: admitted.quote,
            tasks: records,
        };
        if submission.dry_run {
            return Ok(submitted);
        }
        let batch = submitted.tasks.first().and_then(|r| r.batch_id);
        tracing::info!(count = submitted.tasks.len(), left_out = admitted.left_out, batch, sender = ?submission.sender, "admitted and journaled new tasks");
        self.emit_all(&submitted.tasks);
        for r in &submitted.tasks {
            self.queue.track(r.clone(), Job::Send, now.at);
        }
        Ok(submitted)
    }
}

/// Every part validated with the engine's catalog: (submission, copies, parent).
fn validated(s: &Submission, catalog: &Catalog) -> Result<Vec<(ValidSubmission, u32, Option<i64>)>, Refused> {
    let several = s.parts.len() > 1;
    s.parts
        .iter()
        .enumerate()
        .map(|(i, p)| match validate(&p.draft, catalog, UnknownModels::Warn) {
            Ok(v) => Ok((v, p.count.max(1), p.parent)),
            Err(invalid) => Err(Refused::invalid(several.then_some(i + 1), &invalid)),
        })
        .collect()
}

/// What one admission needs inside the store's writer thread.
struct Journaling {
    limits: Limits,
    catalog: Catalog,
    sender: Sender,
    over_budget: bool,
    resume: bool,
    retry_failed: bool,
    dry_run: bool,
    /// Start of today (Unix ms, local time): the day the daily limits count.
    today_from: i64,
    valid: Vec<(ValidSubmission, u32, Option<i64>)>,
    candidates: Vec<Candidate>,
    origin: Origin,
}

type Decided = Result<(Admitted, Vec<TaskRecord>), admission::Limit>;

impl Journaling {
    /// Reads today, decides and journals, all in one transaction: all or nothing.
    fn run(self, c: &mut Connection) -> Result<Decided, StoreError> {
        // The write lock first: a read that later wants to write cannot wait for another
        // connection's lock (a second engine process starting up, about to lose the race).
        let tx = c.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let keys: Vec<&str> = self.candidates.iter().map(|c| c.key.as_str()).collect();
        let existing = admitted::row_key_tallies(&tx, &keys)?;
        let today = today(&tx, self.today_from, &self.limits, &self.catalog)?;
        let ask = Ask {
            sender: &self.sender,
            over_budget: self.over_budget,
            resume: self.resume,
            retry_failed: self.retry_failed,
            parts: &self.candidates,
        };
        let decided = match admission::admit(&self.limits, &ask, today, &existing) {
            Ok(a) => a,
            Err(limit) => return Ok(Err(limit)),
        };
        if self.dry_run {
            return Ok(Ok((decided, Vec::new())));
        }
        let salt = admitted::salt(&tx)?;
        let mut rows: Vec<NewTask> = Vec::with_capacity(decided.tasks() as usize);
        for ((v, _, parent), ((n, first), c)) in self.valid.iter().zip(decided.take.iter().zip(&self.candidates)) {
            for ordinal in *first..first + n {
                let origin = Origin {
                    parent_id: *parent,
                    idempotency_key: admission::idempotency_key(&salt, &c.key, ordinal),
                    ..self.origin.clone()
                };
                rows.push(journal::new_task(v, origin));
            }
        }
        // Sent again into the batch they first went in, so that the batch is whole in one place.
        if self.resume
            && let Some(first) = rows.first_mut()
            && let Some(batch) = self.candidates.iter().find_map(|c| existing.get(&c.key).and_then(|t| t.batch))
        {
            first.batch_id = Some(batch);
        }
        let mut records = tasks::insert_batch(&tx, &rows)?;
        if let Sender::Agent { name } = &self.sender {
            let tag = agent_tag(name);
            let ids: Vec<i64> = records.iter().map(|r| r.id).collect();
            admitted::tag_all(&tx, &ids, &tag)?;
            for r in &mut records {
                r.review.tags = vec![tag.clone()];
            }
        }
        tx.commit()?;
        Ok(Ok((decided, records)))
    }
}

/// What today holds against the limits, every client's work counted: the most today's billable
/// priced work can cost, and the agents' tasks and spending.
fn today(c: &Connection, from: i64, limits: &Limits, catalog: &Catalog) -> Result<Today, StoreError> {
    let pricing = &limits.pricing;
    let known = ledger::spent(&history::spend_rows(c, from)?, pricing);
    let counts = |t: &TaskRecord| {
        ledger::billable(t.state, t.remote_completed_at.is_some())
            && !ledger::is_demo(t.profile.as_deref(), &t.base_url)
    };
    let unknown: f64 = admitted::unbilled_since(c, from)?
        .iter()
        .filter(|t| counts(t))
        .filter_map(|t| pricing.cost(&t.model, most_seconds(t, catalog)))
        .sum();
    let agents = since::tagged_since(c, AGENT_PREFIX, "agent.", from)?;
    let agent_spent = agents
        .iter()
        .filter(|t| counts(t))
        .filter_map(|t| pricing.cost(&t.model, t.billed_seconds.unwrap_or_else(|| most_seconds(t, catalog))))
        .sum();
    Ok(Today { spent: known + unknown, agent_tasks: u32::try_from(agents.len()).unwrap_or(u32::MAX), agent_spent })
}

/// The most a journaled task's billed seconds can be (see [`reel_rules::Billing::at_most`]).
fn most_seconds(t: &TaskRecord, catalog: &Catalog) -> f64 {
    let media: Vec<(MediaKind, Option<f64>)> =
        t.media.iter().filter_map(|m| MediaKind::parse(&m.kind).map(|k| (k, m.seconds))).collect();
    let rule = catalog.duration_rule(&t.model).0;
    let billing = reel_rules::Billing { longest_output: Some(rule.max), ..reel_rules::billing(t.seconds, &media) };
    billing.at_most().unwrap_or(f64::from(u16::MAX))
}

/// The tag of a client's tasks: `agent-NAME`, normalised like any tag (lowercase, one word:
/// spaces, commas and control characters become `-`, at most [`MAX_TAG`] characters). A client
/// that gave no name is `agent-unnamed`.
///
/// [`MAX_TAG`]: reel_store::review::MAX_TAG
pub fn agent_tag(client: &str) -> String {
    let word: String = client
        .trim()
        .chars()
        .map(|c| if c.is_whitespace() || c == ',' || c.is_control() { '-' } else { c })
        .collect::<String>()
        .to_lowercase();
    let word = if word.is_empty() { "unnamed".to_string() } else { word };
    format!("{AGENT_PREFIX}{word}").chars().take(reel_store::review::MAX_TAG).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_names_become_one_tag() {
        let cases = [
            ("claude-code", "agent-claude-code"),
            ("Claude Desktop", "agent-claude-desktop"),
            ("  Cursor ", "agent-cursor"),
            ("a,b\tc", "agent-a-b-c"),
            ("", "agent-unnamed"),
            ("a-very-long-client-name-that-goes-on-and-on", "agent-a-very-long-client-name-th"),
        ];
        for (name, want) in cases {
            let got = agent_tag(name);
            assert_eq!(got, want, "{name:?}");
            assert_eq!(reel_store::review::tag(&got).as_deref(), Ok(want), "a valid tag as it is");
        }
    }
}
