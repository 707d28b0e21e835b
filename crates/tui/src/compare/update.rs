//! The compare view in the dashboard (`C`): opening it from the marked tasks or the selected
//! task's batch, its keys (focus, pages, ratings, the pick, blind mode, playing together), the
//! clips for playing together, and the pictures made for the posters' areas.

use image::RgbImage;
use ratatui::layout::{Rect, Size};

use crate::app::{App, Effect, Level, Screen};
use crate::compare::layout::{self, Grid};
use crate::compare::{Compare, Source, choose_takes};
use crate::keymap::Cmd;
use crate::latest::Ticket;
use crate::preview::update::{aspect, pixels};
use crate::preview::{PLAY_FPS, PreviewFailure, picture};
use reel_store::review::Change;

/// Largest frame decoded for playing together, in pixels: up to four clips are held in memory
/// whole (at most 0.1 MB a frame, 10 a second), and the posters are small.
const CLIP_BOUND: (u32, u32) = (256, 256);
/// Frames kept of each clip: the first 20 seconds.
pub const CLIP_FRAMES: usize = 20 * PLAY_FPS as usize;

/// Where one take on the page goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TakeArea {
    /// The take's index among all the takes.
    pub index: usize,
    /// Its box, border included.
    pub cell: Rect,
    pub poster: Option<Rect>,
    pub text: Rect,
}

/// What the compare view draws where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompareAreas {
    /// One line over the takes: how many, the page, blind mode.
    pub title: Rect,
    pub grid: Grid,
    pub takes: Vec<TakeArea>,
}

impl App {
    pub fn compare(&self) -> Option<&Compare> {
        self.compare.as_ref()
    }

    /// `C`: the marked tasks side by side, or the saved takes of the selected task's batch.
    pub(crate) fn open_compare(&mut self) -> Vec<Effect> {
        let chosen = match self.screen {
            Screen::Dashboard => {
                let marked = self
                    .table
                    .view()
                    .iter()
                    .filter(|id| self.table.marks().contains(id))
                    .filter_map(|id| self.table.row(*id))
                    .map(|r| (&r.record, r.file_present))
                    .collect();
                let selected = self.table.selected_row().map(|r| &r.record);
                choose_takes(marked, selected, self.table.rows().map(|r| (&r.record, r.file_present)))
            }
            Screen::History => {
                let selected = self.history.selected_row().map(|r| &r.record);
                choose_takes(Vec::new(), selected, self.history.rows().iter().map(|r| (&r.record, r.file_present)))
            }
        };
        let takes = match chosen {
            Ok(takes) => takes,
            Err(why) => {
                self.say(Level::Info, why.message());
                return Vec::new();
            }
        };
        let n = takes.len();
        self.compare = Some(Compare::new(takes));
        let per_page = self.compare_areas().map_or(1, |a| a.grid.per_page());
        let more = if n > per_page { " (PgDn shows the others)" } else { "" };
        self.say(Level::Info, format!("Comparing {n} takes{more}: 1-5 rates one, Enter picks it"));
        // The inline player's pane is out of sight now.
        if self.previews.stop() { vec![Effect::PlayStop] } else { Vec::new() }
    }

    /// A command of the compare view; `C` anywhere opens it.
    pub(crate) fn compare_command(&mut self, cmd: Cmd) -> Vec<Effect> {
        if cmd == Cmd::Compare && self.compare.is_none() {
            return self.open_compare();
        }
        let per_page = self.compare_areas().map_or(1, |a| a.grid.per_page());
        let now = self.now_ms;
        let Some(c) = self.compare.as_mut() else { return Vec::new() };
        match cmd {
            Cmd::CloseOverlay | Cmd::Compare => {
                self.compare = None;
                // What it said was about the comparison.
                self.status = None;
            }
            Cmd::ValuePrev | Cmd::ValueNext => c.step(cmd == Cmd::ValueNext),
            Cmd::PageUp | Cmd::PageDown => c.page(cmd == Cmd::PageDown, per_page),
            Cmd::Pick | Cmd::Rate1 | Cmd::Rate2 | Cmd::Rate3 | Cmd::Rate4 | Cmd::Rate5
                if let Some(why) = c.no_video() =>
            {
                self.say(Level::Warn, why);
            }
            Cmd::Pick => {
                if let Some((id, unpicked)) = c.pick() {
                    let name = c.name(c.focus());
                    // The pick moved: said with the take it moved from, by the name shown here.
                    let was: Vec<String> = unpicked
                        .iter()
                        .map(|w| {
                            c.takes().iter().position(|t| t.record.id == *w).map_or(format!("#{w}"), |i| c.name(i))
                        })
                        .collect();
                    let text = if was.is_empty() {
                        format!("Picked {name} as the winner")
                    } else {
                        format!("{name} is now the pick; {} was", was.join(" and "))
                    };
                    self.say(Level::Info, text);
                    let mut effects = self.review_take(id, Change::Pick(true));
                    for other in unpicked {
                        effects.extend(self.review_take(other, Change::Pick(false)));
                    }
                    return effects;
                }
            }
            Cmd::Blind => {
                c.toggle_blind(now.unsigned_abs());
                let text = if c.blind() {
                    "Blind: the takes are shuffled and named by letter; rate each (1-5) to reveal them"
                } else {
                    "Blind mode off"
                };
                self.say(Level::Info, text);
            }
            Cmd::Play => return self.compare_play(),
            Cmd::PlayPause => {
                c.toggle_pause(now);
            }
            Cmd::PlayStop => {
                c.stop();
            }
            cmd => {
                let hidden = !c.revealed();
                if let Some(rating) = cmd.rating()
                    && let Some(id) = c.rate(rating)
                {
                    let name = c.name(c.focus());
                    let text = if hidden && c.revealed() {
                        format!("Rated {name} {rating} of 5: every take is rated, so here is which is which")
                    } else {
                        format!("Rated {name} {rating} of 5")
                    };
                    self.say(Level::Info, text);
                    return self.review_take(id, Change::Rate(Some(rating)));
                }
            }
        }
        Vec::new()
    }

    /// `p`: plays every take together (their clips decoded first), or stops.
    pub(crate) fn compare_play(&mut self) -> Vec<Effect> {
        let Some(c) = self.compare.as_mut() else { return Vec::new() };
        if c.stop() {
            return Vec::new();
        }
        if let Some(why) = self.previews.no_ffmpeg() {
            let why = why.to_string();
            self.say(Level::Warn, why);
            return Vec::new();
        }
        if c.takes().iter().all(|t| t.file.is_none()) {
            self.say(Level::Info, "None of these takes has a saved video to play");
            return Vec::new();
        }
        // Half blocks show two pixels a cell: twice that is plenty (a tenth of the memory).
        let cell = if self.previews.half_blocks() { (2, 4) } else { self.previews.cell() };
        let areas = self.compare_areas();
        let (px_w, px_h) = areas
            .as_ref()
            .and_then(|a| a.takes.iter().find_map(|t| t.poster))
            .map(|p| pixels(p, cell))
            .unwrap_or(CLIP_BOUND);
        // Only the takes on screen are decoded (at most four): a batch of a hundred takes
        // played at once would hold gigabytes of frames.
        let shown: Vec<usize> = areas.map(|a| a.takes.iter().map(|t| t.index).collect()).unwrap_or_default();
        let Some(c) = self.compare.as_mut() else { return Vec::new() };
        let ticket = c.play();
        let (mut files, mut off_page) = (Vec::new(), Vec::new());
        let missing: Vec<usize> = c
            .takes()
            .iter()
            .enumerate()
            .filter_map(|(i, t)| match &t.file {
                Some((sha, path)) if shown.contains(&i) => {
                    files.push((i, sha.clone(), path.clone()));
                    None
                }
                Some(_) => {
                    off_page.push(i);
                    None
                }
                None => Some(i),
            })
            .collect();
        for i in missing {
            c.clip_arrived(ticket, i, Err("no saved video".into()), self.now_ms);
        }
        for i in off_page {
            c.clip_arrived(ticket, i, Err("not on this page".into()), self.now_ms);
        }
        self.say(Level::Info, "Decoding the takes to play them together…");
        vec![Effect::LoadClips {
            ticket,
            files,
            width: px_w.min(CLIP_BOUND.0),
            height: px_h.min(CLIP_BOUND.1),
            fps: PLAY_FPS,
            frames: CLIP_FRAMES,
        }]
    }

    /// A take's clip for playing together arrived (or could not be made).
    pub(crate) fn clip_arrived(&mut self, ticket: Ticket, take: usize, result: Result<Vec<RgbImage>, PreviewFailure>) {
        let now = self.now_ms;
        let Some(c) = self.compare.as_mut() else { return };
        let playing = c.playback().is_some_and(|p| p.ticket == ticket);
        let clip = result.map(std::sync::Arc::new).map_err(|f| f.message);
        if let (true, Err(why)) = (playing, &clip) {
            let name = c.name(take);
            let why = why.clone();
            self.say(Level::Warn, format!("{name} cannot play: {why}"));
        }
        let Some(c) = self.compare.as_mut() else { return };
        let waiting = c.playback().is_some_and(|p| p.clock.is_none());
        c.clip_arrived(ticket, take, clip, now);
        // The last clip in starts the clock: "Decoding…" is no longer true.
        if let Some(p) = c.playback().filter(|p| waiting && p.clock.is_some()) {
            let (ok, all) = (p.clips.iter().flatten().filter(|c| c.is_ok()).count(), p.clips.len());
            let text = if ok == all { format!("{all} takes") } else { format!("{ok} of {all} takes") };
            self.say(Level::Info, format!("Playing {text} together: Space pauses, Esc stops"));
        }
    }

    /// Where the compare view draws, for the size of the terminal now; `None` when closed.
    pub fn compare_areas(&self) -> Option<CompareAreas> {
        let c = self.compare.as_ref()?;
        let (w, h) = self.size;
        let body = Rect { x: 0, y: 1, width: w, height: h.saturating_sub(3) };
        let title = Rect { height: body.height.min(1), ..body };
        let grid_area = Rect { y: body.y + title.height, height: body.height - title.height, ..body };
        let grid = layout::choose(grid_area, c.takes().len());
        let first = layout::first_shown(c.focus(), grid.per_page());
        let takes = layout::cells(grid_area, grid)
            .into_iter()
            .zip(first..c.takes().len())
            .map(|(cell, index)| {
                let t = &c.takes()[index];
                let stills = t.file.as_ref().and_then(|(sha, _)| self.previews.stills(sha)).map(|s| s.as_ref());
                let inner = cell.inner(ratatui::layout::Margin::new(1, 1));
                let (poster, text) = layout::poster_and_text(inner, aspect(&t.record, stills), self.previews.cell());
                TakeArea { index, cell, poster, text }
            })
            .collect();
        Some(CompareAreas { title, grid, takes })
    }

    /// After every update: the stills of the takes on screen asked for, and each poster's
    /// picture made (from the clip's frame of the clock while playing).
    /// The compare view's takes show the reviews the table has (given here, in another
    /// dashboard or by a command), as the engine reports them.
    pub(crate) fn sync_compare_reviews(&mut self) {
        let Some(c) = self.compare.as_mut() else { return };
        let reviews: Vec<(i64, reel_store::Review)> = c
            .takes()
            .iter()
            .filter_map(|t| {
                let now = self.table.row(t.record.id).map(|r| &r.record.review)?;
                (*now != t.record.review).then(|| (t.record.id, now.clone()))
            })
            .collect();
        for (id, review) in reviews {
            c.reviewed(id, &review);
        }
    }

    pub(crate) fn sync_compare(&mut self) -> Vec<Effect> {
        let Some(areas) = self.compare_areas() else { return Vec::new() };
        let mut effects = Vec::new();
        let frames = self.compare.as_ref().and_then(|c| c.frames_at(self.now_ms, PLAY_FPS));
        for a in areas.takes {
            let Some(c) = self.compare.as_ref() else { break };
            let (Some(poster), Some((sha, path))) = (a.poster, c.takes()[a.index].file.clone()) else { continue };
            let size = poster.as_size();
            let frame = frames.as_ref().and_then(|f| f.get(a.index).copied().flatten());
            let made = match (frame, c.playback()) {
                (Some(n), Some(p)) => {
                    let source = Source::Frame(p.ticket, n);
                    let clip = p.clips.get(a.index).cloned().flatten().and_then(Result::ok);
                    self.make_picture(a.index, source, size, clip.as_ref().and_then(|c| c.get(n)))
                }
                _ => {
                    let stills = self.previews.stills(&sha).cloned();
                    if stills.is_none() && self.previews.want_stills(&sha) {
                        effects.push(Effect::LoadStills { sha256: sha.clone(), path });
                    }
                    self.make_picture(a.index, Source::Poster(sha), size, stills.as_ref().map(|s| &s.poster))
                }
            };
            if let Some((index, source, p)) = made
                && let Some(c) = self.compare.as_mut()
            {
                c.put_picture(index, source, size, p);
            }
        }
        effects
    }

    /// A picture of `image` for take `index`'s poster area of `size`, unless one from the same
    /// source and of that size is there.
    pub(crate) fn make_picture(
        &self,
        index: usize,
        source: Source,
        size: Size,
        image: Option<&RgbImage>,
    ) -> Option<(usize, Source, crate::preview::Picture)> {
        let c = self.compare.as_ref()?;
        if !c.wants_picture(index, &source, size) {
            return None;
        }
        let p = picture(self.previews.picker(), image?, size)?;
        Some((index, source, p))
    }
}

#[cfg(test)]
impl App {
    /// Opens a comparison of these tasks of the table, as `C` does with them marked.
    pub(crate) fn compare_takes(&mut self, ids: Vec<i64>) {
        let takes = ids
            .into_iter()
            .filter_map(|id| self.table.row(id))
            .map(|r| crate::compare::Take::new(r.record.clone(), r.file_present))
            .collect();
        self.compare = Some(Compare::new(takes));
    }
}
