//! The media item being added or edited in its overlay: its type, URL or file, and seconds.

use reel_rules::{MediaDraft, MediaKind};

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
