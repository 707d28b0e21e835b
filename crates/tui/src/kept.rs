//! Files the dashboard keeps between runs in the data folder: the screen's preferences
//! (`ui.json`) and the unsent draft (`draft.json`), each written whole or not at all.

use std::path::{Path, PathBuf};

use super::app::EffectError;
use super::compose::Saved;
use super::prefs::Prefs;

fn prefs_path(data_dir: &Path) -> PathBuf {
    data_dir.join("ui.json")
}

fn draft_path(data_dir: &Path) -> PathBuf {
    data_dir.join("draft.json")
}

/// A file the dashboard keeps between runs: read, and whether a failure to read it matters.
fn load_json<T: serde::de::DeserializeOwned>(path: &Path, what: &'static str) -> Result<Option<T>, EffectError> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(EffectError::Load { what, path: path.display().to_string(), source: source.into() }),
    };
    serde_json::from_slice(&bytes).map(Some).map_err(|e| EffectError::Load {
        what,
        path: path.display().to_string(),
        source: e.into(),
    })
}

/// Sort and filter from the last run: defaults when there is no file; a file that cannot be
/// read is said (with the defaults used meanwhile).
pub fn load_prefs(data_dir: &Path) -> (Prefs, Option<EffectError>) {
    match load_json(&prefs_path(data_dir), "the screen preferences") {
        Ok(p) => (p.unwrap_or_default(), None),
        Err(e) => {
            tracing::warn!("{e}");
            (Prefs::default(), Some(e))
        }
    }
}

/// The form's unsent draft from the last run, if one was kept.
pub fn load_draft(data_dir: &Path) -> Result<Option<Saved>, EffectError> {
    load_json(&draft_path(data_dir), "the unsent draft").inspect_err(|e| tracing::warn!("{e}"))
}

/// Writes `value` to `path` whole or not at all (a file beside it, then renamed over it).
fn save_json(path: &Path, value: &impl serde::Serialize, what: &'static str) -> Result<(), EffectError> {
    let fail = |source: std::io::Error| EffectError::Save { what, path: path.display().to_string(), source };
    let bytes = serde_json::to_vec_pretty(value).map_err(|e| fail(e.into()))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(fail)?;
    std::io::Write::write_all(&mut file, &bytes).map_err(fail)?;
    file.persist(path).map_err(|e| fail(e.error))?;
    Ok(())
}

/// Removes a kept file; one that is not there is fine.
fn remove_file(path: &Path, what: &'static str) -> Result<(), EffectError> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(EffectError::Save { what, path: path.display().to_string(), source: e })
        }
        _ => Ok(()),
    }
}

/// Writes the screen's preferences.
pub fn save_prefs(data_dir: &Path, prefs: &Prefs) -> Result<(), EffectError> {
    save_json(&prefs_path(data_dir), prefs, "the screen preferences")
}

/// Keeps the unsent draft, or forgets the kept one when there is none.
pub fn save_draft(data_dir: &Path, draft: Option<&Saved>) -> Result<(), EffectError> {
    let path = draft_path(data_dir);
    match draft {
        Some(d) => save_json(&path, d, "the unsent draft"),
        None => remove_file(&path, "the unsent draft"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_files_round_trip_and_their_failures_are_said() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let (prefs, failed) = load_prefs(dir.path());
        assert!(prefs == Prefs::default() && failed.is_none(), "no file: the defaults, quietly");
        std::fs::write(prefs_path(dir.path()), b"{not json").expect("write");
        let (prefs, failed) = load_prefs(dir.path());
        let said = failed.map(|e| e.to_string()).unwrap_or_default();
        assert!(prefs == Prefs::default(), "the defaults meanwhile");
        assert!(said.starts_with("cannot read the screen preferences from ") && said.contains("ui.json"), "{said}");
        let saved = Saved { copies: "2".into(), ..Default::default() };
        save_json(&draft_path(dir.path()), &saved, "the unsent draft").expect("saved");
        assert_eq!(load_draft(dir.path()).ok().flatten(), Some(saved));
        remove_file(&draft_path(dir.path()), "the unsent draft").expect("removed");
        assert_eq!(load_draft(dir.path()).ok().flatten(), None);
        let gone = dir.path().join("no such folder").join("ui.json");
        let e = save_json(&gone, &Prefs::default(), "the screen preferences").map_err(|e| e.to_string());
        assert!(e.as_ref().is_err_and(|e| e.starts_with("cannot save the screen preferences to ")), "{e:?}");
    }
}
