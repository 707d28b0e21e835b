//! The selected task's parent and children, and what changed from the parent: the prompt's
//! words and the settings, worked out once when the lineage arrives.

use reel_rules::text::{clean, excerpt};
use reel_store::TaskRecord;

/// The selected task's parent and children, and what changed from the parent (cleaned for
/// the screen), worked out once when the lineage arrives.
#[derive(Debug, Clone, PartialEq)]
pub struct Lineage {
    pub id: i64,
    pub parent: Option<TaskRecord>,
    pub children: Vec<TaskRecord>,
    /// The parent's prompt, cut to fit one line.
    pub parent_prompt: String,
    /// The prompt's words from the parent's to this task's.
    pub prompt_diff: Vec<Piece>,
    /// "name old → new" for each setting that differs, joined.
    pub settings_diff: String,
}

impl Lineage {
    /// `child` is the task itself, when it is among the loaded rows.
    pub fn new(id: i64, child: Option<&TaskRecord>, parent: Option<TaskRecord>, children: Vec<TaskRecord>) -> Lineage {
        let (mut parent_prompt, mut prompt_diff, mut settings) = (String::new(), Vec::new(), String::new());
        if let Some(p) = &parent {
            parent_prompt = excerpt(&p.prompt, 60);
            if let Some(c) = child {
                prompt_diff = word_diff(&p.prompt, &c.prompt).into_iter().map(Piece::cleaned).collect();
                settings = clean(&settings_diff(p, c).join(" · "));
            }
        }
        Lineage { id, parent, children, parent_prompt, prompt_diff, settings_diff: settings }
    }
}

/// One piece of a word diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Same(String),
    Added(String),
    Removed(String),
}

impl Piece {
    /// The same piece with its word made safe for the screen.
    fn cleaned(self) -> Piece {
        match self {
            Piece::Same(w) => Piece::Same(clean(&w)),
            Piece::Added(w) => Piece::Added(clean(&w)),
            Piece::Removed(w) => Piece::Removed(clean(&w)),
        }
    }
}

/// Word-level difference from `old` to `new` (longest common subsequence of words).
pub fn word_diff(old: &str, new: &str) -> Vec<Piece> {
    let a: Vec<&str> = old.split_whitespace().collect();
    let b: Vec<&str> = new.split_whitespace().collect();
    // Prompts are short; cap the table so a pathological pair cannot stall the screen.
    if a.len() * b.len() > 250_000 {
        return vec![Piece::Removed(old.to_string()), Piece::Added(new.to_string())];
    }
    let mut lcs = vec![vec![0u16; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            out.push(Piece::Same(a[i].to_string()));
            i += 1;
            j += 1;
        } else if j < b.len() && (i == a.len() || lcs[i][j + 1] >= lcs[i + 1][j]) {
            out.push(Piece::Added(b[j].to_string()));
            j += 1;
        } else {
            out.push(Piece::Removed(a[i].to_string()));
            i += 1;
        }
    }
    out
}

/// The settings that differ between a parent and a child, as "name old → new".
pub fn settings_diff(parent: &TaskRecord, child: &TaskRecord) -> Vec<String> {
    let mut out = Vec::new();
    let mut cmp = |name: &str, a: String, b: String| {
        if a != b {
            out.push(format!("{name} {a} → {b}"));
        }
    };
    cmp("model", parent.model.clone(), child.model.clone());
    cmp("seconds", parent.seconds.to_string(), child.seconds.to_string());
    cmp("resolution", parent.resolution.clone(), child.resolution.clone());
    cmp("ratio", parent.ratio.clone(), child.ratio.clone());
    cmp("watermark", parent.watermark.to_string(), child.watermark.to_string());
    cmp(
        "negative",
        parent.negative_prompt.clone().unwrap_or_default(),
        child.negative_prompt.clone().unwrap_or_default(),
    );
    cmp("media", crate::labels::count(parent.media.len(), "item"), crate::labels::count(child.media.len(), "item"));
    out
}
