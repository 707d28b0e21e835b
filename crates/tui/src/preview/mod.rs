//! The dashboard's previews: decoded frames of recent tasks, the terminal's image protocol, the
//! pictures made for the areas on screen, and the inline player's state. Pictures are made in
//! `update` (when a frame arrives or an area changes), so drawing only copies them.

pub mod far;
pub mod fit;
pub mod update;
pub mod view;
pub mod work;

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

use image::{DynamicImage, RgbImage};
use ratatui::layout::{Rect, Size};
use ratatui_image::picker::{Picker, ProtocolType};
use ratatui_image::protocol::Protocol;
use ratatui_image::{FilterType, Resize};

use crate::latest::{Latest, Ticket};
use reel_engine::preview::Stills;

/// Why frames could not be had, as the effect reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreviewFailure {
    pub message: String,
    /// ffmpeg itself is missing: no task can have frames.
    pub no_ffmpeg: bool,
}

/// Decoded stills kept for tasks recently shown (a poster and strip are about 0.6 MB).
const STILLS_KEPT: usize = 8;
/// Grid thumbnails kept (about 0.1 MB each): a few screens of the grid.
const THUMBS_KEPT: usize = 96;
/// Frames per second of the inline player: smooth enough to judge motion, cheap to draw.
pub const PLAY_FPS: u32 = 10;

/// A picture ready to draw: the protocol's data for one area.
#[derive(Clone)]
pub struct Picture {
    pub protocol: Protocol,
    /// The size it was made for.
    pub size: Size,
}

impl std::fmt::Debug for Picture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Picture({}x{})", self.size.width, self.size.height)
    }
}

/// What the detail pane shows of a task's stills, made for the areas of the last layout.
#[derive(Debug, Clone)]
pub struct Shown {
    pub sha256: String,
    pub poster: Picture,
    pub strip: Vec<Picture>,
}

/// The inline player.
#[derive(Debug, Clone)]
pub struct Playing {
    pub task: i64,
    pub sha256: String,
    /// The file, to name it (not its whole path) when it cannot be played.
    pub path: String,
    /// Frames of an older start are dropped.
    pub ticket: Ticket,
    /// Space paused it.
    pub paused: bool,
    /// The pane is out of sight (an overlay, a pane too small): frames are held back.
    pub hidden: bool,
    /// The last frame, made for the poster's area.
    pub frame: Option<Picture>,
    /// A frame that arrived since the last `update`, not yet made into a picture.
    pub latest: Option<RgbImage>,
}

/// Why a task has no frames to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Missing {
    /// Being made or read.
    Loading,
    /// This file could not be previewed.
    Failed(String),
    /// ffmpeg is missing and this file is not in the cache: the message says how to get it.
    NeedsFfmpeg(String),
}

/// Frames of saved videos and their pictures, and the inline player. Its fields are its own:
/// pictures are made for the areas drawn, frames of an older start of the player are dropped.
pub struct Previews {
    picker: Picker,
    /// Set once ffmpeg turned out to be missing: what `p` says. Cached frames are still read.
    no_ffmpeg: Option<String>,
    stills: VecDeque<(String, Arc<Stills>)>,
    failed: HashMap<String, Missing>,
    pending: HashSet<String>,
    pending_thumbs: HashSet<String>,
    shown: Option<Shown>,
    thumbs: VecDeque<(String, RgbImage)>,
    /// Grid pictures, by sha256, made for the grid's poster size.
    thumb_pictures: HashMap<String, Picture>,
    thumb_size: Size,
    playing: Option<Playing>,
    player: Latest,
}

impl std::fmt::Debug for Previews {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Previews")
            .field("protocol", &self.picker.protocol_type())
            .field("no_ffmpeg", &self.no_ffmpeg)
            .field("stills", &self.stills.len())
            .field("shown", &self.shown)
            .field("playing", &self.playing)
            .finish_non_exhaustive()
    }
}

impl Default for Previews {
    fn default() -> Previews {
        Previews::new(Picker::halfblocks())
    }
}

/// How far (as a ratio) an image's shape may be from its area's and still be stretched to fill
/// it: a cell's rounding, which nobody sees, rather than a thin band at an edge.
const STRETCH: f64 = 0.06;

/// The part of a `w`x`h` box an image of `iw`x`ih` takes with its shape kept, centred:
/// (x, y, width, height). Within `STRETCH` of the box's shape, the whole box.
pub fn letterbox(iw: u32, ih: u32, w: u32, h: u32) -> (u32, u32, u32, u32) {
    let (image, boxed) = (f64::from(iw) / f64::from(ih.max(1)), f64::from(w) / f64::from(h.max(1)));
    if (image / boxed - 1.0).abs() <= STRETCH {
        return (0, 0, w, h);
    }
    let scale = f64::min(f64::from(w) / f64::from(iw.max(1)), f64::from(h) / f64::from(ih.max(1)));
    let (sw, sh) =
        (((f64::from(iw) * scale).round() as u32).clamp(1, w), ((f64::from(ih) * scale).round() as u32).clamp(1, h));
    ((w - sw) / 2, (h - sh) / 2, sw, sh)
}

/// Makes a picture of `image` for `area`: scaled to its pixels with the image's shape kept
/// (black bands, centred, when the shapes differ, as in the grid's 16:9 cells or a file whose
/// shape is not the one recorded).
pub fn picture(picker: &Picker, image: &RgbImage, area: Size) -> Option<Picture> {
    let font = picker.font_size();
    let (w, h) = (u32::from(area.width) * u32::from(font.width), u32::from(area.height) * u32::from(font.height));
    if w == 0 || h == 0 || image.width() == 0 || image.height() == 0 {
        return None;
    }
    let (x, y, sw, sh) = letterbox(image.width(), image.height(), w, h);
    let scaled = image::imageops::resize(image, sw, sh, FilterType::Triangle);
    let mut canvas = RgbImage::new(w, h);
    image::imageops::replace(&mut canvas, &scaled, i64::from(x), i64::from(y));
    let protocol = picker.new_protocol(DynamicImage::ImageRgb8(canvas), area, Resize::Fit(None)).ok()?;
    Some(Picture { size: area, protocol })
}

impl Previews {
    pub fn new(picker: Picker) -> Previews {
        Previews {
            picker,
            no_ffmpeg: None,
            stills: VecDeque::new(),
            failed: HashMap::new(),
            pending: HashSet::new(),
            pending_thumbs: HashSet::new(),
            shown: None,
            thumbs: VecDeque::new(),
            thumb_pictures: HashMap::new(),
            thumb_size: Size::default(),
            playing: None,
            player: Latest::default(),
        }
    }

    /// The shape of a terminal cell in pixels (nominal 1:2 for half blocks).
    pub fn cell(&self) -> (u16, u16) {
        let f = self.picker.font_size();
        (f.width, f.height)
    }

    /// Whether pictures are drawn in half blocks: two pixels a cell, so frames need no more.
    pub fn half_blocks(&self) -> bool {
        self.picker.protocol_type() == ProtocolType::Halfblocks
    }

    /// The protocol's name, for the help and the log.
    pub fn protocol_name(&self) -> &'static str {
        match self.picker.protocol_type() {
            ProtocolType::Halfblocks => "half blocks",
            ProtocolType::Sixel => "sixel",
            ProtocolType::Kitty => "kitty",
            ProtocolType::Iterm2 => "iTerm2",
        }
    }

    pub fn stills(&self, sha256: &str) -> Option<&Arc<Stills>> {
        self.stills.iter().find(|(s, _)| s == sha256).map(|(_, st)| st)
    }

    /// What stands in for the frames of `sha256`, when they are not there.
    pub fn missing(&self, sha256: &str) -> Option<Missing> {
        if self.stills(sha256).is_some() {
            None
        } else if let Some(why) = self.failed.get(sha256) {
            Some(why.clone())
        } else {
            Some(Missing::Loading)
        }
    }

    /// Whether the stills of `sha256` should be asked for now (and marks them asked).
    pub fn want_stills(&mut self, sha256: &str) -> bool {
        let known = self.stills(sha256).is_some() || self.failed.contains_key(sha256) || self.pending.contains(sha256);
        !known && self.pending.insert(sha256.to_string())
    }

    pub fn add_stills(&mut self, sha256: String, stills: Stills) {
        self.pending.remove(&sha256);
        self.stills.retain(|(s, _)| *s != sha256);
        self.stills.push_front((sha256, Arc::new(stills)));
        self.stills.truncate(STILLS_KEPT);
    }

    /// Frames could not be made; `no_ffmpeg` when ffmpeg itself is missing (files already in the
    /// cache still have theirs).
    pub fn add_failure(&mut self, sha256: String, message: String, no_ffmpeg: bool) {
        self.pending.remove(&sha256);
        let why = if no_ffmpeg {
            self.no_ffmpeg = Some(message.clone());
            Missing::NeedsFfmpeg(message)
        } else {
            Missing::Failed(message)
        };
        self.failed.insert(sha256, why);
    }

    /// Forget a failure (the file was downloaded again, so it may work now).
    pub fn forget(&mut self, sha256: &str) {
        self.failed.remove(sha256);
    }

    /// Makes the detail pane's pictures for `sha256` in `poster` and `strip` areas, unless the
    /// ones made last are for the same stills and areas.
    pub fn show(&mut self, sha256: &str, poster: Rect, strip: &[Rect]) {
        let same = self.shown.as_ref().is_some_and(|s| {
            s.sha256 == sha256
                && s.poster.size == poster.as_size()
                && s.strip.len() == strip.len()
                && s.strip.iter().zip(strip).all(|(p, r)| p.size == r.as_size())
        });
        if same {
            return;
        }
        let Some(stills) = self.stills(sha256).cloned() else {
            self.shown = None;
            return;
        };
        let made = picture(&self.picker, &stills.poster, poster.as_size()).map(|poster| Shown {
            sha256: sha256.to_string(),
            poster,
            strip: stills
                .strip
                .iter()
                .zip(strip)
                .filter_map(|(frame, area)| picture(&self.picker, frame, area.as_size()))
                .collect(),
        });
        self.shown = made;
    }

    pub fn picker(&self) -> &Picker {
        &self.picker
    }

    /// Why nothing can be played or previewed (ffmpeg is missing), once known.
    pub fn no_ffmpeg(&self) -> Option<&str> {
        self.no_ffmpeg.as_deref()
    }

    /// The pictures of the task in the detail pane, made for the areas drawn.
    pub fn shown(&self) -> Option<&Shown> {
        self.shown.as_ref()
    }

    /// Nothing is previewed in the detail pane.
    pub fn hide(&mut self) {
        self.shown = None;
    }

    /// A grid picture, by sha256.
    pub fn thumb_picture(&self, sha256: &str) -> Option<&Picture> {
        self.thumb_pictures.get(sha256)
    }

    pub fn playing(&self) -> Option<&Playing> {
        self.playing.as_ref()
    }

    /// Starts the player on a task's file; frames of older starts are dropped from now on.
    pub fn play(&mut self, task: i64, sha256: String, path: String) -> Ticket {
        let ticket = self.player.issue();
        self.playing =
            Some(Playing { task, sha256, path, ticket, paused: false, hidden: false, frame: None, latest: None });
        ticket
    }

    /// Stops the player; whether it was playing.
    pub fn stop(&mut self) -> bool {
        self.playing.take().is_some()
    }

    /// Space: pauses or goes on. Whether frames are held back now, or `None` with no player.
    pub fn toggle_pause(&mut self) -> Option<bool> {
        let p = self.playing.as_mut()?;
        p.paused = !p.paused;
        Some(p.paused || p.hidden)
    }

    /// A frame of the player arrived (frames of an earlier start, or while paused, are dropped).
    pub fn frame_arrived(&mut self, ticket: Ticket, frame: RgbImage) {
        if let Some(p) = self.playing.as_mut()
            && p.ticket == ticket
            && !p.paused
        {
            p.latest = Some(frame);
        }
    }

    /// The player of `ticket` could not go on: it stops, and is given back to say why.
    pub fn play_failed(&mut self, ticket: Ticket) -> Option<Playing> {
        self.playing.take_if(|p| p.ticket == ticket)
    }

    /// Keeps the player in step with the screen: the newest frame made into a picture for the
    /// poster's area, and whether its pane is out of sight. Returns whether the frames must now
    /// be held back (`Some(true)`) or let come again (`Some(false)`), when that changed.
    pub fn step_player(&mut self, poster: Size, hidden: bool) -> Option<bool> {
        let p = self.playing.as_mut()?;
        if let Some(frame) = p.latest.take() {
            p.frame = picture(&self.picker, &frame, poster).or(p.frame.take());
        }
        if p.hidden == hidden {
            return None;
        }
        p.hidden = hidden;
        (!p.paused).then_some(hidden)
    }

    /// Whether the grid thumbnail of `sha256` should be asked for now (and marks it asked).
    pub fn want_thumb(&mut self, sha256: &str) -> bool {
        let known = self.thumbs.iter().any(|(s, _)| s == sha256)
            || self.failed.contains_key(sha256)
            || self.pending_thumbs.contains(sha256);
        !known && self.pending_thumbs.insert(sha256.to_string())
    }

    pub fn add_thumb(&mut self, sha256: String, image: RgbImage) {
        self.pending_thumbs.remove(&sha256);
        self.thumbs.retain(|(s, _)| *s != sha256);
        self.thumbs.push_front((sha256, image));
        if self.thumbs.len() > THUMBS_KEPT
            && let Some((gone, _)) = self.thumbs.pop_back()
        {
            self.thumb_pictures.remove(&gone);
        }
    }

    pub fn thumb_failed(&mut self, sha256: String, message: String, no_ffmpeg: bool) {
        self.pending_thumbs.remove(&sha256);
        self.add_failure(sha256, message, no_ffmpeg);
    }

    /// Makes grid pictures of `size` for the thumbnails of `shas` that have none of that size.
    pub fn show_thumbs<'a>(&mut self, shas: impl Iterator<Item = &'a str>, size: Size) {
        if size != self.thumb_size {
            self.thumb_pictures.clear();
            self.thumb_size = size;
        }
        for sha in shas {
            if self.thumb_pictures.contains_key(sha) {
                continue;
            }
            if let Some((_, image)) = self.thumbs.iter().find(|(s, _)| s == sha)
                && let Some(p) = picture(&self.picker, image, size)
            {
                self.thumb_pictures.insert(sha.to_string(), p);
            }
        }
    }

    /// Whether a grid cell's thumbnail is loading (as opposed to failed or impossible).
    pub fn thumb_missing(&self, sha256: &str) -> Missing {
        self.failed.get(sha256).cloned().unwrap_or(Missing::Loading)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stills(color: [u8; 3]) -> Stills {
        Stills {
            poster: RgbImage::from_pixel(48, 27, image::Rgb(color)),
            strip: vec![RgbImage::from_pixel(16, 9, image::Rgb(color)); 5],
        }
    }

    #[test]
    fn stills_are_asked_for_once_and_the_recent_ones_kept() {
        let mut p = Previews::default();
        assert!(p.want_stills("a"));
        assert!(!p.want_stills("a"), "already asked");
        assert_eq!(p.missing("a"), Some(Missing::Loading));
        p.add_stills("a".into(), stills([255, 0, 0]));
        assert!(!p.want_stills("a") && p.missing("a").is_none());
        for i in 0..STILLS_KEPT {
            p.add_stills(format!("x{i}"), stills([0, 0, 0]));
        }
        assert!(p.stills("a").is_none(), "the oldest is dropped");
        assert!(p.want_stills("a"), "and asked for again when wanted");
        p.add_failure("b".into(), "not a video".into(), false);
        assert_eq!(p.missing("b"), Some(Missing::Failed("not a video".into())));
        assert!(!p.want_stills("b"), "a failure is not retried on every frame");
        p.forget("b");
        assert!(p.want_stills("b"));
        p.add_failure("c".into(), "previews need ffmpeg".into(), true);
        assert_eq!(p.no_ffmpeg.as_deref(), Some("previews need ffmpeg"));
        assert_eq!(p.missing("c"), Some(Missing::NeedsFfmpeg("previews need ffmpeg".into())));
        assert!(p.want_stills("d"), "another file may be in the cache, which needs no ffmpeg");
    }

    #[test]
    fn letterboxing_keeps_the_shape_unless_the_difference_is_a_rounding() {
        // (image, box, part of the box the image takes)
        let cases = [
            ((1280, 720), (320, 180), (0, 0, 320, 180)),
            ((1280, 720), (320, 170), (0, 0, 320, 170)),
            ((720, 1280), (180, 100), (62, 0, 56, 100)),
            ((1080, 1080), (180, 100), (40, 0, 100, 100)),
            ((1920, 800), (180, 100), (0, 12, 180, 75)),
        ];
        for ((iw, ih), (w, h), want) in cases {
            assert_eq!(letterbox(iw, ih, w, h), want, "{iw}x{ih} in {w}x{h}");
        }
    }

    #[test]
    fn pictures_are_made_again_only_when_the_areas_change() {
        let mut p = Previews::default();
        p.add_stills("a".into(), stills([255, 0, 0]));
        let strip = [Rect::new(0, 10, 8, 2), Rect::new(9, 10, 8, 2)];
        p.show("a", Rect::new(0, 0, 20, 6), &strip);
        let made = p.shown.clone().expect("made");
        assert_eq!((made.poster.size, made.strip.len()), (Size::new(20, 6), 2));
        p.show("a", Rect::new(5, 5, 20, 6), &strip);
        assert_eq!(p.shown.as_ref().map(|s| s.poster.size), Some(Size::new(20, 6)), "a move keeps them");
        p.show("a", Rect::new(0, 0, 16, 5), &[]);
        assert_eq!(p.shown.as_ref().map(|s| (s.poster.size, s.strip.len())), Some((Size::new(16, 5), 0)));
        p.show("zzz", Rect::new(0, 0, 16, 5), &[]);
        assert!(p.shown.is_none(), "no stills, nothing shown");
    }
}
