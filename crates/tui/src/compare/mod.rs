//! The compare view's state: two or more takes side by side, the one with the keys, the
//! ratings and the pick given here, blind mode, and the takes played together on one clock.
//! `diff` says what tells the takes apart, `layout` where they go, `sync` which frame each
//! shows, `blind` their shuffled order and letters; `update` opens it and takes its keys,
//! `view` draws it.

pub mod blind;
pub mod diff;
pub mod layout;
pub mod sync;
pub mod update;
pub mod view;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use image::RgbImage;
use ratatui::layout::Size;

use crate::latest::{Latest, Ticket};
use crate::preview::Picture;
use reel_store::{LocalState, TaskRecord};

/// One take: its record and, when it has one, its saved file as (sha256, path).
#[derive(Debug, Clone, PartialEq)]
pub struct Take {
    pub record: TaskRecord,
    pub file: Option<(String, String)>,
}

impl Take {
    pub fn new(record: TaskRecord, present: Option<bool>) -> Take {
        let file = match (&record.file_path, &record.sha256) {
            (Some(path), Some(sha)) if record.state == LocalState::Downloaded && present != Some(false) => {
                Some((sha.clone(), path.clone()))
            }
            _ => None,
        };
        Take { record, file }
    }
}

/// A take's decoded clip for playing together, or why it has none.
pub type Clip = Result<Arc<Vec<RgbImage>>, String>;

/// The takes playing together.
#[derive(Debug, Clone)]
pub struct Playback {
    pub ticket: Ticket,
    /// By take (in the view's order); `None` while it is being decoded.
    pub clips: Vec<Option<Clip>>,
    /// Started once every clip is in.
    pub clock: Option<sync::Clock>,
}

impl Playback {
    /// Whether every take's clip has arrived (or failed).
    pub fn ready(&self) -> bool {
        self.clips.iter().all(Option::is_some)
    }

    /// The frames of each take's clip (0 for none).
    pub fn lens(&self) -> Vec<usize> {
        self.clips.iter().map(|c| c.as_ref().and_then(|c| c.as_ref().ok()).map_or(0, |f| f.len())).collect()
    }
}

/// What a take's picture was made from, so it is made again only when that changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Poster(String),
    Frame(Ticket, usize),
}

/// Why the compare view cannot open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// One task is marked: a comparison needs another.
    OneMarked,
    /// The selected task's batch has fewer than two saved takes.
    SmallBatch(usize),
    /// No marks, and the selected task was sent alone (or nothing is selected).
    Nothing,
}

impl Refusal {
    pub fn message(&self) -> String {
        match self {
            Refusal::OneMarked => "Mark one more task (Space) to compare it with the marked one".into(),
            Refusal::SmallBatch(n) => {
                format!("This batch has {n} saved video{}: compare needs two; mark tasks with Space", plural(*n))
            }
            Refusal::Nothing => "Mark 2 to 4 tasks with Space, or select a task of a batch or grid, then C".into(),
        }
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The takes to compare, oldest first: the marked tasks when two or more are marked; else the
/// saved takes of the selected task's batch. Each record comes with
/// whether its file was last seen on disk.
pub fn choose_takes<'a>(
    marked: Vec<(&'a TaskRecord, Option<bool>)>,
    selected: Option<&TaskRecord>,
    rows: impl Iterator<Item = (&'a TaskRecord, Option<bool>)>,
) -> Result<Vec<Take>, Refusal> {
    if marked.len() >= 2 {
        let mut takes: Vec<Take> = marked.into_iter().map(|(t, p)| Take::new(t.clone(), p)).collect();
        takes.sort_by_key(|t| t.record.id);
        return Ok(takes);
    }
    let batch = selected.and_then(|s| s.batch_id);
    let Some(batch) = batch else {
        return Err(if marked.len() == 1 { Refusal::OneMarked } else { Refusal::Nothing });
    };
    let mut takes: Vec<Take> = rows
        .filter(|(t, _)| t.batch_id == Some(batch))
        .map(|(t, p)| Take::new(t.clone(), p))
        .filter(|t| t.file.is_some())
        .collect();
    takes.sort_by_key(|t| t.record.id);
    if takes.len() < 2 {
        return Err(Refusal::SmallBatch(takes.len()));
    }
    Ok(takes)
}

/// The compare view. Its takes are in the order shown (shuffled in blind mode).
#[derive(Debug, Clone)]
pub struct Compare {
    takes: Vec<Take>,
    /// The take with the keys (← →, a rating, Enter).
    focus: usize,
    /// Blind mode: labels instead of names, model and settings hidden until all are rated.
    blind: bool,
    ratings: BTreeMap<i64, u8>,
    picked: Option<i64>,
    playback: Option<Playback>,
    starts: Latest,
    /// By take index: the picture made for its poster area, and from what and for what size.
    pictures: HashMap<usize, (Source, Size, Picture)>,
}

impl Compare {
    /// The takes with the reviews they have: their ratings and the batch's pick shown at once.
    pub fn new(takes: Vec<Take>) -> Compare {
        let mut c = Compare {
            takes,
            focus: 0,
            blind: false,
            ratings: BTreeMap::new(),
            picked: None,
            playback: None,
            starts: Latest::default(),
            pictures: HashMap::new(),
        };
        c.reviews_as_journaled();
        c
    }

    /// The ratings and the pick as the takes' records have them.
    fn reviews_as_journaled(&mut self) {
        self.ratings = self.takes.iter().filter_map(|t| Some((t.record.id, t.record.review.rating?))).collect();
        self.picked = self.takes.iter().find(|t| t.record.review.picked).map(|t| t.record.id);
    }

    /// A take's review as the engine now has it (a rating or pick given here, or elsewhere).
    pub fn reviewed(&mut self, id: i64, review: &reel_store::Review) {
        let Some(t) = self.takes.iter_mut().find(|t| t.record.id == id) else { return };
        t.record.review = review.clone();
        // A blind comparison keeps to the ratings given blind.
        if !self.blind {
            match review.rating {
                Some(r) => self.ratings.insert(id, r),
                None => self.ratings.remove(&id),
            };
        }
        if review.picked {
            self.picked = Some(id);
        } else if self.picked == Some(id) {
            self.picked = None;
        }
    }

    /// Why a take cannot be rated or picked here: it has no video to judge.
    pub fn no_video(&self) -> Option<String> {
        let t = self.focused()?;
        if t.file.is_some() {
            return None;
        }
        let why = match t.record.state {
            LocalState::Downloaded => "its saved file is missing".to_string(),
            s if s.is_settled() => format!("it ended {s}"),
            s => format!("it is {s}, not saved yet"),
        };
        Some(format!("{} has no video to judge: {why}", self.name(self.focus)))
    }

    pub fn takes(&self) -> &[Take] {
        &self.takes
    }

    pub fn focus(&self) -> usize {
        self.focus
    }

    /// Moves the keys to the next or previous take, round the ends.
    pub fn step(&mut self, forward: bool) {
        let n = self.takes.len().max(1);
        self.focus = if forward { (self.focus + 1) % n } else { (self.focus + n - 1) % n };
    }

    /// Moves the keys a page on or back (the first take of that page), round the ends.
    pub fn page(&mut self, forward: bool, per_page: usize) {
        let per_page = per_page.max(1);
        let pages = self.takes.len().div_ceil(per_page).max(1);
        let page = self.focus / per_page;
        let page = if forward { (page + 1) % pages } else { (page + pages - 1) % pages };
        self.focus = page * per_page;
    }

    pub fn focused(&self) -> Option<&Take> {
        self.takes.get(self.focus)
    }

    pub fn blind(&self) -> bool {
        self.blind
    }

    /// Whether names, models and settings are shown: always, except in blind mode before
    /// every take has a rating.
    pub fn revealed(&self) -> bool {
        // A take with no video cannot be rated: it does not hold the reveal back.
        let judged: Vec<Option<u8>> =
            self.takes.iter().filter(|t| t.file.is_some()).map(|t| self.rating(t.record.id)).collect();
        !self.blind || blind::revealed(&judged)
    }

    /// Blind mode on (the takes shuffled from `seed`, the ratings given so far forgotten, so
    /// that each is given blind) or off. Playback stops: its clips are in the old order.
    pub fn toggle_blind(&mut self, seed: u64) {
        self.blind = !self.blind;
        if self.blind {
            let order = blind::order(self.takes.len(), seed);
            let mut takes: Vec<Option<Take>> = std::mem::take(&mut self.takes).into_iter().map(Some).collect();
            self.takes = order.into_iter().filter_map(|i| takes.get_mut(i).and_then(Option::take)).collect();
            self.ratings.clear();
            self.picked = None;
        } else {
            // Back in the order they were opened in, with the reviews they have now.
            self.takes.sort_by_key(|t| t.record.id);
            self.reviews_as_journaled();
        }
        self.focus = 0;
        self.playback = None;
        self.pictures.clear();
    }

    /// The take's name as the view writes it: its letter in blind mode, else its task number.
    pub fn name(&self, index: usize) -> String {
        match self.takes.get(index) {
            Some(t) if !self.blind => format!("#{}", t.record.id),
            _ => blind::label(index),
        }
    }

    pub fn rating(&self, id: i64) -> Option<u8> {
        self.ratings.get(&id).copied()
    }

    /// Rates the focused take (1 to 5); its id, for the journal. A take with no video is not
    /// rated (see [`Compare::no_video`]).
    pub fn rate(&mut self, rating: u8) -> Option<i64> {
        if self.no_video().is_some() {
            return None;
        }
        let id = self.focused()?.record.id;
        self.ratings.insert(id, rating.clamp(1, 5));
        Some(id)
    }

    pub fn picked(&self) -> Option<i64> {
        self.picked
    }

    /// Picks the focused take as the winner: its id, and the other takes that were picked
    /// (here or before), since a comparison has one winner.
    pub fn pick(&mut self) -> Option<(i64, Vec<i64>)> {
        if self.no_video().is_some() {
            return None;
        }
        let id = self.focused()?.record.id;
        let was = |t: &&Take| t.record.id != id && (self.picked == Some(t.record.id) || t.record.review.picked);
        let unpicked = self.takes.iter().filter(was).map(|t| t.record.id).collect();
        self.picked = Some(id);
        Some((id, unpicked))
    }

    /// The records of the takes other than `index`.
    pub fn others(&self, index: usize) -> Vec<&TaskRecord> {
        self.takes.iter().enumerate().filter(|(i, _)| *i != index).map(|(_, t)| &t.record).collect()
    }

    pub fn playback(&self) -> Option<&Playback> {
        self.playback.as_ref()
    }

    /// Starts playing every take together: a new start, each clip to be decoded.
    pub fn play(&mut self) -> Ticket {
        let ticket = self.starts.issue();
        self.playback = Some(Playback { ticket, clips: vec![None; self.takes.len()], clock: None });
        ticket
    }

    /// Stops playing; whether it was.
    pub fn stop(&mut self) -> bool {
        self.pictures.retain(|_, (s, _, _)| matches!(s, Source::Poster(_)));
        self.playback.take().is_some()
    }

    /// Pauses or goes on at `now_ms`; whether it is paused now (`None`: nothing plays yet).
    pub fn toggle_pause(&mut self, now_ms: i64) -> Option<bool> {
        let clock = self.playback.as_mut()?.clock.as_mut()?;
        Some(clock.toggle(now_ms))
    }

    /// Whether the clock runs (so the dashboard ticks to show the next frames).
    pub fn running(&self) -> bool {
        self.playback.as_ref().and_then(|p| p.clock).is_some_and(|c| !c.paused())
    }

    /// A take's clip arrived for the start `ticket`: kept, and once all are in the clock starts
    /// at `now_ms`. Clips of an older start are dropped.
    pub fn clip_arrived(&mut self, ticket: Ticket, take: usize, clip: Clip, now_ms: i64) {
        let Some(p) = self.playback.as_mut().filter(|p| p.ticket == ticket) else { return };
        if let Some(slot) = p.clips.get_mut(take) {
            *slot = Some(clip);
        }
        if p.ready() && p.clock.is_none() {
            p.clock = Some(sync::Clock::start(now_ms));
        }
    }

    /// The frame each take shows at `now_ms`, while playing; `None` before the clock starts.
    pub fn frames_at(&self, now_ms: i64, fps: u32) -> Option<Vec<Option<usize>>> {
        let p = self.playback.as_ref()?;
        let clock = p.clock?;
        Some(sync::frames_at(clock.elapsed(now_ms), fps, &p.lens()))
    }

    /// The picture of take `index`, if one was made for `size`.
    pub fn picture(&self, index: usize, size: Size) -> Option<&Picture> {
        self.pictures.get(&index).filter(|(_, s, _)| *s == size).map(|(_, _, p)| p)
    }

    /// Whether take `index` needs a picture made from `source` for `size`.
    pub fn wants_picture(&self, index: usize, source: &Source, size: Size) -> bool {
        self.pictures.get(&index).is_none_or(|(s, z, _)| s != source || *z != size)
    }

    pub fn put_picture(&mut self, index: usize, source: Source, size: Size, picture: Picture) {
        self.pictures.insert(index, (source, size, picture));
    }
}

#[cfg(test)]
mod tests;
