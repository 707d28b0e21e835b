//! What a person says of a take: a rating (1 to 5), a pick (the winner of a batch or a
//! comparison) and tags. The rules (what a tag may be, what a change does and what the
//! timeline says of it) are pure functions; `mark` writes a change to the journal.

use rusqlite::{Connection, params};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::StoreError;
use super::tasks::{self, TaskRecord};

/// The longest tag, in characters: a tag is a short word shown in a narrow column.
pub const MAX_TAG: usize = 32;

/// A task's marks, as every reader of the journal sees them.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Marks {
    /// 1 to 5; `None` while not rated.
    #[serde(default)]
    pub rating: Option<u8>,
    /// Chosen as the winner of its batch or comparison.
    #[serde(default)]
    pub picked: bool,
    /// Normalised tags (see [`tag`]), in alphabetical order.
    #[serde(default)]
    pub tags: Vec<String>,
}

impl Marks {
    pub fn is_empty(&self) -> bool {
        *self == Marks::default()
    }
}

/// A change of a task's marks, as a client asks for it (the engine checks it again).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "mark", content = "value", rename_all = "snake_case")]
pub enum Change {
    /// A rating of 1 to 5, or `None` to remove it.
    Rate(Option<u8>),
    Pick(bool),
    Tag(Vec<String>),
    Untag(Vec<String>),
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BadMark {
    #[error("a rating is 1 to 5 (0 removes it); {0} is not")]
    Rating(u8),
    #[error("a tag cannot be empty")]
    EmptyTag,
    #[error("tag {0:?} is not one word: a tag has no spaces or commas (give several tags as several words)")]
    NotOneWord(String),
    #[error("tag {0:?} is longer than {MAX_TAG} characters")]
    LongTag(String),
    #[error("tag {0:?} has a control character")]
    ControlInTag(String),
    #[error("no tag given")]
    NoTags,
}

/// A tag as it is kept: trimmed and lowercase, one short word without commas.
pub fn tag(text: &str) -> Result<String, BadMark> {
    let word = text.trim().to_lowercase();
    if word.is_empty() {
        Err(BadMark::EmptyTag)
    } else if word.chars().any(|c| c.is_whitespace() || c == ',') {
        Err(BadMark::NotOneWord(text.trim().to_string()))
    } else if word.chars().any(char::is_control) {
        Err(BadMark::ControlInTag(word))
    } else if word.chars().count() > MAX_TAG {
        Err(BadMark::LongTag(word))
    } else {
        Ok(word)
    }
}

/// The change with its values checked and its tags normalised (sorted, without repeats).
pub fn checked(change: &Change) -> Result<Change, BadMark> {
    let tags = |words: &[String]| -> Result<Vec<String>, BadMark> {
        let mut out = words.iter().map(|w| tag(w)).collect::<Result<Vec<_>, _>>()?;
        if out.is_empty() {
            return Err(BadMark::NoTags);
        }
        out.sort();
        out.dedup();
        Ok(out)
    };
    Ok(match change {
        Change::Rate(Some(n)) if !(1..=5).contains(n) => return Err(BadMark::Rating(*n)),
        Change::Rate(r) => Change::Rate(*r),
        Change::Pick(p) => Change::Pick(*p),
        Change::Tag(words) => Change::Tag(tags(words)?),
        Change::Untag(words) => Change::Untag(tags(words)?),
    })
}

/// The marks after a checked `change`, and what the task's timeline says of it: one line per
/// thing that changed, none when nothing did (rating 4 a task rated 4).
pub fn apply(marks: &Marks, change: &Change) -> (Marks, Vec<String>) {
    let mut out = marks.clone();
    let mut said = Vec::new();
    match change {
        Change::Rate(r) if *r != marks.rating => {
            out.rating = *r;
            said.push(r.map_or_else(|| "unrated".to_string(), |n| format!("rated {n}")));
        }
        Change::Pick(p) if *p != marks.picked => {
            out.picked = *p;
            said.push(if *p { "picked" } else { "unpicked" }.to_string());
        }
        Change::Tag(words) => {
            for w in words.iter().filter(|w| !marks.tags.contains(w)) {
                out.tags.push(w.clone());
                said.push(format!("tagged {w}"));
            }
            out.tags.sort();
            out.tags.dedup();
        }
        Change::Untag(words) => {
            for w in words.iter().filter(|w| marks.tags.contains(w)) {
                out.tags.retain(|t| t != w);
                said.push(format!("untagged {w}"));
            }
        }
        Change::Rate(_) | Change::Pick(_) => {}
    }
    (out, said)
}

/// Changes task `id`'s marks at `at` (Unix ms) and adds the lines of its timeline; returns
/// the task as it is now. A change that changes nothing writes nothing.
pub fn mark(conn: &Connection, id: i64, change: &Change, at: i64) -> Result<TaskRecord, StoreError> {
    let change = checked(change)?;
    let mut task = tasks::get(conn, id)?.ok_or(StoreError::Missing(id))?;
    let (marks, said) = apply(&task.marks, &change);
    if said.is_empty() {
        return Ok(task);
    }
    conn.prepare_cached("UPDATE tasks SET rating = ?2, picked = ?3 WHERE id = ?1")?.execute(params![
        id,
        marks.rating,
        marks.picked
    ])?;
    let mut add = conn.prepare_cached("INSERT OR IGNORE INTO task_tags (task_id, tag) VALUES (?1, ?2)")?;
    for t in marks.tags.iter().filter(|t| !task.marks.tags.contains(t)) {
        add.execute(params![id, t])?;
    }
    let mut remove = conn.prepare_cached("DELETE FROM task_tags WHERE task_id = ?1 AND tag = ?2")?;
    for t in task.marks.tags.iter().filter(|t| !marks.tags.contains(t)) {
        remove.execute(params![id, t])?;
    }
    // The timeline keeps the words as the event's state: "rated 4" reads as it is.
    for line in &said {
        tasks::add_event(conn, id, at, line, None)?;
    }
    task.marks = marks;
    Ok(task)
}

/// Every tag in the journal with the number of tasks that carry it, most used first.
pub fn tag_counts(conn: &Connection) -> Result<Vec<(String, u64)>, StoreError> {
    let mut stmt =
        conn.prepare_cached("SELECT tag, count(*) AS n FROM task_tags GROUP BY tag ORDER BY n DESC, tag LIMIT 1000")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as u64)))?.collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tag_is_one_short_lowercase_word() {
        let long = "x".repeat(MAX_TAG + 1);
        let cases: &[(&str, Result<&str, BadMark>)] = &[
            ("keeper", Ok("keeper")),
            ("  Keeper ", Ok("keeper")),
            ("ÉTÉ", Ok("été")),
            ("b-roll_2", Ok("b-roll_2")),
            ("", Err(BadMark::EmptyTag)),
            ("   ", Err(BadMark::EmptyTag)),
            ("two words", Err(BadMark::NotOneWord("two words".into()))),
            ("a,b", Err(BadMark::NotOneWord("a,b".into()))),
            ("tab\there", Err(BadMark::NotOneWord("tab\there".into()))),
            ("bell\u{7}", Err(BadMark::ControlInTag("bell\u{7}".into()))),
            (&long, Err(BadMark::LongTag(long.clone()))),
        ];
        for (text, want) in cases {
            assert_eq!(tag(text), want.clone().map(String::from), "{text:?}");
        }
        assert_eq!(tag(&"é".repeat(MAX_TAG)).map(|t| t.chars().count()), Ok(MAX_TAG), "counted in characters");
    }

    #[test]
    fn a_change_is_checked_and_its_tags_normalised() {
        let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let cases = [
            (Change::Rate(Some(1)), Ok(Change::Rate(Some(1)))),
            (Change::Rate(Some(5)), Ok(Change::Rate(Some(5)))),
            (Change::Rate(None), Ok(Change::Rate(None))),
            (Change::Rate(Some(0)), Err(BadMark::Rating(0))),
            (Change::Rate(Some(6)), Err(BadMark::Rating(6))),
            (Change::Pick(true), Ok(Change::Pick(true))),
            (Change::Tag(words(&["B", "a", "b "])), Ok(Change::Tag(words(&["a", "b"])))),
            (Change::Untag(words(&["Keeper"])), Ok(Change::Untag(words(&["keeper"])))),
            (Change::Tag(vec![]), Err(BadMark::NoTags)),
            (Change::Tag(words(&["ok", "not ok"])), Err(BadMark::NotOneWord("not ok".into()))),
        ];
        for (change, want) in cases {
            assert_eq!(checked(&change), want, "{change:?}");
        }
    }

    #[test]
    fn a_change_says_what_it_changed() {
        let rated = Marks { rating: Some(4), picked: false, tags: vec!["a".into(), "keeper".into()] };
        let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let cases: Vec<(Change, Marks, Vec<&str>)> = vec![
            (Change::Rate(Some(5)), Marks { rating: Some(5), ..rated.clone() }, vec!["rated 5"]),
            (Change::Rate(Some(4)), rated.clone(), vec![]),
            (Change::Rate(None), Marks { rating: None, ..rated.clone() }, vec!["unrated"]),
            (Change::Pick(true), Marks { picked: true, ..rated.clone() }, vec!["picked"]),
            (Change::Pick(false), rated.clone(), vec![]),
            (
                Change::Tag(words(&["keeper", "night"])),
                Marks { tags: words(&["a", "keeper", "night"]), ..rated.clone() },
                vec!["tagged night"],
            ),
            (
                Change::Tag(words(&["0first"])),
                Marks { tags: words(&["0first", "a", "keeper"]), ..rated.clone() },
                vec!["tagged 0first"],
            ),
            (
                Change::Untag(words(&["keeper", "absent"])),
                Marks { tags: words(&["a"]), ..rated.clone() },
                vec!["untagged keeper"],
            ),
        ];
        for (change, want, said) in cases {
            assert_eq!(apply(&rated, &change), (want, said.iter().map(|s| s.to_string()).collect()), "{change:?}");
        }
        let unpicked = apply(&Marks { picked: true, ..Marks::default() }, &Change::Pick(false));
        assert_eq!(unpicked, (Marks::default(), vec!["unpicked".to_string()]));
    }
}
