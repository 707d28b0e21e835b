//! A batch file in the dashboard: Tab's completion of its path, and the file read and
//! expanded over the form's fields (blocking work on the blocking pool), with the tasks an
//! earlier run journaled marked as sent.

use std::path::{Path, PathBuf};

use crate::app::EffectError;
use reel_engine::config::BatchSettings;
use reel_engine::reader::{ReadError, Reader};
use reel_rules::batch::stream::{self, ReadBounds};

/// Tab in the path input: the typed path's folder listed (`~` and relative paths resolved as
/// a load resolves them), and the completion of what was typed.
pub fn complete_path(typed: &str, home: Option<&Path>) -> crate::compose::Completion {
    let (dir, _) = crate::compose::split_typed(typed);
    let folder = if dir.is_empty() { PathBuf::from(".") } else { reel_rules::batch::plan::resolve(dir, home) };
    // A folder that cannot be read has nothing to offer.
    let entries: Vec<(String, bool)> = std::fs::read_dir(folder)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| Some((e.file_name().into_string().ok()?, e.path().is_dir())))
        .collect();
    crate::compose::complete(typed, &entries)
}

/// A batch file read and expanded over the form's fields (`defaults`), with the tasks an
/// earlier run journaled marked as sent. Rows that cannot be read are the plan's problems; a
/// file past the `[batch]` bounds is not loaded.
pub async fn load_batch(
    typed: String,
    defaults: reel_rules::batch::expand::Defaults,
    home: Option<PathBuf>,
    catalog: reel_rules::Catalog,
    bounds: BatchSettings,
    reader: &Reader,
) -> Result<reel_rules::batch::plan::Plan, EffectError> {
    let read = tokio::task::spawn_blocking(move || expand_batch(&typed, &defaults, home.as_deref(), &catalog, &bounds));
    let mut plan = read.await.map_err(|e| EffectError::Reading(ReadError::Stopped(e.to_string())))??;
    plan.sent = reader.already_sent(&plan.keys, false).await.map_err(|source| EffectError::Read {
        what: format!("which tasks of {} were already sent", plan.file),
        source,
    })?;
    Ok(plan)
}

/// A batch file read from this machine and expanded over the form's fields (blocking).
fn expand_batch(
    typed: &str,
    defaults: &reel_rules::batch::expand::Defaults,
    home: Option<&Path>,
    catalog: &reel_rules::Catalog,
    bounds: &BatchSettings,
) -> Result<reel_rules::batch::plan::Plan, EffectError> {
    use reel_rules::batch::{plan, read};
    let path = plan::resolve(typed, home);
    // Messages name the file as the user typed it: `prompts.csv:14: seconds: …`.
    let name = typed.trim();
    let text = stream::file(&path, name, ReadBounds::from(bounds)).map_err(|e| match e {
        stream::ReadError::Io { path, source } => EffectError::BatchFile { path, source },
        past => EffectError::BatchRead(past),
    })?;
    let (rows, good, problems) = match read::rows(name, &text) {
        Ok(rows) => {
            // Media items as `reel submit --media` takes them, by the same parser.
            let media = |t: &str| reel_rules::parse_media(t).map_err(|e| e.to_string());
            let (good, problems) =
                plan::expand_rows(&rows, defaults, &Default::default(), catalog, media, bounds.max_tasks)?;
            (rows.len(), good, problems)
        }
        Err(problems) => (0, Vec::new(), problems),
    };
    Ok(plan::Plan::new(name, rows, good, problems))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compose::Completion;

    #[test]
    fn tab_lists_the_typed_folder() {
        let dir = tempfile::tempdir().expect("a temp dir");
        for name in ["prompts.csv", "prompts.txt", "shots.jsonl"] {
            std::fs::write(dir.path().join(name), "a fox\n").expect("write");
        }
        std::fs::create_dir(dir.path().join("older")).expect("mkdir");
        let at = |name: &str| format!("{}/{name}", dir.path().display());
        let cases = [
            (at("sh"), Completion::To(at("shots.jsonl"))),
            (at("ol"), Completion::To(at("older/"))),
            (at("prompts."), Completion::Choices(vec!["prompts.csv".into(), "prompts.txt".into()])),
            (at("x"), Completion::Nothing),
            (at("none/x"), Completion::Nothing),
        ];
        for (typed, want) in cases {
            assert_eq!(complete_path(&typed, None), want, "{typed}");
        }
        let home = Some(dir.path());
        assert_eq!(complete_path("~/sh", home), Completion::To("~/shots.jsonl".into()), "the path stays as typed");
    }

    #[test]
    fn a_file_past_the_batch_bounds_is_not_loaded() {
        let dir = tempfile::tempdir().expect("a temp dir");
        std::fs::write(dir.path().join("long.txt"), format!("{}\n", "x".repeat(101))).expect("write");
        std::fs::write(dir.path().join("many.txt"), "{a|b|c} fox\n{a|b} owl\n").expect("write");
        std::fs::write(dir.path().join("fine.txt"), "{a|b|c} fox\n{a|b} owl\n").expect("write");
        let bounds = BatchSettings { max_file_bytes: 1000, max_line_bytes: 100, max_tasks: 4, ..Default::default() };
        let defaults = reel_rules::batch::expand::Defaults {
            fields: [("model".to_string(), "acme/aurora-3.0/text-to-video".to_string())].into(),
            media: vec![],
        };
        let catalog = reel_rules::Catalog::builtin();
        let load = |name: &str, max_tasks| {
            let bounds = BatchSettings { max_tasks, ..bounds };
            expand_batch(&format!("~/{name}"), &defaults, Some(dir.path()), &catalog, &bounds)
        };
        let e = load("long.txt", 4).expect_err("a line past its bound");
        assert!(matches!(e, EffectError::BatchRead(_)), "{e:?}");
        assert_eq!(e.to_string(), "~/long.txt:1: a line longer than 100 bytes (the [batch] max_line_bytes)");
        let e = load("many.txt", 4).expect_err("5 tasks past 4");
        assert!(matches!(e, EffectError::BatchTasks(_)), "{e:?}");
        assert!(e.to_string().starts_with("this batch expands to more than 4 tasks"), "{e}");
        let plan = load("fine.txt", 5).expect("5 tasks within 5");
        assert_eq!((plan.tasks.len(), plan.problems.len()), (5, 0));
        let e = load("none.txt", 5).expect_err("missing");
        assert!(matches!(e, EffectError::BatchFile { .. }), "{e:?}");
    }
}
