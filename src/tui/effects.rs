//! Carrying out what `update` asked for: engine commands, files, processes, the clipboard.
//! Everything slow runs on a task and reports back as an [`Action`].

use std::io::Write;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;

use base64::Engine as _;
use tokio::sync::mpsc::UnboundedSender;

use super::app::{Action, Effect};
use super::form::Field;
use super::table::Prefs;
use super::terminal::{self, Term};
use crate::engine::{Engine, query};

pub struct Context {
    pub engine: Arc<Engine>,
    pub pricing: crate::config::Pricing,
    pub db: PathBuf,
    pub data_dir: PathBuf,
    pub actions: UnboundedSender<Action>,
}

fn prefs_path(data_dir: &std::path::Path) -> PathBuf {
    data_dir.join("ui.json")
}

/// Sort and filter from the last run (defaults when there is no file or it is unreadable).
pub fn load_prefs(data_dir: &std::path::Path) -> Prefs {
    std::fs::read(prefs_path(data_dir)).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default()
}

/// Starts a program without a shell, detached from the terminal.
fn spawn(argv: &[String]) -> Result<(), String> {
    let (program, args) = argv.split_first().ok_or("the command is empty")?;
    tokio::process::Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map(drop)
        .map_err(|e| format!("cannot run {program}: {e}"))
}

/// `$REEL_PLAYER`, else the desktop's opener.
fn player(path: &str) -> Vec<String> {
    let mut argv: Vec<String> = match std::env::var("REEL_PLAYER").ok().filter(|p| !p.trim().is_empty()) {
        Some(p) => p.split_whitespace().map(str::to_string).collect(),
        None if cfg!(target_os = "macos") => vec!["open".into()],
        None => vec!["xdg-open".into()],
    };
    argv.push(path.to_string());
    argv
}

async fn edit(term: &mut Term, field: Field, text: &str) -> Result<String, String> {
    let dir = tempfile::Builder::new().prefix("reel-").tempdir().map_err(|e| e.to_string())?;
    let path = dir.path().join(if field == Field::Prompt { "prompt.txt" } else { "negative.txt" });
    std::fs::write(&path, text).map_err(|e| e.to_string())?;
    let editor = std::env::var("VISUAL").or_else(|_| std::env::var("EDITOR")).unwrap_or_else(|_| "vi".into());
    let mut argv: Vec<String> = editor.split_whitespace().map(str::to_string).collect();
    argv.push(path.to_string_lossy().into_owned());
    terminal::leave();
    let status = tokio::process::Command::new(&argv[0]).args(&argv[1..]).status().await;
    let back = terminal::enter().and_then(|()| term.clear());
    back.map_err(|e| e.to_string())?;
    match status {
        Ok(s) if s.success() => std::fs::read_to_string(&path).map_err(|e| e.to_string()),
        Ok(s) => Err(format!("{} exited with {s}; the text was not changed", argv[0])),
        Err(e) => Err(format!("cannot run {}: {e} (set $EDITOR)", argv[0])),
    }
}

pub async fn perform(effect: Effect, cx: &Context, term: &mut Term) -> std::io::Result<()> {
    let tx = cx.actions.clone();
    let report = move |tx: UnboundedSender<Action>, r: Result<String, String>| {
        let _ = tx.send(Action::Report(r));
    };
    match effect {
        Effect::Submit { plan, copies, parent } => {
            let engine = cx.engine.clone();
            tokio::spawn(async move {
                let mut all = Vec::new();
                for v in plan {
                    match engine.submit(v, copies, parent).await {
                        Ok(records) => all.extend(records),
                        Err(e) => {
                            let _ = tx.send(Action::Submitted(Err(format!("Not sent: {e}"))));
                            return;
                        }
                    }
                }
                let _ = tx.send(Action::Submitted(Ok(all)));
            });
        }
        Effect::Resend(id) | Effect::Recheck(id) | Effect::Download(id) => {
            let engine = cx.engine.clone();
            tokio::spawn(async move {
                let (result, done) = match effect {
                    Effect::Resend(_) => (engine.resend(id).await, "sent again"),
                    Effect::Recheck(_) => (engine.recheck(id).await, "being checked again"),
                    _ => (engine.download(id).await, "being downloaded again"),
                };
                report(tx, result.map(|()| format!("Task {id} is {done}")).map_err(|e| e.to_string()));
            });
        }
        Effect::LoadTimeline(id) => {
            let db = cx.db.clone();
            tokio::task::spawn_blocking(move || {
                if let Ok((_, events)) = query::show(&db, id) {
                    let _ = tx.send(Action::Timeline(id, events));
                }
            });
        }
        Effect::Open(path) => {
            let argv = player(&path);
            report(tx, spawn(&argv).map(|()| format!("Opening {path}")));
        }
        Effect::Run(argv) => {
            let shown = argv.join(" ");
            report(tx, spawn(&argv).map(|()| format!("Started: {}", crate::text::excerpt(&shown, 80))));
        }
        Effect::Copy(text) => {
            // OSC 52: the terminal (and tmux, with set-clipboard on) puts it on the clipboard.
            let encoded = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
            let mut out = std::io::stdout();
            write!(out, "\x1b]52;c;{encoded}\x07")?;
            out.flush()?;
            report(tx, Ok(format!("Copied {}", crate::text::excerpt(&text, 80))));
        }
        Effect::Edit { field, text } => {
            let result = edit(term, field, &text).await;
            let _ = tx.send(Action::Edited(field, result));
        }
        Effect::SavePrefs(prefs) => {
            let path = prefs_path(&cx.data_dir);
            tokio::task::spawn_blocking(move || {
                if let Ok(bytes) = serde_json::to_vec(&prefs) {
                    let _ = std::fs::write(path, bytes);
                }
            });
        }
        Effect::Bell => {
            let mut out = std::io::stdout();
            write!(out, "\x07")?;
            out.flush()?;
        }
        Effect::Notify(message) => {
            // Desktop notification where a notifier exists; silently nothing elsewhere.
            let _ = spawn(&["notify-send".into(), "reel".into(), message]);
        }
        Effect::Suspend => terminal::suspend(term)?,
        Effect::Quit => {}
        Effect::HistoryPage { generation, query, cursor } => {
            let db = cx.db.clone();
            tokio::task::spawn_blocking(move || {
                let page = query::history(&db, &query, cursor, super::history::PAGE).map_err(|e| e.to_string());
                let _ = tx.send(Action::HistoryPage(generation, page));
            });
        }
        Effect::Lineage(id) => {
            let db = cx.db.clone();
            tokio::task::spawn_blocking(move || {
                if let Ok((parent, children)) = query::lineage(&db, id) {
                    let _ = tx.send(Action::Lineage(id, parent, children));
                }
            });
        }
        Effect::LoadLedger(since) => {
            let (db, pricing) = (cx.db.clone(), cx.pricing.clone());
            tokio::task::spawn_blocking(move || match query::ledger(&db, since, &pricing) {
                Ok(l) => drop(tx.send(Action::Ledger(l))),
                Err(e) => drop(tx.send(Action::Report(Err(e.to_string())))),
            });
        }
        Effect::LoadModels => {
            let db = cx.db.clone();
            tokio::task::spawn_blocking(move || {
                if let Ok(models) = query::models(&db) {
                    let _ = tx.send(Action::Models(models));
                }
            });
        }
        Effect::LoadSpent => {
            let (db, pricing) = (cx.db.clone(), cx.pricing.clone());
            tokio::task::spawn_blocking(move || {
                if let Ok(spent) = query::spent_today(&db, &pricing) {
                    let _ = tx.send(Action::Spent(spent));
                }
            });
        }
        Effect::Delete { id, remove_file } => {
            let engine = cx.engine.clone();
            tokio::spawn(async move {
                let result = engine.delete(id, remove_file).await.map_err(|e| e.to_string());
                let _ = tx.send(Action::Deleted(result));
            });
        }
        Effect::Reveal(dir) => {
            let opener = if cfg!(target_os = "macos") { "open" } else { "xdg-open" };
            report(tx, spawn(&[opener.to_string(), dir.clone()]).map(|()| format!("Opening {dir}")));
        }
    }
    Ok(())
}
