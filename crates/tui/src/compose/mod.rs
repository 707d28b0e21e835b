//! The compose form: its fields, and its live check against the shared rules (every variant
//! of a grid), with billed seconds and cost. Here the form itself; its parts by job beside it.

mod batch;
pub mod batch_file;
pub mod batch_update;
mod check;
pub mod draft_keep;
pub mod effects;
mod field;
mod grid;
pub mod media;
mod media_editor;
mod path_input;
mod text;
pub mod view;

use serde::{Deserialize, Serialize};

use ratatui_textarea::TextArea;
use reel_rules::Pricing;
use reel_rules::{self as rules, Catalog, Draft, MediaDraft, MediaKind, Mode, Ratio, Resolution, Rules, UnknownModels};
use reel_store::TaskRecord;

pub use batch::{BatchSend, Loaded, Refusal, more_row_errors};
pub use check::{Check, MAX_COPIES, billed_and_cost};

/// What demo work costs, in every view.
pub const FREE_DEMO: &str = "free (demo)";
pub use field::Field;
pub use grid::{BadGrid, Grid, parse_grid};
pub use media_editor::MediaEditor;
pub use path_input::{Completion, PathInput, complete, split_typed};
pub use text::{MAX_TEXT, TextOp, clean_paste};
use text::{replace, text_area};

/// The compose form. Its fields are its own: every change goes through a method, and every
/// method that changes what would be sent checks the form again, so the check shown is always
/// the check of what is on screen.
pub struct Form {
    prompt: TextArea<'static>,
    negative: TextArea<'static>,
    /// The catalog's model ids, for the picker (and a task's model not among them, once varied).
    models: Vec<String>,
    model: usize,
    /// The models the service lists (`GET /v1/models`), once the engine has asked it.
    service_models: std::collections::BTreeSet<String>,
    seconds: String,
    resolution: Resolution,
    ratio: Ratio,
    watermark: bool,
    media: Vec<MediaDraft>,
    media_cursor: usize,
    copies: String,
    grid: String,
    /// The task this form was copied from ("vary").
    parent: Option<i64>,
    check: Check,
    /// Each media item's check, by [`crate::compose::media::item_key`]; a failed one blocks sending.
    media_checks: std::collections::HashMap<String, crate::compose::media::MediaStatus>,
    /// Set by the first edit or submission: until then a blank prompt is not called an error.
    touched: bool,
    /// Edited since it was last sent, loaded from a task or cleared: a draft of the user's own.
    dirty: bool,
    catalog: Catalog,
    pricing: Pricing,
    /// Demo mode: what it sends runs on the embedded simulator and costs nothing.
    demo: bool,
    /// A batch file loaded into the form: Ctrl-S sends its plan instead of the form.
    batch: Option<batch::Loaded>,
}

/// What the form holds, to keep across a restart or set aside for a variation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Saved {
    pub draft: Draft,
    pub copies: String,
    pub grid: String,
    pub parent: Option<i64>,
}

impl Form {
    pub fn new(catalog: &Catalog, pricing: &Pricing) -> Form {
        let mut f = Form {
            prompt: text_area("Describe the video…"),
            negative: text_area("What to avoid (optional)"),
            models: catalog.entries().iter().map(|e| e.id.clone()).collect(),
            model: 0,
            service_models: Default::default(),
            seconds: rules::DEFAULT_SECONDS.to_string(),
            resolution: Resolution::default(),
            ratio: Ratio::default(),
            watermark: false,
            media: Vec::new(),
            media_cursor: 0,
            copies: "1".into(),
            grid: String::new(),
            parent: None,
            check: Check::default(),
            media_checks: Default::default(),
            touched: false,
            dirty: false,
            catalog: catalog.clone(),
            pricing: pricing.clone(),
            demo: false,
            batch: None,
        };
        f.recheck();
        f
    }

    /// Demo mode: every cost it quotes is "free (demo)", as everywhere else in reel.
    pub fn set_demo(&mut self, demo: bool) {
        self.demo = demo;
        self.recheck();
    }

    /// The cost as quoted: the priced figure, or free in demo mode.
    fn quoted(&self, cost: String) -> String {
        if self.demo { FREE_DEMO.into() } else { cost }
    }

    pub fn prompt(&self) -> &TextArea<'static> {
        &self.prompt
    }

    pub fn negative(&self) -> &TextArea<'static> {
        &self.negative
    }

    pub fn models(&self) -> &[String] {
        &self.models
    }

    /// The position of the chosen model in [`Form::models`].
    pub fn model_index(&self) -> usize {
        self.model
    }

    pub fn model_id(&self) -> &str {
        self.models.get(self.model).map_or("", String::as_str)
    }

    pub fn seconds(&self) -> &str {
        &self.seconds
    }

    pub fn resolution(&self) -> Resolution {
        self.resolution
    }

    pub fn ratio(&self) -> Ratio {
        self.ratio
    }

    pub fn watermark(&self) -> bool {
        self.watermark
    }

    pub fn media(&self) -> &[MediaDraft] {
        &self.media
    }

    pub fn media_cursor(&self) -> usize {
        self.media_cursor
    }

    pub fn copies(&self) -> &str {
        &self.copies
    }

    pub fn grid(&self) -> &str {
        &self.grid
    }

    pub fn parent(&self) -> Option<i64> {
        self.parent
    }

    pub fn check(&self) -> &Check {
        &self.check
    }

    pub fn touched(&self) -> bool {
        self.touched
    }

    /// What is known of a media item's check.
    pub fn media_status(&self, item: &MediaDraft) -> Option<&crate::compose::media::MediaStatus> {
        self.media_checks.get(&crate::compose::media::item_key(&item.kind, &item.url))
    }

    pub fn prompt_text(&self) -> String {
        self.prompt.lines().join("\n")
    }

    pub fn negative_text(&self) -> String {
        self.negative.lines().join("\n")
    }

    fn area_mut(&mut self, field: Field) -> Option<&mut TextArea<'static>> {
        match field {
            Field::Prompt => Some(&mut self.prompt),
            Field::Negative => Some(&mut self.negative),
            _ => None,
        }
    }

    /// The one-line input behind a line field.
    fn line_mut(&mut self, field: Field) -> Option<&mut String> {
        match field {
            Field::Seconds => Some(&mut self.seconds),
            Field::Copies => Some(&mut self.copies),
            Field::Grid => Some(&mut self.grid),
            _ => None,
        }
    }

    /// A change by the user: the form is checked again, and a blank prompt is an error now.
    fn changed(&mut self) {
        self.touched = true;
        self.dirty = true;
        self.recheck();
    }

    /// Checks the form as a send would (a Ctrl-S, before anything goes out).
    pub fn touch(&mut self) {
        self.changed();
    }

    /// A key typed into a text area; returns whether the text changed.
    pub fn input(&mut self, field: Field, ev: crossterm::event::KeyEvent) -> bool {
        let changed = self.area_mut(field).is_some_and(|a| a.input(ev));
        if changed {
            self.changed();
        }
        changed
    }

    /// Edits a one-line field; returns whether it is one.
    pub fn edit_line(&mut self, field: Field, edit: impl FnOnce(&mut String)) -> bool {
        let Some(line) = self.line_mut(field) else { return false };
        edit(line);
        line.truncate(200);
        self.changed();
        true
    }

    /// A paste into a field: text areas take it as it is, line fields as one line.
    pub fn paste(&mut self, field: Field, text: &str) {
        if let Some(area) = self.area_mut(field) {
            area.insert_str(text);
        } else {
            let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
            self.edit_line(field, |l| l.push_str(&one_line));
        }
        self.changed();
    }

    /// Replaces a text area's text (what the editor gave back); undo brings the old text back.
    pub fn set_text(&mut self, field: Field, text: &str) {
        if let Some(area) = self.area_mut(field) {
            replace(area, text);
            self.changed();
        }
    }

    /// Undo, redo, or a shell's Ctrl-U (delete to the start of the line) in a field.
    pub fn edit(&mut self, field: Field, op: TextOp) -> bool {
        let changed = match (self.area_mut(field), op) {
            (Some(a), TextOp::Undo) => a.undo(),
            (Some(a), TextOp::Redo) => a.redo(),
            (Some(a), TextOp::ClearLine) => a.delete_line_by_head(),
            (None, TextOp::ClearLine) => self.line_mut(field).map(String::clear).is_some(),
            (None, _) => false,
        };
        if changed {
            self.changed();
        }
        changed
    }

    /// Chooses the model at `index` of [`Form::models`].
    pub fn set_model(&mut self, index: usize) {
        let before = self.model_id().to_string();
        self.model = index.min(self.models.len().saturating_sub(1));
        self.fit_seconds(&before);
        self.changed();
    }

    /// The models the service lists: those the catalog lacks join the picker's list, marked.
    pub fn add_service_models(&mut self, ids: &[String]) {
        for id in ids {
            if !self.models.contains(id) && rules::ModelName::new(id).is_ok() {
                self.models.push(id.clone());
            }
            self.service_models.insert(id.clone());
        }
    }

    /// What the picker says beside a model: its mode, and whether reel has rules for it.
    pub fn model_note(&self, id: &str) -> String {
        let listed = self.service_models.contains(id);
        match self.catalog.rules(id) {
            Rules::Known(e) if self.service_models.is_empty() || listed => e.mode.to_string(),
            Rules::Known(e) => format!("{} · not listed by the service", e.mode),
            Rules::Broken(_) => "broken entry in the config".into(),
            Rules::Unknown { .. } if listed => "listed by the service · no rules (general checks)".into(),
            Rules::Unknown { .. } => "custom · no rules (general checks)".into(),
        }
    }

    /// Seconds left at the last model's default move to the new model's when it refuses them
    /// (5 for a model of 4, 8 or 12).
    fn fit_seconds(&mut self, before: &str) {
        let (old, new) = (self.catalog.duration_rule(before).0, self.catalog.duration_rule(self.model_id()).0);
        let typed = self.seconds.trim();
        let at_default = typed.is_empty() || typed.parse::<i64>().ok() == Some(old.default_seconds());
        if at_default && typed.parse::<i64>().is_ok_and(|n| !new.allows(n)) {
            self.seconds = new.default_seconds().to_string();
        }
    }

    /// Chooses a model by its id: one of the list, or a custom id the catalog does not know
    /// (the rules then check it as they can, and warn).
    pub fn set_model_id(&mut self, id: &str) {
        let before = self.model_id().to_string();
        self.choose_model(id);
        self.fit_seconds(&before);
        self.changed();
    }

    /// The model of the list with this id, added to the list when it is not there.
    fn choose_model(&mut self, id: &str) {
        match self.models.iter().position(|m| m == id) {
            Some(i) => self.model = i,
            None => {
                self.models.push(id.to_string());
                self.model = self.models.len() - 1;
            }
        }
    }

    /// Only the text area with the keys shows a cursor.
    pub fn show_cursor(&mut self, field: Option<Field>) {
        let cursor = ratatui::style::Style::default().add_modifier(ratatui::style::Modifier::REVERSED);
        let none = ratatui::style::Style::default();
        self.prompt.set_cursor_style(if field == Some(Field::Prompt) { cursor } else { none });
        self.negative.set_cursor_style(if field == Some(Field::Negative) { cursor } else { none });
    }

    /// Adds a media item (`index` `None`) or replaces one; returns its key, to check it.
    pub fn put_media(&mut self, index: Option<usize>, item: MediaDraft) -> String {
        let key = crate::compose::media::item_key(&item.kind, &item.url);
        self.media_checks.insert(key.clone(), crate::compose::media::MediaStatus::Checking);
        match index {
            Some(i) if i < self.media.len() => self.media[i] = item,
            _ => {
                self.media.push(item);
                self.media_cursor = self.media.len() - 1;
            }
        }
        self.changed();
        key
    }

    /// Removes the media item under the cursor.
    pub fn remove_media(&mut self) {
        if self.media_cursor < self.media.len() {
            self.media.remove(self.media_cursor);
            self.media_cursor = self.media_cursor.min(self.media.len().saturating_sub(1));
            self.changed();
        }
    }

    /// What the checks of media items found; measured durations count at once.
    pub fn media_checked(&mut self, results: Vec<(String, crate::compose::media::MediaStatus)>) {
        self.media_checks.extend(results);
        self.recheck();
    }

    /// The task `id` was deleted: the form no longer records it as parent. Returns whether it did.
    pub fn forget_parent(&mut self, id: i64) -> bool {
        let was = self.parent == Some(id);
        if was {
            self.parent = None;
        }
        was
    }

    /// Whether the form holds text the user typed and has not sent.
    pub fn has_draft(&self) -> bool {
        self.dirty && (!self.prompt_text().trim().is_empty() || !self.negative_text().trim().is_empty())
    }

    /// What the form holds was sent: it is no longer a draft to keep (the text stays, for the
    /// next variation).
    pub fn sent(&mut self) {
        self.dirty = false;
    }

    /// What the form holds now, to keep.
    pub fn saved(&self) -> Saved {
        Saved { draft: self.draft(), copies: self.copies.clone(), grid: self.grid.clone(), parent: self.parent }
    }

    /// Puts back what [`Form::saved`] kept (a draft from the last run).
    pub fn restore(&mut self, saved: &Saved) {
        self.fill(&saved.draft);
        self.copies = saved.copies.clone();
        self.grid = saved.grid.clone();
        self.parent = saved.parent;
        self.touched = true;
        self.dirty = true;
        self.recheck();
    }

    /// A fresh form for a new prompt: text, media, copies and grid cleared, no parent; the
    /// model and settings stay (they are how the user works). Undo brings the text back.
    pub fn clear(&mut self) {
        replace(&mut self.prompt, "");
        replace(&mut self.negative, "");
        self.media.clear();
        self.media_cursor = 0;
        self.copies = "1".into();
        self.grid.clear();
        self.parent = None;
        self.touched = false;
        self.dirty = false;
        self.recheck();
    }

    /// Puts a draft's text and settings in the form (the model added to the list when the
    /// catalog does not have it).
    fn fill(&mut self, d: &Draft) {
        replace(&mut self.prompt, &d.prompt);
        replace(&mut self.negative, &d.negative_prompt);
        if !d.model.is_empty() {
            self.choose_model(&d.model);
        }
        self.seconds = d.seconds.clone().unwrap_or_else(|| rules::DEFAULT_SECONDS.to_string());
        self.resolution = d.resolution.as_deref().and_then(Resolution::parse).unwrap_or_default();
        self.ratio = d.ratio.as_deref().and_then(Ratio::parse).unwrap_or_default();
        self.watermark = d.watermark.unwrap_or(false);
        self.media = d.media.clone();
        self.media_cursor = 0;
    }

    /// The draft the rules check: measured durations of media items stand in for the ones
    /// not stated, as they will when the task is sent.
    fn draft(&self) -> Draft {
        let media = self
            .media
            .iter()
            .map(|m| {
                let measured = match self.media_status(m) {
                    Some(crate::compose::media::MediaStatus::Checked { duration: Some(d), .. }) => {
                        Some(format!("{d:.1}"))
                    }
                    _ => None,
                };
                MediaDraft { seconds: m.seconds.clone().or(measured), ..m.clone() }
            })
            .collect();
        Draft {
            model: self.model_id().to_string(),
            prompt: self.prompt_text(),
            negative_prompt: self.negative_text(),
            seconds: Some(self.seconds.clone()),
            resolution: Some(self.resolution.to_string()),
            ratio: Some(self.ratio.to_string()),
            watermark: Some(self.watermark),
            media,
        }
    }

    /// Rows the text of a text area takes when wrapped to `width` columns.
    pub fn wrapped_rows(area: &TextArea<'_>, width: u16) -> u16 {
        let w = usize::from(width.max(1));
        area.lines().iter().map(|l| l.chars().count().max(1).div_ceil(w) as u16).sum()
    }

    /// Checks every variant the form would send, with the shared rules.
    fn recheck(&mut self) {
        let (catalog, pricing) = (&self.catalog, &self.pricing);
        let mut check = Check::default();
        let grid = match parse_grid(&self.grid) {
            Ok(g) => g,
            Err(e) => {
                check.problems.push((Field::Grid, e.to_string()));
                Grid::default()
            }
        };
        check.copies = match self.copies.trim().parse::<u32>() {
            Ok(n) if (1..=MAX_COPIES).contains(&n) => n,
            _ => {
                check.problems.push((Field::Copies, format!("copies must be a whole number from 1 to {MAX_COPIES}")));
                1
            }
        };
        let ratios = if grid.ratios.is_empty() { vec![self.ratio] } else { grid.ratios.clone() };
        let seconds = if grid.seconds.is_empty() { vec![self.seconds.clone()] } else { grid.seconds.clone() };
        let base = self.draft();
        for ratio in &ratios {
            for secs in &seconds {
                let draft = Draft { ratio: Some(ratio.to_string()), seconds: Some(secs.clone()), ..base.clone() };
                match rules::validate(&draft, catalog, UnknownModels::Warn) {
                    Ok(v) => {
                        for w in &v.warnings {
                            let w = w.to_string();
                            if !check.warnings.contains(&w) {
                                check.warnings.push(w);
                            }
                        }
                        check.plan.push(v);
                    }
                    Err(invalid) => {
                        for v in invalid.violations {
                            let mut field = Field::of(v.field());
                            if field == Field::Seconds && !grid.seconds.is_empty() {
                                field = Field::Grid;
                            }
                            let message = v.to_string();
                            if !check.problems.iter().any(|(f, m)| *f == field && *m == message) {
                                check.problems.push((field, message));
                            }
                        }
                    }
                }
            }
        }
        for (i, m) in self.media.iter().enumerate() {
            if let Some(crate::compose::media::MediaStatus::Failed(reason)) =
                self.media_checks.get(&crate::compose::media::item_key(&m.kind, &m.url))
            {
                check.problems.push((Field::Media, format!("media item {}: {reason}", i + 1)));
            }
        }
        check.problems.sort_by_key(|(f, _)| Field::ALL.iter().position(|x| x == f));
        if !check.problems.is_empty() {
            check.plan.clear();
        }
        check.count = ratios.len() * seconds.len() * check.copies as usize;
        (check.billed, check.cost) = billed_and_cost(&check.plan, check.copies, pricing);
        check.cost = self.quoted(check.cost);
        self.check = check;
    }

    /// Copies a task's parameters into the form ("vary"); the next submission records it as parent.
    pub fn load(&mut self, t: &TaskRecord) {
        self.fill(&reel_engine::journal::draft(t));
        self.parent = Some(t.id);
        self.changed();
        self.dirty = false;
    }

    /// The media type the model needs, for a new media item: the first frame for
    /// image-to-video, a reference image otherwise.
    pub fn media_kind_needed(&self) -> MediaKind {
        let id = self.model_id();
        let takes_frame_only = self.catalog.get(id).is_some_and(|e| e.media == [MediaKind::FirstFrame]);
        if takes_frame_only || self.catalog.mode(id) == Some(Mode::ImageToVideo) {
            MediaKind::FirstFrame
        } else {
            MediaKind::ReferenceImage
        }
    }

    /// ← and → on a choice field.
    pub fn cycle(&mut self, field: Field, forward: bool) {
        fn step<T: Copy + PartialEq>(all: &[T], current: T, forward: bool) -> T {
            let i = all.iter().position(|x| *x == current).unwrap_or(0);
            let n = all.len();
            all[if forward { (i + 1) % n } else { (i + n - 1) % n }]
        }
        match field {
            Field::Model if !self.models.is_empty() => {
                let n = self.models.len();
                let before = self.model_id().to_string();
                self.model = if forward { (self.model + 1) % n } else { (self.model + n - 1) % n };
                self.fit_seconds(&before);
            }
            Field::Resolution => self.resolution = step(Resolution::ALL, self.resolution, forward),
            Field::Ratio => self.ratio = step(Ratio::ALL, self.ratio, forward),
            Field::Watermark => self.watermark = !self.watermark,
            Field::Seconds => {
                let rule = self.catalog.duration_rule(self.model_id()).0;
                let n = self.seconds.trim().parse::<i64>().unwrap_or_else(|_| rule.default_seconds());
                self.seconds = rule.step(n, forward).to_string();
            }
            Field::Copies => {
                let n = self.copies.trim().parse::<u32>().unwrap_or(1);
                self.copies = (if forward { n.saturating_add(1) } else { n.saturating_sub(1).max(1) }).to_string();
            }
            Field::Media => {
                let n = self.media.len().max(1);
                self.media_cursor = if forward { (self.media_cursor + 1) % n } else { (self.media_cursor + n - 1) % n };
            }
            _ => {}
        }
        self.changed();
    }
}

#[cfg(test)]
mod tests;
