//! A batch file loaded into the form: the form's fields are the defaults of its rows, its
//! plan (expansion, what an earlier run sent, row errors) and figures are shown in the form,
//! and Ctrl-S sends the plan as one submission of parts, or says why it cannot.

use std::fmt;

use super::{Form, grid::parse_grid};
use crate::labels::count;
use reel_engine::journal::Part;
use reel_rules::ValidSubmission;
use reel_rules::batch::RowError;
use reel_rules::batch::expand::Defaults;
use reel_rules::batch::plan::Plan;

/// A plan held by the form, with the figures of what it would send.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    plan: Plan,
    /// The form's fields the plan was expanded over: when they change, it is loaded again.
    defaults: Defaults,
    /// Being loaded again over the form's fields as they are now.
    refreshing: bool,
    /// Every submission to send, each copy apart (for the budget guard and the figures).
    to_send: Vec<ValidSubmission>,
    billed: String,
    cost: String,
    /// Handed to the engine, no answer yet: a second Ctrl-S would send it twice.
    sending: bool,
}

impl Loaded {
    /// The file as the user named it.
    pub fn file(&self) -> &str {
        &self.plan.file
    }

    pub fn rows(&self) -> usize {
        self.plan.rows
    }

    /// Tasks after expansion (copies aside), the ones an earlier run sent included.
    pub fn tasks(&self) -> usize {
        self.plan.tasks.len()
    }

    /// Tasks an earlier run already sent, left out.
    pub fn left_out(&self) -> usize {
        self.plan.left_out()
    }

    /// Tasks Ctrl-S sends, every copy counted.
    pub fn count(&self) -> usize {
        self.to_send.len()
    }

    pub fn billed(&self) -> &str {
        &self.billed
    }

    pub fn cost(&self) -> &str {
        &self.cost
    }

    pub fn problems(&self) -> &[RowError] {
        &self.plan.problems
    }

    pub fn sending(&self) -> bool {
        self.sending
    }

    /// Being loaded again over the form's changed fields.
    pub fn refreshing(&self) -> bool {
        self.refreshing
    }
}

/// What Ctrl-S sends for a loaded plan: one submission of parts, one batch.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchSend {
    pub parts: Vec<Part>,
    /// Tasks sent, every copy counted.
    pub count: usize,
    pub billed: String,
    pub cost: String,
}

/// Why Ctrl-S sends nothing for a loaded plan.
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    /// Row errors: nothing is sent while there is one.
    Rows { first: RowError, count: usize },
    /// No task at all (an empty file).
    Empty { file: String },
    /// Every task was sent by an earlier run.
    AllSent { file: String, tasks: usize },
    /// The plan is being sent now.
    Sending { file: String },
    /// The form's fields changed and the plan is being expanded over them again.
    Refreshing { file: String },
}

/// After the first of `n` row errors, how many more there are: `` (none), ` (and 2 more row
/// errors; the form lists them)`.
pub fn more_row_errors(n: usize) -> String {
    match n.saturating_sub(1) {
        0 => String::new(),
        1 => " (and 1 more row error; the form lists them)".into(),
        more => format!(" (and {more} more row errors; the form lists them)"),
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Rows { first, count: n } => write!(f, "{first}{}", more_row_errors(*n)),
            Refusal::Empty { file } => write!(f, "{file} has no task to send"),
            Refusal::AllSent { file, tasks } => {
                write!(f, "every task of {file} ({}) was already sent by an earlier run", count(*tasks, "task"))
            }
            Refusal::Sending { file } => write!(f, "{file} is being sent; wait for the engine's answer"),
            Refusal::Refreshing { file } => {
                write!(f, "{file} is being expanded again over the changed form; send again in a moment")
            }
        }
    }
}

impl Form {
    /// The form's fields as the defaults of a batch file's rows, the way `reel submit --from`
    /// takes its flags: a row's own fields win. A grid's ratios and seconds are lists, which
    /// expand every row as they expand the form.
    pub fn batch_defaults(&self) -> Defaults {
        let grid = parse_grid(&self.grid).unwrap_or_default();
        let join = |items: Vec<String>| items.join(",");
        let ratio = if grid.ratios.is_empty() {
            self.ratio.to_string()
        } else {
            join(grid.ratios.iter().map(ToString::to_string).collect())
        };
        let seconds = if grid.seconds.is_empty() { self.seconds.trim().to_string() } else { join(grid.seconds) };
        let (prompt, negative) = (self.prompt_text(), self.negative_text());
        let given = [
            ("model", Some(self.model_id().to_string()).filter(|m| !m.is_empty())),
            ("prompt", Some(prompt).filter(|p| !p.trim().is_empty())),
            ("negative", Some(negative).filter(|n| !n.trim().is_empty())),
            ("seconds", Some(seconds)),
            ("resolution", Some(self.resolution.to_string())),
            ("ratio", Some(ratio)),
            ("watermark", Some(self.watermark.to_string())),
            ("copies", Some(self.copies.trim().to_string())),
        ];
        // Media items as `reel submit --media` writes them, read back by the same parser.
        let media = self
            .media
            .iter()
            .map(|m| match &m.seconds {
                Some(s) => format!("{}={}@{s}", m.kind, m.url),
                None => format!("{}={}", m.kind, m.url),
            })
            .collect();
        Defaults { fields: given.into_iter().filter_map(|(k, v)| v.map(|v| (k.to_string(), v))).collect(), media }
    }

    /// Holds `plan`, expanded over `defaults`, in the form (in place of one loaded before);
    /// the typed fields stay.
    pub fn load_batch(&mut self, plan: Plan, defaults: Defaults) {
        let to_send = plan.to_send();
        let (billed, cost) = super::billed_and_cost(&to_send, 1, &self.pricing);
        let cost = self.quoted(cost);
        self.batch = Some(Loaded { plan, defaults, refreshing: false, to_send, billed, cost, sending: false });
    }

    /// When the form's fields are no longer those the loaded plan was expanded over (and it
    /// is neither being sent nor loaded again already): the file and the defaults to load it
    /// with again. The plan is marked as being loaded again.
    pub fn batch_refresh(&mut self) -> Option<(String, Defaults)> {
        let now = self.batch.as_ref().filter(|b| !b.sending && !b.refreshing).map(|_| self.batch_defaults())?;
        let b = self.batch.as_mut()?;
        if b.defaults == now {
            return None;
        }
        b.refreshing = true;
        Some((b.plan.file.clone(), now))
    }

    /// Lets the plan go: the form is as it was before. Returns whether one was loaded.
    pub fn unload_batch(&mut self) -> bool {
        self.batch.take().is_some()
    }

    pub fn batch(&self) -> Option<&Loaded> {
        self.batch.as_ref()
    }

    /// The plan was handed to the engine (`true`), or its sending failed (`false`).
    pub fn batch_sending(&mut self, sending: bool) {
        if let Some(b) = &mut self.batch {
            b.sending = sending;
        }
    }

    /// What Ctrl-S sends for the loaded plan, or why it sends nothing; `None` without a plan.
    pub fn batch_send(&self) -> Option<Result<BatchSend, Refusal>> {
        let b = self.batch.as_ref()?;
        let file = b.plan.file.clone();
        Some(if let Some(first) = b.plan.problems.first() {
            Err(Refusal::Rows { first: first.clone(), count: b.plan.problems.len() })
        } else if b.sending {
            Err(Refusal::Sending { file })
        } else if b.refreshing {
            Err(Refusal::Refreshing { file })
        } else if b.plan.tasks.is_empty() {
            Err(Refusal::Empty { file })
        } else if b.to_send.is_empty() {
            Err(Refusal::AllSent { file, tasks: b.plan.tasks.len() })
        } else {
            let parts = b
                .plan
                .fresh()
                .map(|c| Part { submission: c.submission.clone(), count: c.copies, parent: None })
                .collect();
            Ok(BatchSend { parts, count: b.to_send.len(), billed: b.billed.clone(), cost: b.cost.clone() })
        })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::compose::Field;
    use reel_rules::batch::plan::expand_rows;
    use reel_rules::batch::read;
    use reel_rules::{Catalog, MediaDraft, Pricing};

    fn media(text: &str) -> Result<MediaDraft, String> {
        let (kind, url) = text.split_once('=').ok_or_else(|| format!("\"{text}\" is not TYPE=URL"))?;
        let (url, seconds) = match url.rsplit_once('@') {
            Some((u, s)) => (u, Some(s.to_string())),
            None => (url, None),
        };
        Ok(MediaDraft::typed(kind, url, seconds))
    }

    fn plan_of(form: &Form, file: &str, text: &str) -> Plan {
        let rows = read::rows(file, text).expect("rows");
        let defaults = form.batch_defaults();
        let (good, problems) =
            expand_rows(&rows, &defaults, &BTreeMap::new(), &Catalog::builtin(), media, 10_000).expect("within");
        Plan::new(file, rows.len(), good, problems)
    }

    fn form() -> Form {
        Form::new(&Catalog::builtin(), &Pricing::default())
    }

    #[test]
    fn the_form_fields_are_the_rows_defaults() {
        type Setup = fn(&mut Form);
        // (what the form holds, the file, (prompt, seconds, ratio, copies) of each task)
        type Task = (&'static str, i64, &'static str, u32);
        let cases: [(Setup, &str, Vec<Task>); 5] = [
            (|_| {}, "prompt\na fox\n", vec![("a fox", 5, "1:1", 1)]),
            (
                |f| f.paste(Field::Prompt, "a {red|blue} fox"),
                "seconds\n10\n",
                vec![("a red fox", 10, "1:1", 1), ("a blue fox", 10, "1:1", 1)],
            ),
            (
                |f| {
                    f.edit_line(Field::Grid, |g| g.push_str("9:16 1:1 10"));
                },
                "prompt\nan owl\n",
                vec![("an owl", 10, "9:16", 1), ("an owl", 10, "1:1", 1)],
            ),
            (
                |f| {
                    f.edit_line(Field::Copies, |c| *c = "3".into());
                },
                "prompt,copies\nan owl,\na cat,2\n",
                vec![("an owl", 5, "1:1", 3), ("a cat", 5, "1:1", 2)],
            ),
            (
                |f| f.paste(Field::Prompt, "typed, not used"),
                "prompt,ratio,seconds\na whale,9:16,8\n",
                vec![("a whale", 8, "9:16", 1)],
            ),
        ];
        for (setup, text, want) in cases {
            let mut f = form();
            setup(&mut f);
            let p = plan_of(&f, "p.csv", text);
            assert!(p.problems.is_empty(), "{text}: {:?}", p.problems);
            let got: Vec<(&str, i64, &str, u32)> = p
                .tasks
                .iter()
                .map(|c| (c.submission.prompt.as_str(), c.submission.seconds, c.submission.ratio.as_str(), c.copies))
                .collect();
            assert_eq!(got, want, "{text}");
            assert!(p.tasks.iter().all(|c| c.submission.model.to_string() == f.model_id()));
        }
    }

    #[test]
    fn the_form_media_are_the_rows_media() {
        let mut f = form();
        f.set_model_id("acme/aurora-3.0/image-to-video");
        f.put_media(None, MediaDraft::typed("first_frame", "https://x.org/a.png", None));
        let d = f.batch_defaults();
        assert_eq!(d.media, ["first_frame=https://x.org/a.png"]);
        let p = plan_of(&f, "p.txt", "a fox\n");
        assert_eq!(p.tasks.first().map(|t| t.submission.media.len()), Some(1), "{:?}", p.problems);
    }

    #[test]
    fn ctrl_s_sends_one_batch_or_says_why_not() {
        // (file, keys already sent by position, sending, what Ctrl-S gives)
        type Case = (&'static str, &'static str, &'static [usize], bool, Result<(usize, usize), &'static str>);
        let cases: [Case; 6] = [
            ("p.csv", "prompt,copies\n{a|b} fox,2\n", &[], false, Ok((2, 4))),
            ("p.csv", "prompt,copies\n{a|b} fox,2\n", &[1], false, Ok((1, 2))),
            ("p.csv", "prompt\n{a|b} fox\n", &[0, 1], false, Err("every task of p.csv (2 tasks) was already sent")),
            ("p.csv", "prompt\na fox\n", &[], true, Err("p.csv is being sent; wait")),
            ("p.txt", "# nothing\n", &[], false, Err("p.txt has no task to send")),
            (
                "p.csv",
                "prompt,seconds\na fox,31\nan owl,99\na cat,5\n",
                &[],
                false,
                Err("p.csv:2: seconds: seconds 31 is out of range"),
            ),
        ];
        for (file, text, sent, sending, want) in cases {
            let mut f = form();
            let mut p = plan_of(&f, file, text);
            p.sent = sent.iter().map(|i| p.keys[*i].clone()).collect();
            let d = f.batch_defaults();
            f.load_batch(p, d);
            f.batch_sending(sending);
            match (f.batch_send().expect("a plan is loaded"), want) {
                (Ok(s), Ok((parts, count))) => {
                    assert_eq!((s.parts.len(), s.count), (parts, count), "{text}");
                    assert_eq!(s.parts.iter().map(|p| p.count as usize).sum::<usize>(), count, "{text}");
                    assert!(s.parts.iter().all(|p| p.parent.is_none()));
                }
                (Err(r), Err(start)) => assert!(r.to_string().starts_with(start), "{text}: {r}"),
                (got, want) => panic!("{text}: {got:?}, wanted {want:?}"),
            }
        }
    }

    #[test]
    fn row_errors_name_the_first_and_the_count() {
        let mut f = form();
        let (p, d) = (plan_of(&f, "p.csv", "prompt,seconds\na fox,31\nan owl,99\na cat,5\n"), f.batch_defaults());
        f.load_batch(p, d);
        let said = f.batch_send().expect("loaded").expect_err("refused").to_string();
        assert!(said.ends_with("(and 1 more row error; the form lists them)"), "{said}");
    }

    #[test]
    fn loading_keeps_the_typed_prompt_and_unloading_leaves_the_form_as_it_was() {
        let mut f = form();
        f.paste(Field::Prompt, "a {red|blue} fox");
        let before = (f.prompt_text(), f.check().clone());
        assert!(f.batch_send().is_none(), "no plan: Ctrl-S sends the form");
        let (p, d) = (plan_of(&f, "p.txt", "an owl\n"), f.batch_defaults());
        f.load_batch(p, d);
        assert_eq!(f.batch().map(|b| (b.rows(), b.tasks(), b.count(), b.left_out())), Some((1, 1, 1, 0)));
        assert_eq!(f.prompt_text(), before.0);
        assert!(f.unload_batch());
        assert!(!f.unload_batch(), "only once");
        assert_eq!((f.prompt_text(), f.check().clone()), before);
    }

    #[test]
    fn a_change_of_the_fields_loads_the_plan_again_once() {
        type Change = fn(&mut Form);
        // (a change, whether the rows' defaults change with it)
        let cases: [(Change, bool); 6] = [
            (|_| {}, false),
            (|f| f.paste(Field::Prompt, " at dawn"), true),
            (|f| f.cycle(Field::Ratio, true), true),
            (|f| f.cycle(Field::Watermark, true), true),
            (
                |f| {
                    f.edit_line(Field::Grid, |g| g.push_str("5 10"));
                },
                true,
            ),
            (|f| f.show_cursor(None), false),
        ];
        for (i, (change, changes)) in cases.into_iter().enumerate() {
            let mut f = form();
            f.paste(Field::Prompt, "a fox");
            let (p, d) = (plan_of(&f, "p.txt", "an owl\n"), f.batch_defaults());
            f.load_batch(p, d);
            change(&mut f);
            let again = f.batch_refresh();
            assert_eq!(
                again.as_ref().map(|(file, d)| (file.as_str(), d)),
                changes.then_some(("p.txt", &f.batch_defaults())),
                "case {i}"
            );
            if changes {
                assert_eq!(f.batch_refresh(), None, "case {i}: asked once");
                let said = f.batch_send().expect("loaded").expect_err("refused meanwhile").to_string();
                assert!(said.starts_with("p.txt is being expanded again"), "{said}");
                let (p, d) = (plan_of(&f, "p.txt", "an owl\n"), f.batch_defaults());
                f.load_batch(p, d);
                assert_eq!(f.batch_refresh(), None, "case {i}: up to date");
                assert!(f.batch_send().expect("loaded").is_ok(), "case {i}");
            }
        }
    }
}
