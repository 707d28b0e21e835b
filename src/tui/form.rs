//! The compose form: its fields, and its live check against the shared rules (every variant
//! of a grid), with billed seconds and cost.

use ratatui_textarea::TextArea;
use serde::{Deserialize, Serialize};

use crate::rules::Pricing;
use crate::rules::{
    self, Catalog, Draft, MediaDraft, MediaKind, Mode, ModelId, Ratio, Resolution, UnknownModels, ValidSubmission,
};
use crate::store::TaskRecord;
use crate::text::clean;

use super::keymap::Scope;

/// The form's fields, in Tab order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    Prompt,
    Negative,
    Model,
    Seconds,
    Resolution,
    Ratio,
    Watermark,
    Media,
    Copies,
    Grid,
}

impl Field {
    pub const ALL: [Field; 10] = [
        Field::Prompt,
        Field::Negative,
        Field::Model,
        Field::Seconds,
        Field::Resolution,
        Field::Ratio,
        Field::Watermark,
        Field::Media,
        Field::Copies,
        Field::Grid,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Field::Prompt => "Prompt",
            Field::Negative => "Negative",
            Field::Model => "Model",
            Field::Seconds => "Seconds",
            Field::Resolution => "Resolution",
            Field::Ratio => "Ratio",
            Field::Watermark => "Watermark",
            Field::Media => "Media",
            Field::Copies => "Copies",
            Field::Grid => "Grid",
        }
    }

    pub fn scope(self) -> Scope {
        match self {
            Field::Prompt | Field::Negative => Scope::Text,
            Field::Seconds | Field::Copies | Field::Grid => Scope::Line,
            _ => Scope::Form,
        }
    }

    pub fn next(self) -> Option<Field> {
        let i = Field::ALL.iter().position(|f| *f == self)?;
        Field::ALL.get(i + 1).copied()
    }

    pub fn prev(self) -> Option<Field> {
        let i = Field::ALL.iter().position(|f| *f == self)?;
        i.checked_sub(1).map(|j| Field::ALL[j])
    }

    fn of(field: rules::Field) -> Field {
        match field {
            rules::Field::Body | rules::Field::Prompt => Field::Prompt,
            rules::Field::NegativePrompt => Field::Negative,
            rules::Field::Model => Field::Model,
            rules::Field::Seconds => Field::Seconds,
            rules::Field::Resolution => Field::Resolution,
            rules::Field::Ratio => Field::Ratio,
            rules::Field::Watermark => Field::Watermark,
            rules::Field::Media(_) => Field::Media,
        }
    }
}

/// A grid: every listed ratio times every listed duration.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Grid {
    pub ratios: Vec<Ratio>,
    pub seconds: Vec<String>,
}

/// The tokens of a grid that are neither a ratio nor whole seconds, each quoted and cleaned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadGrid(Vec<String>);

impl std::fmt::Display for BadGrid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0.as_slice() {
            [one] => write!(f, "{one} is neither a ratio ({}) nor whole seconds", Ratio::choices()),
            [rest @ .., last] => {
                write!(f, "{} and {last} are neither ratios ({}) nor whole seconds", rest.join(", "), Ratio::choices())
            }
            [] => Ok(()),
        }
    }
}

impl std::error::Error for BadGrid {}

/// Reads `16:9, 9:16 5 10`: ratios and whole numbers of seconds, in any order. Every token
/// that is neither is named in the error.
pub fn parse_grid(text: &str) -> Result<Grid, BadGrid> {
    let mut grid = Grid::default();
    let mut bad = Vec::new();
    for token in text.split(|c: char| c == ',' || c.is_whitespace()).filter(|t| !t.is_empty()) {
        if let Some(r) = Ratio::parse(token) {
            if !grid.ratios.contains(&r) {
                grid.ratios.push(r);
            }
        } else if token.parse::<i64>().is_ok() {
            if !grid.seconds.iter().any(|s| s == token) {
                grid.seconds.push(token.to_string());
            }
        } else {
            bad.push(format!("\"{}\"", clean(token)));
        }
    }
    if bad.is_empty() { Ok(grid) } else { Err(BadGrid(bad)) }
}

/// Billed seconds and cost of sending every submission of `plan` `copies` times, as the form
/// and the questions before sending show them: unknown parts are said, never counted as 0.
pub fn billed_and_cost(plan: &[ValidSubmission], copies: u32, pricing: &Pricing) -> (String, String) {
    let copies = f64::from(copies);
    let totals: Vec<Option<f64>> = plan.iter().map(|v| v.billing.total().map(|t| t * copies)).collect();
    let billed = match (plan.len(), totals.iter().copied().sum::<Option<f64>>()) {
        (0, _) => "-".into(),
        (1, None) => plan[0].billing.to_string(),
        (_, Some(t)) => format!("{} s", crate::rules::billing::secs(t)),
        (_, None) => "not known before rendering".into(),
    };
    let costs: Vec<Option<f64>> =
        plan.iter().zip(&totals).map(|(v, t)| t.and_then(|t| pricing.cost(&v.model.to_string(), t))).collect();
    let cost = match costs.iter().copied().sum::<Option<f64>>() {
        _ if plan.is_empty() => "-".into(),
        Some(c) => pricing.format(c),
        None if totals.iter().any(Option::is_none) => "not known before rendering".into(),
        None => "unpriced".into(),
    };
    (billed, cost)
}

/// Longest text kept from one paste or editor session, so a stray paste cannot freeze the form.
pub const MAX_TEXT: usize = 20_000;
/// Most copies of one submission.
pub const MAX_COPIES: u32 = 50;

/// A paste, ready for a text area: control characters other than newlines removed, CRLF and
/// a lone CR (what terminals send for Enter in a paste) made newlines.
pub fn clean_paste(text: &str) -> String {
    text.replace("\r\n", "\n")
        .replace('\r', "\n")
        .chars()
        .filter(|c| *c == '\n' || !c.is_control())
        .take(MAX_TEXT)
        .collect()
}

/// An edit of a field's text by a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextOp {
    Undo,
    Redo,
    /// Delete to the start of the line (a shell's Ctrl-U).
    ClearLine,
}

/// Replaces a text area's text as one edit, so undo brings the old text back.
fn replace(area: &mut TextArea<'static>, text: &str) {
    area.select_all();
    area.cut();
    area.insert_str(text);
}

/// The outcome of the last check of the form.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Check {
    /// Broken rules, by the field they belong to, in field order.
    pub problems: Vec<(Field, String)>,
    pub warnings: Vec<String>,
    /// Every submission a Ctrl-S would send (one per grid cell), when there is no problem.
    pub plan: Vec<ValidSubmission>,
    pub copies: u32,
    /// Tasks a Ctrl-S would start.
    pub count: usize,
    pub billed: String,
    pub cost: String,
}

impl Check {
    pub fn is_clean(&self) -> bool {
        self.problems.is_empty() && !self.plan.is_empty()
    }

    pub fn first_problem(&self, field: Field) -> Option<&str> {
        self.problems.iter().find(|(f, _)| *f == field).map(|(_, m)| m.as_str())
    }
}

fn text_area(placeholder: &str) -> TextArea<'static> {
    let mut t = TextArea::default();
    t.set_placeholder_text(placeholder.to_string());
    t.set_cursor_line_style(ratatui::style::Style::default());
    t.set_max_histories(200);
    t.set_wrap_mode(ratatui_textarea::WrapMode::WordOrGlyph);
    t
}

/// The compose form. Its fields are its own: every change goes through a method, and every
/// method that changes what would be sent checks the form again, so the check shown is always
/// the check of what is on screen.
pub struct Form {
    prompt: TextArea<'static>,
    negative: TextArea<'static>,
    /// The catalog's model ids, for the picker (and a task's model not among them, once varied).
    models: Vec<String>,
    model: usize,
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
    /// Each media item's check, by [`crate::tui::media::item_key`]; a failed one blocks sending.
    media_checks: std::collections::HashMap<String, crate::tui::media::MediaStatus>,
    /// Set by the first edit or submission: until then a blank prompt is not called an error.
    touched: bool,
    /// Edited since it was last sent, loaded from a task or cleared: a draft of the user's own.
    dirty: bool,
    catalog: Catalog,
    pricing: Pricing,
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
        };
        f.recheck();
        f
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
    pub fn media_status(&self, item: &MediaDraft) -> Option<&crate::tui::media::MediaStatus> {
        self.media_checks.get(&crate::tui::media::item_key(&item.kind, &item.url))
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
        self.model = index.min(self.models.len().saturating_sub(1));
        self.changed();
    }

    /// Chooses a model by its id: one of the list, or a custom id the catalog does not know
    /// (the rules then check it as they can, and warn).
    pub fn set_model_id(&mut self, id: &str) {
        self.choose_model(id);
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
        let key = crate::tui::media::item_key(&item.kind, &item.url);
        self.media_checks.insert(key.clone(), crate::tui::media::MediaStatus::Checking);
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
    pub fn media_checked(&mut self, results: Vec<(String, crate::tui::media::MediaStatus)>) {
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
                    Some(crate::tui::media::MediaStatus::Checked { duration: Some(d), .. }) => Some(format!("{d:.1}")),
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
            if let Some(crate::tui::media::MediaStatus::Failed(reason)) =
                self.media_checks.get(&crate::tui::media::item_key(&m.kind, &m.url))
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
        self.check = check;
    }

    /// Copies a task's parameters into the form ("vary"); the next submission records it as parent.
    pub fn load(&mut self, t: &TaskRecord) {
        self.fill(&crate::engine::journal::draft(t));
        self.parent = Some(t.id);
        self.changed();
        self.dirty = false;
    }

    /// The media type the model needs, for a new media item: the first frame for
    /// image-to-video, a reference image otherwise.
    pub fn media_kind_needed(&self) -> MediaKind {
        match self.model_id().parse::<ModelId>().map(|m| m.mode) {
            Ok(Mode::ImageToVideo) => MediaKind::FirstFrame,
            _ => MediaKind::ReferenceImage,
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
                self.model = if forward { (self.model + 1) % n } else { (self.model + n - 1) % n };
            }
            Field::Resolution => self.resolution = step(Resolution::ALL, self.resolution, forward),
            Field::Ratio => self.ratio = step(Ratio::ALL, self.ratio, forward),
            Field::Watermark => self.watermark = !self.watermark,
            Field::Seconds => {
                let n = self.seconds.trim().parse::<i64>().unwrap_or(rules::DEFAULT_SECONDS);
                self.seconds = (if forward { n + 1 } else { n - 1 }).to_string();
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

/// A media item being added or edited.
#[derive(Debug, Clone, PartialEq)]
pub struct MediaEditor {
    /// The item edited, or `None` for a new one.
    index: Option<usize>,
    kind: MediaKind,
    url: String,
    seconds: String,
    /// 0: type, 1: URL, 2: seconds.
    part: usize,
}

impl MediaEditor {
    /// Edits `item`, or a new item of type `kind`.
    pub fn new(index: Option<usize>, item: Option<&MediaDraft>, kind: MediaKind) -> MediaEditor {
        MediaEditor {
            index,
            kind: item.and_then(|m| MediaKind::parse(&m.kind)).unwrap_or(kind),
            // A local item is edited as its file, whatever URL it was sent with.
            url: item.map(|m| m.local.as_ref().map_or(&m.url, |l| &l.path).clone()).unwrap_or_default(),
            seconds: item.and_then(|m| m.seconds.clone()).unwrap_or_default(),
            part: if item.is_some() { 1 } else { 0 },
        }
    }

    /// The item edited, or `None` for a new one.
    pub fn index(&self) -> Option<usize> {
        self.index
    }

    pub fn kind(&self) -> MediaKind {
        self.kind
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    pub fn seconds(&self) -> &str {
        &self.seconds
    }

    /// The part with the keys: 0 type, 1 URL, 2 seconds.
    pub fn part(&self) -> usize {
        self.part
    }

    /// ↑ and ↓ between the parts.
    pub fn step_part(&mut self, down: bool) {
        self.part = if down { (self.part + 1).min(2) } else { self.part.saturating_sub(1) };
    }

    /// A key typed into the part with the keys (`None`: Backspace); what a part cannot hold
    /// is not typed.
    pub fn typed(&mut self, c: Option<char>) {
        let (text, ok): (&mut String, fn(char) -> bool) = match self.part {
            1 => (&mut self.url, |c| !c.is_control() && !c.is_whitespace()),
            2 => (&mut self.seconds, |c| c.is_ascii_digit() || c == '.'),
            _ => return,
        };
        match c {
            Some(c) if ok(c) => text.push(c),
            Some(_) => {}
            None => drop(text.pop()),
        }
    }

    /// A paste: into the URL, as one line.
    pub fn paste(&mut self, text: &str) {
        if self.part == 1 {
            self.url.push_str(text.trim());
        }
    }

    /// Ctrl-U: the part with the keys emptied.
    pub fn clear_part(&mut self) {
        match self.part {
            1 => self.url.clear(),
            2 => self.seconds.clear(),
            _ => {}
        }
    }

    pub fn item(&self) -> MediaDraft {
        let secs = self.seconds.trim();
        MediaDraft::typed(&self.kind.to_string(), &self.url, (!secs.is_empty()).then(|| secs.to_string()))
    }

    pub fn cycle_kind(&mut self, forward: bool) {
        let all = MediaKind::ALL;
        let i = all.iter().position(|k| *k == self.kind).unwrap_or(0);
        let n = all.len();
        self.kind = all[if forward { (i + 1) % n } else { (i + n - 1) % n }];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form() -> Form {
        let mut f = Form::new(&Catalog::builtin(), &Pricing::default());
        f.paste(Field::Prompt, "a red fox");
        f
    }

    fn check(f: &mut Form) -> &Check {
        f.touch();
        f.check()
    }

    #[test]
    fn grid_table() {
        let cases = [
            ("", Ok((0, 0))),
            ("16:9, 9:16", Ok((2, 0))),
            ("5 10", Ok((0, 2))),
            ("16:9 9:16 5,10", Ok((2, 2))),
            ("16:9 16:9", Ok((1, 0))),
            ("wide", Err(())),
            ("16:9 wide 4.5", Err(())),
        ];
        for (text, want) in cases {
            match (parse_grid(text), want) {
                (Ok(g), Ok((r, s))) => assert_eq!((g.ratios.len(), g.seconds.len()), (r, s), "{text}"),
                (Err(_), Err(())) => {}
                (got, want) => panic!("{text}: {got:?} {want:?}"),
            }
        }
    }

    #[test]
    fn every_bad_grid_token_is_named() {
        let e = parse_grid("16:9 wide 4.5, x").expect_err("bad").to_string();
        assert!(e.starts_with("\"wide\", \"4.5\" and \"x\" are neither ratios"), "{e}");
        assert!(parse_grid("wide").expect_err("bad").to_string().starts_with("\"wide\" is neither a ratio"));
    }

    #[test]
    fn a_new_media_item_has_the_type_the_model_needs() {
        let mut f = form();
        assert_eq!(f.media_kind_needed(), MediaKind::ReferenceImage);
        f.set_model(f.models().iter().position(|m| m.ends_with("/image-to-video")).expect("an i2v model"));
        assert_eq!(f.media_kind_needed(), MediaKind::FirstFrame);
        assert_eq!(MediaEditor::new(None, None, f.media_kind_needed()).kind, MediaKind::FirstFrame);
    }

    #[test]
    fn an_empty_prompt_is_a_problem_beside_the_prompt() {
        let mut f = Form::new(&Catalog::builtin(), &Pricing::default());
        let c = check(&mut f);
        assert!(!c.is_clean());
        assert_eq!(c.first_problem(Field::Prompt), Some("prompt is required and must not be blank"));
    }

    #[test]
    fn a_clean_form_plans_copies_times_grid() {
        let mut f = form();
        f.edit_line(Field::Copies, |l| *l = "2".into());
        f.edit_line(Field::Grid, |l| *l = "16:9 9:16 4 8".into());
        let c = check(&mut f);
        assert!(c.is_clean(), "{:?}", c.problems);
        assert_eq!((c.plan.len(), c.count), (4, 8));
        assert_eq!(c.billed, "48 s", "(4+8+4+8) × 2");
        assert_eq!(c.cost, "unpriced", "never 0 without a price");
    }

    #[test]
    fn grid_durations_are_checked_against_the_model() {
        let mut f = form();
        f.edit_line(Field::Grid, |l| *l = "5 45".into());
        let c = check(&mut f);
        assert!(c.first_problem(Field::Grid).is_some_and(|m| m.contains("45")), "{:?}", c.problems);
        assert!(c.plan.is_empty());
    }

    #[test]
    fn cost_uses_the_price_table() {
        let pricing = Pricing {
            currency: "$".into(),
            per_second: [("acme/aurora-3.0/text-to-video".to_string(), 0.1)].into_iter().collect(),
        };
        let mut f = Form::new(&Catalog::builtin(), &pricing);
        f.paste(Field::Prompt, "a red fox");
        f.edit_line(Field::Seconds, |l| *l = "10".into());
        assert_eq!((f.check().billed.as_str(), f.check().cost.as_str()), ("10 s", "$1.00"));
    }

    #[test]
    fn media_problems_point_at_the_media_field() {
        let mut f = form();
        f.put_media(None, MediaDraft::typed("reference_image", "https://x.org/a.png", None));
        let c = check(&mut f);
        assert!(c.first_problem(Field::Media).is_some_and(|m| m.contains("text-to-video")), "{:?}", c.problems);
    }

    #[test]
    fn cycling_choices_wraps() {
        let mut f = form();
        f.cycle(Field::Resolution, true);
        assert_eq!(f.resolution(), Resolution::P1080);
        f.cycle(Field::Resolution, true);
        assert_eq!(f.resolution(), Resolution::P480);
        f.cycle(Field::Ratio, false);
        assert_eq!(f.ratio(), Ratio::Adaptive);
        f.cycle(Field::Copies, false);
        assert_eq!(f.copies(), "1", "never below one");
        f.cycle(Field::Watermark, true);
        assert!(f.watermark());
    }

    #[test]
    fn pastes_lose_control_characters_and_stay_bounded() {
        assert_eq!(clean_paste("a\u{1b}[2Jb\r\nc\td"), "a[2Jb\ncd");
        assert_eq!(clean_paste("one\rtwo\r\rthree"), "one\ntwo\n\nthree", "CR line ends stay lines");
        assert_eq!(clean_paste(&"x".repeat(MAX_TEXT * 2)).len(), MAX_TEXT);
    }

    #[test]
    fn drafts_are_kept_cleared_and_undone() {
        let mut f = form();
        assert!(f.has_draft(), "typed and not sent");
        let kept = f.saved();
        f.sent();
        assert!(!f.has_draft(), "sent: the text stays for the next variation, not as a draft");
        let mut t = crate::store::fixtures::record(15, crate::store::LocalState::Downloaded);
        t.prompt = "a blue whale".into();
        f.load(&t);
        assert_eq!((f.prompt_text().as_str(), f.parent()), ("a blue whale", Some(15)));
        assert!(!f.has_draft(), "a task's text is not the user's draft");
        // Undo takes the task's text out, then brings the text before the variation back.
        f.edit(Field::Prompt, TextOp::Undo);
        f.edit(Field::Prompt, TextOp::Undo);
        assert_eq!(f.prompt_text(), "a red fox");
        f.clear();
        assert_eq!((f.prompt_text().as_str(), f.parent(), f.copies()), ("", None, "1"));
        let mut again = Form::new(&Catalog::builtin(), &Pricing::default());
        again.restore(&kept);
        assert_eq!((again.prompt_text(), again.saved()), ("a red fox".to_string(), kept));
        assert!(again.has_draft() && again.check().is_clean());
    }
}
