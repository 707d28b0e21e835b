//! What tells takes apart: the words of a prompt no other take has, and the settings that
//! are not the same in every take. Pure: records in, plain data out.

use std::collections::HashSet;

use reel_store::TaskRecord;

/// A word of a prompt as written, and whether it is this take's alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    pub text: String,
    pub only_here: bool,
}

/// A word as compared: lower case, without the punctuation around it ("Fox," is "fox").
fn key(word: &str) -> String {
    word.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase()
}

/// The words of `prompt`, each marked when none of `others` has it. A word made only of
/// punctuation ("—") is never marked: it tells nothing apart.
pub fn words(prompt: &str, others: &[&str]) -> Vec<Word> {
    let elsewhere: HashSet<String> = others.iter().flat_map(|p| p.split_whitespace()).map(key).collect();
    prompt
        .split_whitespace()
        .map(|w| {
            let k = key(w);
            Word { text: w.to_string(), only_here: !k.is_empty() && !elsewhere.contains(&k) }
        })
        .collect()
}

/// A setting a take can differ in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting {
    Model,
    Seconds,
    Ratio,
    Resolution,
    Negative,
    Watermark,
}

impl Setting {
    pub const ALL: [Setting; 6] =
        [Setting::Model, Setting::Seconds, Setting::Ratio, Setting::Resolution, Setting::Negative, Setting::Watermark];

    pub fn label(self) -> &'static str {
        match self {
            Setting::Model => "Model",
            Setting::Seconds => "Seconds",
            Setting::Ratio => "Ratio",
            Setting::Resolution => "Size",
            Setting::Negative => "Negative",
            Setting::Watermark => "Watermark",
        }
    }

    /// The setting's value in `t`, as the compare view writes it (text from the service or the
    /// user is cleaned by the view).
    pub fn value(self, t: &TaskRecord) -> String {
        match self {
            Setting::Model => t.model.clone(),
            Setting::Seconds => crate::labels::seconds_label(t.seconds),
            Setting::Ratio => t.ratio.clone(),
            Setting::Resolution => t.resolution.clone(),
            Setting::Negative => t.negative_prompt.clone().filter(|n| !n.trim().is_empty()).unwrap_or("none".into()),
            Setting::Watermark => if t.watermark { "on" } else { "off" }.into(),
        }
    }
}

/// The settings whose values are not the same in every one of `takes`, in [`Setting::ALL`]'s
/// order. One take (or none) differs in nothing.
pub fn differing(takes: &[&TaskRecord]) -> Vec<Setting> {
    Setting::ALL
        .into_iter()
        .filter(|s| takes.first().is_some_and(|first| takes.iter().any(|t| s.value(t) != s.value(first))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use reel_store::LocalState;
    use reel_store::fixtures::record;

    fn marked(prompt: &str, others: &[&str]) -> Vec<String> {
        words(prompt, others).into_iter().filter(|w| w.only_here).map(|w| w.text).collect()
    }

    #[test]
    fn words_only_one_take_has_are_marked() {
        // (this prompt, the others, the words marked)
        let cases: [(&str, &[&str], &[&str]); 8] = [
            ("a red fox", &["a red fox"], &[]),
            ("a red fox", &["a blue fox"], &["red"]),
            ("a red fox at dawn", &["a fox"], &["red", "at", "dawn"]),
            ("A Red fox,", &["a red FOX"], &[]),
            ("a red fox", &["a blue fox", "a red cat"], &[]),
            ("slow pan — wide", &["fast pan wide"], &["slow"]),
            ("", &["a fox"], &[]),
            ("a fox", &[], &["a", "fox"]),
        ];
        for (prompt, others, want) in cases {
            assert_eq!(marked(prompt, others), want, "{prompt:?} against {others:?}");
        }
    }

    #[test]
    fn words_keep_their_order_and_spelling() {
        let w = words("The  Fox, jumps", &["the fox"]);
        let texts: Vec<&str> = w.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(texts, ["The", "Fox,", "jumps"]);
        assert_eq!(w.iter().map(|w| w.only_here).collect::<Vec<_>>(), [false, false, true]);
    }

    #[test]
    fn only_the_settings_that_differ_are_named() {
        let base = record(1, LocalState::Downloaded);
        let with = |f: &dyn Fn(&mut TaskRecord)| {
            let mut t = base.clone();
            f(&mut t);
            t
        };
        let cases: Vec<(Vec<TaskRecord>, Vec<Setting>)> = vec![
            (vec![base.clone(), base.clone()], vec![]),
            (vec![base.clone()], vec![]),
            (vec![], vec![]),
            (vec![base.clone(), with(&|t| t.model = "other-model".into())], vec![Setting::Model]),
            (
                vec![base.clone(), with(&|t| t.seconds = 8), with(&|t| t.ratio = "9:16".into())],
                vec![Setting::Seconds, Setting::Ratio],
            ),
            (
                vec![with(&|t| t.negative_prompt = Some("blur".into())), with(&|t| t.watermark = !t.watermark)],
                vec![Setting::Negative, Setting::Watermark],
            ),
            (vec![with(&|t| t.negative_prompt = Some(" ".into())), with(&|t| t.negative_prompt = None)], vec![]),
            (vec![base.clone(), with(&|t| t.resolution = "1080p".into())], vec![Setting::Resolution]),
        ];
        for (takes, want) in cases {
            let refs: Vec<&TaskRecord> = takes.iter().collect();
            assert_eq!(differing(&refs), want, "{:?}", takes.iter().map(|t| t.id).collect::<Vec<_>>());
        }
    }
}
