//! Rows into tasks: each row's fields over the flags' defaults, its prompt template expanded,
//! its ratio and seconds lists crossed like the dashboard's grid, and every task validated.

use std::collections::BTreeMap;

use thiserror::Error;

use super::RowError;
use super::read::Row;
use super::template::{self, Expansion};
use crate::text::thousands;
use crate::{Catalog, Draft, MediaDraft, UnknownModels, ValidSubmission, validate};

/// Field names a row may set; any other column is a template variable.
pub const FIELDS: &[&str] =
    &["model", "prompt", "negative", "seconds", "resolution", "ratio", "watermark", "media", "copies"];

/// Most copies of one task, as `--count` allows.
pub const MAX_COPIES: u32 = 100;

/// What the flags give, for every field a row leaves out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Defaults {
    pub fields: BTreeMap<String, String>,
    pub media: Vec<String>,
}

/// One expanded task: where it came from, what it asks for, how many copies.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    pub at: String,
    pub draft: Draft,
    pub copies: u32,
}

/// A task that passed every rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    pub at: String,
    pub submission: ValidSubmission,
    pub copies: u32,
}

fn list(text: Option<&String>) -> Vec<Option<String>> {
    match text {
        None => vec![None],
        Some(t) => t.split(',').map(|v| Some(v.trim().to_string())).collect(),
    }
}

fn watermark(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" | "1" => Some(true),
        "false" | "no" | "0" | "" => Some(false),
        _ => None,
    }
}

/// A run that expands past `[batch] max_tasks`, found by counting before any task is built.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error(
    "this batch expands to more than {} tasks (the [batch] max_tasks); counting stopped at {at}, with {} \
     tasks (copies counted)",
    thousands(u64::from(*max)),
    thousands(*reached)
)]
pub struct TooManyTasks {
    pub max: u32,
    /// Tasks counted through the row that passed the bound.
    pub reached: u64,
    /// That row: `FILE:LINE`, or `command line`.
    pub at: String,
}

/// One row read and checked, its tasks not made yet: what they share, and the lists they
/// cross. [`RowPlan::count`] is arithmetic on the lists, so a row of millions costs nothing
/// to count.
#[derive(Debug)]
pub struct RowPlan {
    at: String,
    /// Every field but the prompt, ratio and seconds, which the lists give.
    base: Draft,
    prompts: Expansion,
    ratios: Vec<Option<String>>,
    seconds: Vec<Option<String>>,
    copies: u32,
}

impl RowPlan {
    /// Tasks this row makes, each copy counted.
    pub fn count(&self) -> u64 {
        [self.prompts.len(), self.ratios.len(), self.seconds.len()]
            .iter()
            .fold(u64::from(self.copies), |n, &len| n.saturating_mul(len as u64))
    }

    /// The row's tasks: every prompt crossed with every ratio and every seconds.
    pub fn tasks(&self) -> Vec<Task> {
        let mut tasks = Vec::new();
        for prompt in self.prompts.prompts() {
            for ratio in &self.ratios {
                for seconds in &self.seconds {
                    tasks.push(Task {
                        at: self.at.clone(),
                        draft: Draft {
                            prompt: prompt.clone(),
                            ratio: ratio.as_deref().map(str::to_ascii_lowercase),
                            seconds: seconds.clone(),
                            ..self.base.clone()
                        },
                        copies: self.copies,
                    });
                }
            }
        }
        tasks
    }
}

/// One row checked and counted, its tasks not made yet. `vars` are the `--var` values; a
/// column of the row wins over them.
pub fn row_plan(
    row: &Row,
    defaults: &Defaults,
    vars: &BTreeMap<String, Vec<String>>,
    parse_media: impl Fn(&str) -> Result<MediaDraft, String>,
) -> Result<RowPlan, Vec<RowError>> {
    let bad = |field: &str, message: String| RowError { at: row.at.clone(), field: field.into(), message };
    let field = |name: &str| row.fields.get(name).or_else(|| defaults.fields.get(name));
    let mut errors = Vec::new();
    let prompt = field("prompt").cloned().unwrap_or_default();
    // A column that is neither a field nor a variable of the prompt is most likely a misspelt
    // field: refused rather than quietly left out.
    for name in row.fields.keys().filter(|k| !FIELDS.contains(&k.as_str())) {
        if !prompt.contains(&format!("{{{name}}}")) {
            errors
                .push(bad(name, format!("is neither a field ({}) nor a {{{name}}} of the prompt", FIELDS.join(", "))));
        }
    }
    let prompts = template::parse(&prompt, |name| {
        row.fields
            .get(name)
            .filter(|_| !FIELDS.contains(&name))
            .map(|v| vec![v.clone()])
            .or_else(|| vars.get(name).cloned())
    })
    .map_err(|e| errors.push(bad("prompt", e.to_string())))
    .ok();
    let media_text = if row.media.is_empty() { &defaults.media } else { &row.media };
    let media: Vec<_> =
        media_text.iter().filter_map(|m| parse_media(m).map_err(|e| errors.push(bad("media", e))).ok()).collect();
    let marked = field("watermark").map_or(Some(false), |w| watermark(w));
    if marked.is_none() {
        errors.push(bad("watermark", format!("\"{}\" is not true or false", field("watermark").map_or("", |w| w))));
    }
    let copies = match field("copies").map(|c| c.trim().parse::<u32>()) {
        None => 1,
        Some(Ok(n)) if (1..=MAX_COPIES).contains(&n) => n,
        _ => {
            let given = field("copies").map_or("", |c| c);
            errors.push(bad("copies", format!("\"{given}\" is not a whole number from 1 to {MAX_COPIES}")));
            1
        }
    };
    let Some(prompts) = prompts.filter(|_| errors.is_empty()) else { return Err(errors) };
    Ok(RowPlan {
        at: row.at.clone(),
        base: Draft {
            model: field("model").map_or(String::new(), |m| m.trim().to_string()),
            negative_prompt: field("negative").cloned().unwrap_or_default(),
            resolution: field("resolution").map(|r| r.trim().to_ascii_uppercase()),
            watermark: marked,
            media,
            ..Draft::default()
        },
        prompts,
        ratios: list(field("ratio")),
        seconds: list(field("seconds")),
        copies,
    })
}

/// Every task validated with the shared rules: those that pass, and each broken rule named
/// by the task's row and field.
pub fn check(tasks: Vec<Task>, catalog: &Catalog) -> (Vec<Checked>, Vec<RowError>) {
    let mut good = Vec::new();
    let mut errors = Vec::new();
    for t in tasks {
        match validate(&t.draft, catalog, UnknownModels::Warn) {
            Ok(submission) => good.push(Checked { at: t.at, submission, copies: t.copies }),
            Err(invalid) => errors.extend(invalid.violations.iter().map(|v| RowError {
                at: t.at.clone(),
                field: v.field().to_string(),
                message: v.to_string(),
            })),
        }
    }
    (good, errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    const T2V: &str = "acme/aurora-3.0/text-to-video";

    fn row(fields: &[(&str, &str)]) -> Row {
        Row {
            at: "p.csv:2".into(),
            fields: fields.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            media: vec![],
        }
    }

    fn defaults() -> Defaults {
        Defaults { fields: [("model".to_string(), T2V.to_string())].into(), media: vec![] }
    }

    fn media(text: &str) -> Result<crate::MediaDraft, String> {
        let (kind, url) = text.split_once('=').ok_or_else(|| format!("\"{text}\" is not TYPE=URL"))?;
        Ok(crate::MediaDraft::typed(kind, url, None))
    }

    fn row_tasks(
        row: &Row,
        defaults: &Defaults,
        vars: &BTreeMap<String, Vec<String>>,
        parse_media: impl Fn(&str) -> Result<MediaDraft, String>,
    ) -> Result<Vec<Task>, Vec<RowError>> {
        row_plan(row, defaults, vars, parse_media).map(|plan| plan.tasks())
    }

    /// Prompt, ratio, seconds and copies of a task.
    type Seen = (String, Option<String>, Option<String>, u32);

    fn summary(tasks: &[Task]) -> Vec<Seen> {
        tasks
            .iter()
            .map(|t| (t.draft.prompt.clone(), t.draft.ratio.clone(), t.draft.seconds.clone(), t.copies))
            .collect()
    }

    #[test]
    fn rows_expand_over_defaults() {
        let vars: BTreeMap<String, Vec<String>> = [("subject".to_string(), vec!["fox".into(), "owl".into()])].into();
        let s = |t: &str| t.to_string();
        let cases: Vec<(Row, Vec<Seen>)> = vec![
            (row(&[("prompt", "a fox")]), vec![(s("a fox"), None, None, 1)]),
            (
                row(&[("prompt", "a {subject}"), ("copies", "2")]),
                vec![(s("a fox"), None, None, 2), (s("a owl"), None, None, 2)],
            ),
            (row(&[("prompt", "a {subject}"), ("subject", "cat")]), vec![(s("a cat"), None, None, 1)]),
            (
                row(&[("prompt", "{red|blue}"), ("ratio", "16:9, 9:16"), ("seconds", "5,10")]),
                vec![
                    (s("red"), Some(s("16:9")), Some(s("5")), 1),
                    (s("red"), Some(s("16:9")), Some(s("10")), 1),
                    (s("red"), Some(s("9:16")), Some(s("5")), 1),
                    (s("red"), Some(s("9:16")), Some(s("10")), 1),
                    (s("blue"), Some(s("16:9")), Some(s("5")), 1),
                    (s("blue"), Some(s("16:9")), Some(s("10")), 1),
                    (s("blue"), Some(s("9:16")), Some(s("5")), 1),
                    (s("blue"), Some(s("9:16")), Some(s("10")), 1),
                ],
            ),
        ];
        for (r, want) in cases {
            let got = row_tasks(&r, &defaults(), &vars, media).expect("expands");
            assert_eq!(summary(&got), want, "{r:?}");
            assert!(got.iter().all(|t| t.draft.model == T2V && t.at == "p.csv:2"));
        }
    }

    #[test]
    fn row_errors_name_the_field() {
        let vars = BTreeMap::new();
        let cases = [
            (
                row(&[("prompt", "a {colour} car")]),
                "p.csv:2: prompt: {colour} has no values: add a column \"colour\" or --var colour=…",
            ),
            (row(&[("prompt", "a"), ("copies", "0")]), "p.csv:2: copies: \"0\" is not a whole number from 1 to 100"),
            (
                row(&[("prompt", "a"), ("secconds", "5")]),
                "p.csv:2: secconds: is neither a field (model, prompt, negative, seconds, resolution, ratio, watermark, \
                 media, copies) nor a {secconds} of the prompt",
            ),
            (row(&[("prompt", "a"), ("watermark", "maybe")]), "p.csv:2: watermark: \"maybe\" is not true or false"),
            (
                Row { media: vec!["no-equals".into()], ..row(&[("prompt", "a")]) },
                "p.csv:2: media: \"no-equals\" is not TYPE=URL",
            ),
        ];
        for (r, want) in cases {
            let errors = row_tasks(&r, &defaults(), &vars, media).expect_err("refused");
            assert_eq!(errors.iter().map(ToString::to_string).collect::<Vec<_>>(), [want]);
        }
    }

    #[test]
    fn every_task_is_validated_and_named() {
        let catalog = Catalog::builtin();
        let tasks = row_tasks(&row(&[("prompt", "a fox"), ("seconds", "5,31")]), &defaults(), &BTreeMap::new(), media)
            .expect("rows");
        let (good, errors) = check(tasks, &catalog);
        assert_eq!(good.len(), 1);
        assert_eq!(errors.len(), 1);
        let shown = errors[0].to_string();
        assert!(shown.starts_with("p.csv:2: seconds: seconds 31 is out of range"), "{shown}");
    }
}
