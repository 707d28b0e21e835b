//! The small input for a batch file's path, and Tab's completion of it from the names in its
//! folder (the folder is listed by an effect; here, what is made of the names).

/// The small input for a batch file's path (`~` and relative paths are resolved where the
/// file is read, by the effect).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PathInput {
    text: String,
}

impl PathInput {
    pub fn new(text: &str) -> PathInput {
        PathInput { text: text.to_string() }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// A character typed (`None`: Backspace).
    pub fn typed(&mut self, c: Option<char>) {
        match c {
            Some(c) if !c.is_control() => self.text.push(c),
            Some(_) => {}
            None => {
                self.text.pop();
            }
        }
    }

    /// A paste: one line, as a path is.
    pub fn paste(&mut self, text: &str) {
        self.text.push_str(text.lines().next().unwrap_or_default().trim());
    }

    pub fn clear(&mut self) {
        self.text.clear();
    }

    /// Puts a completion in place.
    pub fn complete(&mut self, text: &str) {
        self.text = text.to_string();
    }
}

/// What Tab makes of a typed path, given the entries of its folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Completion {
    /// The path completed (as far as the names that fit agree; a folder ends in `/`).
    To(String),
    /// Several names fit and agree no further: they are shown.
    Choices(Vec<String>),
    /// Nothing in the folder starts with what was typed.
    Nothing,
}

/// The folder part of a typed path (what to list, as typed, `/` kept) and the beginning of
/// the name being typed.
pub fn split_typed(typed: &str) -> (&str, &str) {
    match typed.rfind('/') {
        Some(i) => (&typed[..=i], &typed[i + 1..]),
        None => ("", typed),
    }
}

/// Completes `typed` from `entries` of its folder, as (name, is a folder). Hidden names
/// count only when the name typed starts with a dot.
pub fn complete(typed: &str, entries: &[(String, bool)]) -> Completion {
    let (dir, start) = split_typed(typed);
    let mut fits: Vec<&(String, bool)> = entries
        .iter()
        .filter(|(name, _)| name.starts_with(start) && (start.starts_with('.') || !name.starts_with('.')))
        .collect();
    fits.sort();
    match fits.as_slice() {
        [] => Completion::Nothing,
        [(name, folder)] => Completion::To(format!("{dir}{name}{}", if *folder { "/" } else { "" })),
        [(first, _), rest @ ..] => {
            let shared = rest.iter().fold(first.as_str(), |acc, (name, _)| {
                let n = acc.chars().zip(name.chars()).take_while(|(a, b)| a == b).map(|(a, _)| a.len_utf8()).sum();
                &acc[..n]
            });
            if shared.len() > start.len() {
                Completion::To(format!("{dir}{shared}"))
            } else {
                Completion::Choices(fits.iter().map(|(n, f)| format!("{n}{}", if *f { "/" } else { "" })).collect())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tab_completes_a_path_from_its_folder() {
        let entries: Vec<(String, bool)> = [
            ("prompts.csv", false),
            ("prompts.txt", false),
            ("promos", true),
            ("shots.jsonl", false),
            (".hidden.csv", false),
            ("été.txt", false),
        ]
        .into_iter()
        .map(|(n, d)| (n.to_string(), d))
        .collect();
        let to = |t: &str| Completion::To(t.to_string());
        let cases = [
            ("sh", to("shots.jsonl")),
            ("~/work/sh", to("~/work/shots.jsonl")),
            ("pro", to("prom")),
            ("promo", to("promos/")),
            ("prompts.", Completion::Choices(vec!["prompts.csv".into(), "prompts.txt".into()])),
            ("x", Completion::Nothing),
            (
                "",
                Completion::Choices(vec![
                    "promos/".into(),
                    "prompts.csv".into(),
                    "prompts.txt".into(),
                    "shots.jsonl".into(),
                    "été.txt".into(),
                ]),
            ),
            (".h", to(".hidden.csv")),
            ("é", to("été.txt")),
        ];
        for (typed, want) in cases {
            assert_eq!(complete(typed, &entries), want, "{typed}");
        }
        assert_eq!(split_typed("~/a/b.c"), ("~/a/", "b.c"));
        assert_eq!(split_typed("b.c"), ("", "b.c"));
    }

    #[test]
    fn the_path_input_takes_one_line() {
        let mut p = PathInput::new("~/p");
        p.typed(Some('.'));
        p.typed(Some('\u{7}'));
        p.paste("csv\nsecond line");
        assert_eq!(p.text(), "~/p.csv");
        p.typed(None);
        assert_eq!(p.text(), "~/p.cs");
        p.clear();
        assert_eq!(p.text(), "");
    }
}
