//! News: what the engine reports, and what effects report back when they finish.

use super::{Action, App, Effect, EffectError, Level, Screen, bulk_message};
use crate::compose::clean_paste;
use crate::labels::count;
use crate::labels::is_running;
use crate::tasks::Transfer;
use reel_engine::{EngineError, Event, TaskUpdate};
use reel_store::LocalState;

impl App {
    /// Tasks read from the store, shown as they are there.
    pub(crate) fn show_read(&mut self, records: Vec<reel_store::TaskRecord>) {
        self.table.load(records);
    }

    /// Everything but input and time.
    pub(crate) fn news(&mut self, action: Action) -> Vec<Effect> {
        match action {
            Action::Engine(event) => return self.engine(event),
            // Nobody is left to ask: quit now, the draft kept.
            Action::Hangup => return self.quit_effects(),
            Action::Loaded(records) => self.show_read(records),
            Action::LinkLost
            | Action::Reattaching(_)
            | Action::ReattachFailed { .. }
            | Action::Reattached { .. }
            | Action::Reloaded(_) => return self.link_news(action),
            Action::Stills(sha, result) => self.stills_arrived(sha, result),
            Action::Thumb(sha, result) => self.thumb_arrived(sha, result),
            Action::PlayFrame(ticket, frame) => self.play_frame(ticket, frame),
            Action::PlayFailed(ticket, message) => self.play_failed(ticket, message),
            Action::Clip(ticket, take, result) => self.clip_arrived(ticket, take, result),
            Action::Timeline(id, events) => {
                self.table.set_timeline(id, events);
            }
            Action::Submitted { again, result: Ok(records) } => {
                let ids: Vec<i64> = records.iter().map(|r| r.id).collect();
                // These are the rows as first journaled; the engine's own news of a task (sent,
                // queued) can arrive first over the socket and must not be taken back.
                let shown = self.screen == Screen::History;
                for record in records {
                    self.history.apply(&record, shown);
                    if self.table.row(record.id).is_none() {
                        self.table.upsert(TaskUpdate { record, eta_ms: None });
                    }
                }
                self.sent.extend(ids.iter().copied());
                if !again {
                    self.form.sent();
                }
                self.follow_newest(&ids);
                self.welcome = None;
                let n = count(ids.len(), "task");
                let text = if again {
                    format!("Sent {n} again")
                } else {
                    format!("Sent {n}; the form keeps its text for the next variation")
                };
                self.say(Level::Info, text);
            }
            // The socket closed during the request: the engine may have journaled the task
            // before it went (then the next engine sends it, and the reload shows it).
            Action::Submitted { result: Err(EffectError::Engine(EngineError::Stopped)), .. } => self.say(
                Level::Error,
                "The engine stopped before it answered: if it recorded the submission, the table shows it once the \
                 engine is back; else send it again",
            ),
            Action::Submitted { result: Err(e), .. } => self.say_error("Not sent: ", &e),
            Action::MediaChecked(results) => {
                self.form.media_checked(results);
            }
            Action::Report(Ok(message)) => self.say(Level::Info, message),
            Action::Reviewed { id, quiet, result, truth } => return self.reviewed(id, quiet, result, truth),
            Action::Report(Err(e)) | Action::Deleted(Err(e)) | Action::Edited(_, Err(e)) => self.say_error("", &e),
            Action::BulkDone { op, done, failed, skipped } => {
                let (level, text) = bulk_message(op, done.len(), &failed, &skipped);
                self.say(level, text);
            }
            Action::FilesChecked(found) => {
                for (id, present) in found {
                    self.table.set_file_present(id, present);
                    self.history.set_file_present(id, present);
                }
            }
            Action::HistoryPage(ticket, Ok(rows)) => {
                self.history.add_page(ticket, rows);
            }
            Action::HistoryPage(ticket, Err(e)) => {
                if self.history.page_failed(ticket) {
                    self.say_error("Cannot read the history: ", &e);
                }
            }
            Action::Lineage(id, parent, children) => self.history.set_lineage(id, parent, children),
            Action::Ledger(ledger) => self.history.set_ledger(ledger),
            Action::Models(models) => self.history.set_models(models),
            Action::Deleted(Ok(t)) => {
                // Every view forgets the task, and a form varying it no longer names it as parent.
                self.history.remove(t.id);
                self.table.remove(t.id);
                // SQLite may give a deleted newest id to the next task: forget it here.
                if self.sent.remove(&t.id) {
                    self.sent_deleted += 1;
                }
                let mut text = format!("Deleted the record of task {}", t.id);
                if let Some(said) = reel_engine::manual::still_at_service(&t) {
                    text.push_str(&format!("; {}", reel_rules::text::clean(&said)));
                }
                if self.form.forget_parent(t.id) {
                    text.push_str("; the form keeps its text but no longer records it as parent");
                }
                self.say(Level::Info, text);
            }
            // The journal's figure may predate the journaling of a send made meanwhile: it
            // raises what this dashboard counted (other clients' sends), never lowers it.
            Action::Spent(amount) => self.spent_today = self.spent_today.max(amount),
            Action::ServiceModels(ids) => self.form.add_service_models(&ids),
            Action::Edited(field, Ok(text)) => {
                let text = clean_paste(&text);
                self.form.set_text(field, text.trim_end_matches('\n'));
            }
            Action::Key(_)
            | Action::Paste(_)
            | Action::Mouse(_)
            | Action::Resize(..)
            | Action::Tick
            | Action::CheckFiles
            | Action::Batch(_) => {}
        }
        Vec::new()
    }

    pub(crate) fn engine(&mut self, event: Event) -> Vec<Effect> {
        match event {
            Event::Task(update) => return self.tasks_news(vec![*update]),
            Event::Tasks(updates) => return self.tasks_news(updates),
            Event::Missed => return self.catch_up(),
            Event::Transfer { id, bytes, total, rate } => {
                self.table.set_transfer(id, Transfer { bytes, total, rate });
            }
            Event::Service(s) => self.header.service = s,
            Event::Trouble(message) => self.say(Level::Error, reel_rules::text::clean(&message)),
        }
        Vec::new()
    }

    /// Tasks changed: the table, the history and the previews follow; a task that ends rings.
    pub(crate) fn tasks_news(&mut self, updates: Vec<TaskUpdate>) -> Vec<Effect> {
        let busy_before = self.table.running() > 0;
        let shown = self.screen == Screen::History;
        let (mut effects, mut ended) = (Vec::new(), Vec::new());
        let mut updates = updates;
        let newest = updates.iter().map(|u| u.record.updated_at).max();
        self.engine_mark = self.engine_mark.max(newest);
        for update in &mut updates {
            let id = update.record.id;
            let before = self.table.row(id).map(|r| r.record.state);
            let pending = self.reviewing.contains_key(&id);
            if pending && let Some(shown) = self.shown_review(id) {
                update.record.review = shown;
            }
            // A review (from here, or another client) adds lines to the timeline but changes
            // no state: read it again.
            let reviewed = (pending || self.table.row(id).is_some_and(|r| r.record.review != update.record.review))
                && self.table.timeline(id).is_some();
            if reviewed {
                effects.push(Effect::LoadTimeline(id));
            }
            let after = update.record.state;
            // A file saved (again) may preview where an earlier attempt could not.
            if after == LocalState::Downloaded
                && before != Some(LocalState::Downloaded)
                && let Some(sha) = &update.record.sha256
            {
                self.previews.forget(sha);
            }
            // A fresh copy that could not be had ends saved (or still missing) with the reason:
            // said here, so that "re-download started" does not stand.
            if after == LocalState::Downloaded
                && before.is_some_and(|b| b != LocalState::Downloaded)
                && let Some(why) = update.record.error.as_ref().and_then(reel_api::types::message_of)
            {
                self.say(Level::Warn, format!("Task {id}: {}", reel_rules::text::clean(&why)));
            }
            if before.is_some_and(is_running) && !is_running(after) {
                ended.push(Effect::Notify(format!("Task {id} {after}")));
            }
            self.history.apply(&update.record, shown);
        }
        self.table.upsert_all(updates);
        self.welcome = None;
        if !ended.is_empty() {
            effects.push(Effect::Bell);
            effects.append(&mut ended);
            if busy_before && self.table.running() == 0 {
                effects.push(Effect::Notify("All tasks are done".into()));
            }
        }
        effects
    }
}
