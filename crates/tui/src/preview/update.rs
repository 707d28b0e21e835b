//! Previews in the dashboard: which task's frames the detail pane shows, asking for them,
//! making their pictures for the areas on screen, the inline player (`p`, Space, Esc) and the
//! history grid's thumbnails.

use image::RgbImage;
use ratatui::layout::{Rect, Size};

use crate::app::{App, Effect, Level, Screen};
use crate::keymap::Cmd;
use crate::latest::Ticket;
use crate::layout;
use crate::preview::fit::{Fit, Grid, fit};
use crate::preview::{PLAY_FPS, PreviewFailure};
use reel_engine::preview::{STRIP, Stills};
use reel_store::{LocalState, TaskRecord};

/// A task whose saved file can be previewed.
#[derive(Debug, Clone, PartialEq)]
pub struct Subject {
    pub id: i64,
    pub sha256: String,
    pub path: String,
}

/// The saved, verified file of `t`, if it can be previewed (`present`: as last looked on disk).
pub fn subject(t: &TaskRecord, present: Option<bool>) -> Option<Subject> {
    match (&t.file_path, &t.sha256) {
        (Some(path), Some(sha)) if t.state == LocalState::Downloaded && present != Some(false) => {
            Some(Subject { id: t.id, sha256: sha.clone(), path: path.clone() })
        }
        _ => None,
    }
}

/// Width over height of the task's frames: the stills' own when known, else its ratio setting.
pub(crate) fn aspect(t: &TaskRecord, stills: Option<&Stills>) -> f64 {
    if let Some(s) = stills
        && s.poster.height() > 0
    {
        return f64::from(s.poster.width()) / f64::from(s.poster.height());
    }
    let mut parts = t.ratio.split(':').map(|p| p.trim().parse::<f64>().ok());
    match (parts.next().flatten(), parts.next().flatten()) {
        (Some(w), Some(h)) if w > 0.0 && h > 0.0 => w / h,
        _ => 16.0 / 9.0,
    }
}

/// A region's size in pixels, as the picker measures cells.
pub(crate) fn pixels(area: Rect, cell: (u16, u16)) -> (u32, u32) {
    (u32::from(area.width) * u32::from(cell.0), u32::from(area.height) * u32::from(cell.1))
}

impl App {
    /// The task the visible detail pane is about, and its record.
    pub(crate) fn detail_record(&self) -> Option<(&TaskRecord, Option<bool>)> {
        match self.screen {
            Screen::Dashboard => self.table.selected_row().map(|r| (&r.record, r.file_present)),
            Screen::History if !self.history.show_ledger() => {
                self.history.selected_row().map(|r| (&r.record, r.file_present))
            }
            Screen::History => None,
        }
    }

    /// The detail pane's inner area on screen now.
    pub(crate) fn detail_inner(&self) -> Rect {
        let frame = Rect::new(0, 0, self.size.0, self.size.1);
        let pane = match self.screen {
            Screen::Dashboard => self.areas().detail,
            Screen::History => layout::history(frame, self.history.grid()).below,
        };
        pane.inner(ratatui::layout::Margin::new(1, 1))
    }

    /// Where the poster, strip and text go in the detail pane whose inner area is `inner`, for
    /// the task it shows; `None` when there is nothing to preview or no room. Drawing and
    /// `update` both ask this, so pictures are made for exactly the areas drawn.
    pub fn preview_fit(&self, inner: Rect) -> Option<(Subject, Fit)> {
        let (t, present) = self.detail_record()?;
        let s = subject(t, present)?;
        use crate::preview::Missing;
        if matches!(self.previews.missing(&s.sha256), Some(Missing::Failed(_) | Missing::NeedsFfmpeg(_))) {
            return None;
        }
        let stills = self.previews.stills(&s.sha256).map(|a| a.as_ref());
        let f = fit(inner, aspect(t, stills), self.previews.cell(), STRIP)?;
        Some((s, f))
    }

    /// The area the detail's text wraps in (all of `inner` when no picture is drawn).
    pub fn detail_text_area(&self, inner: Rect) -> Rect {
        self.preview_fit(inner).map_or(inner, |(_, f)| f.text)
    }

    /// Whether the inline player is on and its keys (Space, Esc) apply.
    pub fn playing(&self) -> bool {
        self.previews.playing().is_some() && self.overlay.is_none()
    }

    /// `p`, Space and Esc of the player, and `g` for the history grid.
    pub(crate) fn preview_command(&mut self, cmd: Cmd) -> Option<Vec<Effect>> {
        match cmd {
            Cmd::Play => Some(self.toggle_play()),
            Cmd::PlayPause => {
                let held = self.previews.toggle_pause()?;
                Some(vec![Effect::PlayPause(held)])
            }
            Cmd::PlayStop => {
                self.previews.stop();
                Some(vec![Effect::PlayStop])
            }
            Cmd::ToggleGrid if self.screen == Screen::History => {
                self.history.toggle_grid();
                self.detail_scroll = 0;
                Some(Vec::new())
            }
            _ => None,
        }
    }

    pub(crate) fn toggle_play(&mut self) -> Vec<Effect> {
        if self.previews.stop() {
            return vec![Effect::PlayStop];
        }
        if let Some(why) = self.previews.no_ffmpeg() {
            let why = why.to_string();
            self.say(Level::Warn, why);
            return Vec::new();
        }
        let Some((t, present)) = self.detail_record() else {
            self.say(Level::Info, "Select a task with a saved video to play it");
            return Vec::new();
        };
        let Some(s) = subject(t, present) else {
            let why = if t.file_path.is_some() && present == Some(false) {
                "The file is missing (moved or deleted); d downloads it again while its URL works"
            } else {
                "This task has no saved video to play yet"
            };
            self.say(Level::Info, why);
            return Vec::new();
        };
        let Some((_, f)) = self.preview_fit(self.detail_inner()) else {
            self.say(Level::Info, "No room to play here: enlarge the terminal, or o opens the player");
            return Vec::new();
        };
        let (width, height) = pixels(f.poster, self.previews.cell());
        let ticket = self.previews.play(s.id, s.sha256.clone(), s.path.clone());
        vec![Effect::Play { ticket, sha256: s.sha256, path: s.path, width, height, fps: PLAY_FPS }]
    }

    /// A frame of the player arrived (frames of an earlier start are dropped).
    pub(crate) fn play_frame(&mut self, ticket: Ticket, frame: RgbImage) {
        self.previews.frame_arrived(ticket, frame);
    }

    /// The player could not start or stopped on an error.
    pub(crate) fn play_failed(&mut self, ticket: Ticket, message: String) {
        if let Some(p) = self.previews.play_failed(ticket) {
            // The file's name, not its whole path, so the reason fits on the line.
            let name = std::path::Path::new(&p.path).file_name().map(|n| n.to_string_lossy().into_owned());
            let message = name.map_or(message.clone(), |n| message.replace(&p.path, &n));
            self.say(Level::Error, format!("Cannot play the preview: {message}"));
        }
    }

    pub(crate) fn stills_arrived(&mut self, sha256: String, result: Result<Stills, PreviewFailure>) {
        match result {
            Ok(stills) => self.previews.add_stills(sha256, stills),
            Err(f) => self.previews.add_failure(sha256, f.message, f.no_ffmpeg),
        }
    }

    pub(crate) fn thumb_arrived(&mut self, sha256: String, result: Result<RgbImage, PreviewFailure>) {
        match result {
            Ok(image) => self.previews.add_thumb(sha256, image),
            Err(f) => self.previews.thumb_failed(sha256, f.message, f.no_ffmpeg),
        }
    }

    /// After every update: ask for the frames now on screen, make their pictures for the areas
    /// they take, and keep the player in step with what is visible.
    pub(crate) fn sync_previews(&mut self) -> Vec<Effect> {
        let mut effects = Vec::new();
        let subject = self.detail_record().and_then(|(t, present)| subject(t, present));
        // The player plays the task in the pane; another task, or none, stops it.
        if let Some(p) = self.previews.playing()
            && subject.as_ref().map(|s| (s.id, s.sha256.as_str())) != Some((p.task, p.sha256.as_str()))
        {
            self.previews.stop();
            effects.push(Effect::PlayStop);
        }
        if let Some(s) = &subject
            && self.previews.want_stills(&s.sha256)
        {
            effects.push(Effect::LoadStills { sha256: s.sha256.clone(), path: s.path.clone() });
        }
        let fit = self.preview_fit(self.detail_inner());
        match &fit {
            Some((s, f)) => self.previews.show(&s.sha256, f.poster, &f.strip),
            None => self.previews.hide(),
        }
        let hidden = fit.is_none() || self.overlay.is_some() || self.compare.is_some();
        let poster = fit.map(|(_, f)| f.poster.as_size()).unwrap_or_default();
        if let Some(held) = self.previews.step_player(poster, hidden) {
            effects.push(Effect::PlayPause(held));
        }
        if self.screen == Screen::History && self.history.grid() {
            effects.extend(self.sync_grid());
        }
        effects
    }

    /// The grid's geometry in its area on screen now.
    pub fn grid(&self) -> (Rect, Grid) {
        let frame = Rect::new(0, 0, self.size.0, self.size.1);
        let area = layout::history(frame, true).list.inner(ratatui::layout::Margin::new(1, 1));
        (area, Grid::of(area, self.previews.cell()))
    }

    /// The history rows the grid shows now, by index.
    pub fn grid_rows(&self) -> std::ops::Range<usize> {
        let (_, g) = self.grid();
        let n = self.history.rows().len();
        let first = g.first_row(self.history.selected(), n) * usize::from(g.cols);
        first.min(n)..(first + g.cells()).min(n)
    }

    pub(crate) fn sync_grid(&mut self) -> Vec<Effect> {
        let (_, g) = self.grid();
        let mut wanted = Vec::new();
        let mut shas = Vec::new();
        for i in self.grid_rows() {
            let r = &self.history.rows()[i];
            if let Some(s) = subject(&r.record, r.file_present) {
                shas.push(s.sha256.clone());
                wanted.push(s);
            }
        }
        let ask: Vec<(String, String)> =
            wanted.into_iter().filter(|s| self.previews.want_thumb(&s.sha256)).map(|s| (s.sha256, s.path)).collect();
        self.previews.show_thumbs(shas.iter().map(String::as_str), Size::new(g.poster.0, g.poster.1));
        let (width, height) = pixels(Rect::new(0, 0, g.poster.0, g.poster.1), self.previews.cell());
        if ask.is_empty() { Vec::new() } else { vec![Effect::LoadThumbs { files: ask, width, height }] }
    }
}
