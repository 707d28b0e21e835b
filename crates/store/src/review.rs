//! A task's review, what a person says of a take: a rating (1 to 5), a pick (the winner of a
//! batch or a comparison) and tags. The rules (what a tag may be, what a change does and what
//! the timeline says of it) are pure functions; `reviewing::write_review` journals a change.

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The longest tag, in characters: a tag is a short word shown in a narrow column.
pub const MAX_TAG: usize = 32;

/// A task's review, as every reader of the journal sees it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Review {
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

impl Review {
    pub fn is_empty(&self) -> bool {
        *self == Review::default()
    }

    /// The review in a few words: `rated 4, picked, tagged keeper night`.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        if let Some(r) = self.rating {
            parts.push(format!("rated {r}"));
        }
        if self.picked {
            parts.push("picked".to_string());
        }
        if !self.tags.is_empty() {
            parts.push(format!("tagged {}", self.tags.join(" ")));
        }
        if parts.is_empty() { "no rating, pick or tag".to_string() } else { parts.join(", ") }
    }

    /// Rated or picked: what the tables' narrow review column shows (tags are in the detail).
    pub fn has_mark(&self) -> bool {
        self.rating.is_some() || self.picked
    }
}

/// A change of a task's review, as a client asks for it (the engine checks it again).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "change", content = "value", rename_all = "snake_case")]
pub enum Change {
    /// A rating of 1 to 5, or `None` to remove it.
    Rate(Option<u8>),
    Pick(bool),
    Tag(Vec<String>),
    Untag(Vec<String>),
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BadReview {
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
pub fn tag(text: &str) -> Result<String, BadReview> {
    let word = text.trim().to_lowercase();
    if word.is_empty() {
        Err(BadReview::EmptyTag)
    } else if word.chars().any(|c| c.is_whitespace() || c == ',') {
        Err(BadReview::NotOneWord(text.trim().to_string()))
    } else if word.chars().any(char::is_control) {
        Err(BadReview::ControlInTag(word))
    } else if word.chars().count() > MAX_TAG {
        Err(BadReview::LongTag(word))
    } else {
        Ok(word)
    }
}

/// The change with its values checked and its tags normalised (sorted, without repeats).
pub fn checked(change: &Change) -> Result<Change, BadReview> {
    let tags = |words: &[String]| -> Result<Vec<String>, BadReview> {
        let mut out = words.iter().map(|w| tag(w)).collect::<Result<Vec<_>, _>>()?;
        if out.is_empty() {
            return Err(BadReview::NoTags);
        }
        out.sort();
        out.dedup();
        Ok(out)
    };
    Ok(match change {
        Change::Rate(Some(n)) if !(1..=5).contains(n) => return Err(BadReview::Rating(*n)),
        Change::Rate(r) => Change::Rate(*r),
        Change::Pick(p) => Change::Pick(*p),
        Change::Tag(words) => Change::Tag(tags(words)?),
        Change::Untag(words) => Change::Untag(tags(words)?),
    })
}

/// The review after a checked `change`, and what the task's timeline says of it: one line per
/// thing that changed, none when nothing did (rating 4 a task rated 4).
pub fn apply(review: &Review, change: &Change) -> (Review, Vec<String>) {
    let mut out = review.clone();
    let mut said = Vec::new();
    match change {
        Change::Rate(r) if *r != review.rating => {
            out.rating = *r;
            said.push(r.map_or_else(|| "unrated".to_string(), |n| format!("rated {n}")));
        }
        Change::Pick(p) if *p != review.picked => {
            out.picked = *p;
            said.push(if *p { "picked" } else { "unpicked" }.to_string());
        }
        Change::Tag(words) => {
            for w in words.iter().filter(|w| !review.tags.contains(w)) {
                out.tags.push(w.clone());
                said.push(format!("tagged {w}"));
            }
            out.tags.sort();
            out.tags.dedup();
        }
        Change::Untag(words) => {
            for w in words.iter().filter(|w| review.tags.contains(w)) {
                out.tags.retain(|t| t != w);
                said.push(format!("untagged {w}"));
            }
        }
        Change::Rate(_) | Change::Pick(_) => {}
    }
    (out, said)
}

/// What a pick that moved says: `#24 is now the pick of batch 13; #23 was`.
pub fn moved(id: i64, batch: Option<i64>, was: &[i64]) -> Option<String> {
    let batch = batch?;
    (!was.is_empty()).then(|| {
        let was: Vec<String> = was.iter().map(|w| format!("#{w}")).collect();
        let verb = if was.len() == 1 { "was" } else { "were" };
        format!("#{id} is now the pick of batch {batch}; {} {verb}", was.join(" and "))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_moved_pick_says_from_where() {
        assert_eq!(moved(24, Some(13), &[23]).as_deref(), Some("#24 is now the pick of batch 13; #23 was"));
        assert_eq!(
            moved(24, Some(13), &[21, 23]).as_deref(),
            Some("#24 is now the pick of batch 13; #21 and #23 were")
        );
        assert_eq!(moved(24, Some(13), &[]), None);
        assert_eq!(moved(24, None, &[23]), None);
    }

    #[test]
    fn a_tag_is_one_short_lowercase_word() {
        let long = "x".repeat(MAX_TAG + 1);
        let cases: &[(&str, Result<&str, BadReview>)] = &[
            ("keeper", Ok("keeper")),
            ("  Keeper ", Ok("keeper")),
            ("ÉTÉ", Ok("été")),
            ("b-roll_2", Ok("b-roll_2")),
            ("", Err(BadReview::EmptyTag)),
            ("   ", Err(BadReview::EmptyTag)),
            ("two words", Err(BadReview::NotOneWord("two words".into()))),
            ("a,b", Err(BadReview::NotOneWord("a,b".into()))),
            ("tab\there", Err(BadReview::NotOneWord("tab\there".into()))),
            ("bell\u{7}", Err(BadReview::ControlInTag("bell\u{7}".into()))),
            (&long, Err(BadReview::LongTag(long.clone()))),
        ];
        for (text, want) in cases {
            assert_eq!(tag(text), want.clone().map(String::from), "{text:?}");
        }
        assert_eq!(tag(&"é".repeat(MAX_TAG)).map(|t| t.chars().count()), Ok(MAX_TAG), "counted in characters");
    }

    #[test]
    fn a_review_reads_as_a_few_words() {
        let tags = |t: &[&str]| t.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let cases = [
            (Review::default(), "no rating, pick or tag"),
            (Review { rating: Some(4), ..Review::default() }, "rated 4"),
            (Review { picked: true, ..Review::default() }, "picked"),
            (
                Review { rating: Some(2), picked: true, tags: tags(&["keeper", "night"]) },
                "rated 2, picked, tagged keeper night",
            ),
            (Review { tags: tags(&["x"]), ..Review::default() }, "tagged x"),
        ];
        for (review, want) in cases {
            assert_eq!(review.summary(), want, "{review:?}");
        }
    }

    #[test]
    fn a_change_is_checked_and_its_tags_normalised() {
        let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let cases = [
            (Change::Rate(Some(1)), Ok(Change::Rate(Some(1)))),
            (Change::Rate(Some(5)), Ok(Change::Rate(Some(5)))),
            (Change::Rate(None), Ok(Change::Rate(None))),
            (Change::Rate(Some(0)), Err(BadReview::Rating(0))),
            (Change::Rate(Some(6)), Err(BadReview::Rating(6))),
            (Change::Pick(true), Ok(Change::Pick(true))),
            (Change::Tag(words(&["B", "a", "b "])), Ok(Change::Tag(words(&["a", "b"])))),
            (Change::Untag(words(&["Keeper"])), Ok(Change::Untag(words(&["keeper"])))),
            (Change::Tag(vec![]), Err(BadReview::NoTags)),
            (Change::Tag(words(&["ok", "not ok"])), Err(BadReview::NotOneWord("not ok".into()))),
        ];
        for (change, want) in cases {
            assert_eq!(checked(&change), want, "{change:?}");
        }
    }

    #[test]
    fn a_change_says_what_it_changed() {
        let rated = Review { rating: Some(4), picked: false, tags: vec!["a".into(), "keeper".into()] };
        let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let cases: Vec<(Change, Review, Vec<&str>)> = vec![
            (Change::Rate(Some(5)), Review { rating: Some(5), ..rated.clone() }, vec!["rated 5"]),
            (Change::Rate(Some(4)), rated.clone(), vec![]),
            (Change::Rate(None), Review { rating: None, ..rated.clone() }, vec!["unrated"]),
            (Change::Pick(true), Review { picked: true, ..rated.clone() }, vec!["picked"]),
            (Change::Pick(false), rated.clone(), vec![]),
            (
                Change::Tag(words(&["keeper", "night"])),
                Review { tags: words(&["a", "keeper", "night"]), ..rated.clone() },
                vec!["tagged night"],
            ),
            (
                Change::Tag(words(&["0first"])),
                Review { tags: words(&["0first", "a", "keeper"]), ..rated.clone() },
                vec!["tagged 0first"],
            ),
            (
                Change::Untag(words(&["keeper", "absent"])),
                Review { tags: words(&["a"]), ..rated.clone() },
                vec!["untagged keeper"],
            ),
        ];
        for (change, want, said) in cases {
            assert_eq!(apply(&rated, &change), (want, said.iter().map(|s| s.to_string()).collect()), "{change:?}");
        }
        let unpicked = apply(&Review { picked: true, ..Review::default() }, &Change::Pick(false));
        assert_eq!(unpicked, (Review::default(), vec!["unpicked".to_string()]));
    }
}
