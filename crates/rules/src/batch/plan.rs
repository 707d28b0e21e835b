//! A batch file's plan, pure: its rows expanded and validated over the defaults, each task
//! keyed by its content, and which of them an earlier run already sent. The command line
//! (`reel submit --from`) and the dashboard's form build the same plan and show the same
//! figures from it.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use super::RowError;
use super::expand::{self, Checked, Defaults, Task, TooManyTasks};
use super::key::content_key;
use super::read::Row;
use crate::{Catalog, MediaDraft, ValidSubmission};

/// Every task of every row over `defaults`, validated; and the problems of the rest, each
/// said once (the tasks of one row often break the same rule). Refused whole, before any task
/// is made, when the rows expand to more than `max_tasks` tasks (copies counted): the rows are
/// counted first, and counting stops at the row that passes the bound.
pub fn expand_rows(
    rows: &[Row],
    defaults: &Defaults,
    vars: &BTreeMap<String, Vec<String>>,
    catalog: &Catalog,
    parse_media: impl Fn(&str) -> Result<MediaDraft, String>,
    max_tasks: u32,
) -> Result<(Vec<Checked>, Vec<RowError>), TooManyTasks> {
    let mut planned = Vec::with_capacity(rows.len());
    let mut counted: u64 = 0;
    for row in rows {
        let plan = expand::row_plan(row, defaults, vars, &parse_media);
        if let Ok(p) = &plan {
            counted = counted.saturating_add(p.count());
            if counted > u64::from(max_tasks) {
                return Err(TooManyTasks { max: max_tasks, reached: counted, at: row.at.clone() });
            }
        }
        planned.push(plan);
    }
    let mut all: Vec<Task> = Vec::new();
    let mut problems = Vec::new();
    for plan in planned {
        match plan {
            Ok(p) => all.extend(p.tasks()),
            Err(errors) => problems.extend(errors),
        }
    }
    let (good, invalid) = expand::check(all, catalog);
    for p in invalid {
        if !problems.contains(&p) {
            problems.push(p);
        }
    }
    Ok((good, problems))
}

/// A batch file expanded: what it asks for, what is left to send, and what is wrong with it.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The file as the user named it (the messages' `FILE:LINE` use it too).
    pub file: String,
    /// Rows read from the file.
    pub rows: usize,
    /// The tasks that passed every rule, in the file's order.
    pub tasks: Vec<Checked>,
    /// Each task's content key, by position in `tasks`.
    pub keys: Vec<String>,
    /// The keys an earlier run journaled: those tasks are left out.
    pub sent: HashSet<String>,
    /// Every row problem; nothing is sent while there is one.
    pub problems: Vec<RowError>,
}

impl Plan {
    /// The plan of `tasks` (keyed here), none of them sent yet.
    pub fn new(file: &str, rows: usize, tasks: Vec<Checked>, problems: Vec<RowError>) -> Plan {
        let keys = tasks.iter().map(|c| content_key(&c.submission)).collect();
        Plan { file: file.to_string(), rows, tasks, keys, sent: HashSet::new(), problems }
    }

    /// The tasks no earlier run sent, in order.
    pub fn fresh(&self) -> impl Iterator<Item = &Checked> {
        self.tasks.iter().zip(&self.keys).filter(|(_, k)| !self.sent.contains(*k)).map(|(c, _)| c)
    }

    /// How many tasks (copies aside) an earlier run sent, left out.
    pub fn left_out(&self) -> usize {
        self.keys.iter().filter(|k| self.sent.contains(*k)).count()
    }

    /// Every submission to send, each copy apart: what the count, the billed seconds and
    /// the cost are of.
    pub fn to_send(&self) -> Vec<ValidSubmission> {
        self.fresh().flat_map(|c| std::iter::repeat_n(c.submission.clone(), c.copies as usize)).collect()
    }
}

/// Where the file a user typed is: `~` is the home folder (when one is known); a relative
/// path is relative to the current folder (as the shell would take it).
pub fn resolve(typed: &str, home: Option<&Path>) -> PathBuf {
    let typed = typed.trim();
    match (typed.strip_prefix('~'), home) {
        (Some(""), Some(home)) => home.to_path_buf(),
        (Some(rest), Some(home)) if rest.starts_with('/') => home.join(rest.trim_start_matches('/')),
        _ => PathBuf::from(typed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::read;

    const T2V: &str = "acme/aurora-3.0/text-to-video";

    fn media(text: &str) -> Result<MediaDraft, String> {
        let (kind, url) = text.split_once('=').ok_or_else(|| format!("\"{text}\" is not TYPE=URL"))?;
        Ok(MediaDraft::typed(kind, url, None))
    }

    fn plan(text: &str) -> Plan {
        let rows = read::rows("p.csv", text).expect("rows");
        let defaults = Defaults { fields: [("model".to_string(), T2V.to_string())].into(), media: vec![] };
        let (good, problems) =
            expand_rows(&rows, &defaults, &BTreeMap::new(), &Catalog::builtin(), media, 10_000).expect("within");
        Plan::new("p.csv", rows.len(), good, problems)
    }

    #[test]
    fn rows_tasks_copies_and_what_was_sent() {
        // (file, sent keys by task position, rows, tasks, left out, to send)
        type Case = (&'static str, &'static [usize], usize, usize, usize, usize);
        let cases: [Case; 5] = [
            ("prompt\na fox\n", &[], 1, 1, 0, 1),
            ("prompt,seconds\n{a|b} fox,\"5,10\"\n", &[], 1, 4, 0, 4),
            ("prompt,copies\n{a|b} fox,3\nan owl,1\n", &[], 2, 3, 0, 7),
            ("prompt,copies\n{a|b} fox,3\nan owl,1\n", &[0], 2, 3, 1, 4),
            ("prompt\n{a|b} fox\n", &[0, 1], 1, 2, 2, 0),
        ];
        for (text, sent, rows, tasks, left_out, to_send) in cases {
            let mut p = plan(text);
            p.sent = sent.iter().map(|i| p.keys[*i].clone()).collect();
            assert_eq!(
                (p.rows, p.tasks.len(), p.left_out(), p.to_send().len(), p.problems.len()),
                (rows, tasks, left_out, to_send, 0),
                "{text}"
            );
            assert_eq!(p.fresh().count(), tasks - left_out, "{text}");
        }
    }

    #[test]
    fn a_rule_broken_by_several_tasks_of_a_row_is_said_once() {
        let p = plan("prompt,seconds,ratio\na fox,31,\"16:9,9:16\"\nan owl,5,\n");
        assert_eq!(p.tasks.len(), 1, "the owl is fine");
        let shown: Vec<String> = p.problems.iter().map(ToString::to_string).collect();
        assert_eq!(shown.len(), 1, "{shown:?}");
        assert!(shown[0].starts_with("p.csv:2: seconds: "), "{shown:?}");
    }

    #[test]
    fn the_bound_on_a_run_counts_every_row_and_copy() {
        // (file, max_tasks, Ok(tasks to send) or Err((tasks counted, where counting stopped)))
        type Case = (&'static str, u32, Result<usize, (u64, &'static str)>);
        let cases: [Case; 7] = [
            ("prompt,copies\n{a|b} fox,3\n", 6, Ok(6)),
            ("prompt,copies\n{a|b} fox,3\n", 5, Err((6, "p.csv:2"))),
            ("prompt\na\nb\nc\n", 3, Ok(3)),
            ("prompt\na\nb\nc\n", 2, Err((3, "p.csv:4"))),
            ("prompt,ratio,seconds,copies\n{a|b},\"16:9,9:16\",\"5,10\",100\n", 800, Ok(800)),
            ("prompt,ratio,seconds,copies\n{a|b},\"16:9,9:16\",\"5,10\",100\n", 799, Err((800, "p.csv:2"))),
            // A row that cannot be expanded makes no task; it is a problem, not a count.
            ("prompt,copies\n{colour} fox,100\nan owl,1\n", 1, Ok(1)),
        ];
        for (text, max, want) in cases {
            let rows = read::rows("p.csv", text).expect("rows");
            let defaults = Defaults { fields: [("model".to_string(), T2V.to_string())].into(), media: vec![] };
            let got = expand_rows(&rows, &defaults, &BTreeMap::new(), &Catalog::builtin(), media, max);
            match (got, want) {
                (Ok((good, problems)), Ok(n)) => {
                    let p = Plan::new("p.csv", rows.len(), good, problems);
                    assert_eq!(p.to_send().len(), n, "{text}");
                }
                (Err(e), Err((reached, at))) => {
                    assert_eq!(e, TooManyTasks { max, reached, at: at.into() }, "{text}");
                }
                (got, want) => panic!("{text} within {max}: {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn a_million_tasks_are_refused_without_being_made() {
        // 100 rows of 10,000 alternatives each: 1,000,000 tasks, refused at the second row.
        let alternatives: Vec<String> = (0..10_000).map(|i| format!("v{i}")).collect();
        let prompt = format!("a {{{}}} fox", alternatives.join("|"));
        let rows: Vec<Row> = (1..=100)
            .map(|i| Row {
                at: format!("p.txt:{i}"),
                fields: [("prompt".to_string(), prompt.clone())].into(),
                media: vec![],
            })
            .collect();
        // Every row's media is parsed once as it is read: the count of rows read.
        let read = std::cell::Cell::new(0);
        let counted = |text: &str| {
            read.set(read.get() + 1);
            media(text)
        };
        let defaults = Defaults {
            fields: [("model".to_string(), T2V.to_string())].into(),
            media: vec!["reference_image=https://x.org/a.png".into()],
        };
        let e =
            expand_rows(&rows, &defaults, &BTreeMap::new(), &Catalog::builtin(), counted, 10_000).expect_err("refused");
        assert_eq!(e, TooManyTasks { max: 10_000, reached: 20_000, at: "p.txt:2".into() });
        assert_eq!(read.get(), 2, "reading stopped at the row that passed the bound");
        assert_eq!(
            e.to_string(),
            "this batch expands to more than 10,000 tasks (the [batch] max_tasks); counting stopped at p.txt:2, \
             with 20,000 tasks (copies counted)"
        );
    }

    #[test]
    fn typed_paths_resolve_like_a_shell() {
        let home = Some(Path::new("/home/ann"));
        let cases = [
            ("~/prompts.csv", "/home/ann/prompts.csv"),
            ("~", "/home/ann"),
            ("  ~/a/b.jsonl ", "/home/ann/a/b.jsonl"),
            ("prompts.csv", "prompts.csv"),
            ("./x/p.txt", "./x/p.txt"),
            ("/tmp/p.csv", "/tmp/p.csv"),
            ("~bob/p.csv", "~bob/p.csv"),
        ];
        for (typed, want) in cases {
            assert_eq!(resolve(typed, home), PathBuf::from(want), "{typed}");
        }
        assert_eq!(resolve("~/p.csv", None), PathBuf::from("~/p.csv"), "no home: as typed");
    }
}
