//! A line of a task's timeline (the store's `events`): the state a task reached, with or
//! without words on why.

/// What a change of state adds to the task's timeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// The new state alone.
    Bare,
    /// The new state and why.
    Said(String),
}

impl Entry {
    /// The new state with `text`; an empty text has nothing to say (a service's empty error
    /// message, say), so it is a bare entry.
    pub fn said(text: impl Into<String>) -> Entry {
        let text = text.into();
        if text.is_empty() { Entry::Bare } else { Entry::Said(text) }
    }

    /// The words, if any.
    pub fn detail(&self) -> Option<&str> {
        match self {
            Entry::Bare => None,
            Entry::Said(text) => Some(text),
        }
    }
}

impl From<Option<String>> for Entry {
    fn from(detail: Option<String>) -> Entry {
        detail.map_or(Entry::Bare, Entry::said)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_has_words_only_when_some_were_said() {
        let cases = [
            ("nothing said", Entry::from(None), None),
            ("an empty text", Entry::said(""), None),
            ("an empty detail", Entry::from(Some(String::new())), None),
            ("words", Entry::said("saved a.mp4"), Some("saved a.mp4")),
            ("a detail", Entry::from(Some("nsfw".to_string())), Some("nsfw")),
            ("spaces are words", Entry::said(" "), Some(" ")),
        ];
        for (name, entry, want) in cases {
            assert_eq!(entry.detail(), want, "{name}");
            assert_eq!(entry == Entry::Bare, want.is_none(), "{name}");
        }
    }
}
