//! The form's effects: sending what it holds (each part's media made ready first), batch files
//! read and sent, the media check, the editor, the kept draft, the service's model list.

use reel_engine::Engine;
use reel_engine::journal::Part;
use reel_rules::ValidSubmission;
use reel_rules::batch::expand::Defaults;
use reel_store::TaskRecord;
use tokio::sync::mpsc::UnboundedSender;

use crate::app::{Action, BatchNews, EffectError};
use crate::compose::media::{MediaContext, prepare};
use crate::compose::{Field, Saved, batch_file, media};
use crate::effects::{Context, blocking, reading};
use crate::kept;
use crate::terminal::Console;

/// The form's plan sent: `copies` of each submission, all from `parent` when it is a retake.
pub fn submit(cx: &Context, plan: Vec<ValidSubmission>, copies: u32, parent: Option<i64>, past_budget: bool) {
    let parts = plan.into_iter().map(|submission| Part { submission, count: copies, parent }).collect();
    send(cx, parts, past_budget, |result| Action::Submitted { again: false, result });
}

/// Tasks sent again as they were, each recording the task it came from.
pub fn submit_again(cx: &Context, items: Vec<(i64, ValidSubmission)>, past_budget: bool) {
    let parts =
        items.into_iter().map(|(parent, submission)| Part { submission, count: 1, parent: Some(parent) }).collect();
    send(cx, parts, past_budget, |result| Action::Submitted { again: true, result });
}

/// A batch file's plan sent as one submission, one batch.
pub fn submit_batch(cx: &Context, parts: Vec<Part>, past_budget: bool) {
    send(cx, parts, past_budget, |result| Action::Batch(BatchNews::Submitted(result)));
}

fn send(
    cx: &Context,
    parts: Vec<Part>,
    past_budget: bool,
    news: impl FnOnce(Result<Vec<TaskRecord>, EffectError>) -> Action + Send + 'static,
) {
    let (engine, media, tx) = (cx.engine.get(), cx.media.clone(), cx.actions.clone());
    tokio::spawn(async move {
        let result = send_parts(&engine, &media, &tx, parts, past_budget).await;
        let _ = tx.send(news(result));
    });
}

/// Every part's media made ready (local files uploaded, URLs re-signed) before the first is
/// sent, then the parts handed to the engine as one submission: one batch when there are
/// several tasks.
async fn send_parts(
    engine: &Engine,
    media: &MediaContext,
    tx: &UnboundedSender<Action>,
    parts: Vec<Part>,
    past_budget: bool,
) -> Result<Vec<TaskRecord>, EffectError> {
    let mut ready = Vec::with_capacity(parts.len());
    for part in parts {
        let submission = prepare(part.submission, media, |line| drop(tx.send(Action::Report(Ok(line))))).await?;
        ready.push(Part { submission, ..part });
    }
    let submission = reel_engine::Submission {
        parts: ready.iter().map(reel_engine::DraftPart::from).collect(),
        over_budget: past_budget,
        ..Default::default()
    };
    Ok(engine.send(submission).await?.tasks)
}

/// A typed path completed from the names in its folder.
pub fn complete_path(cx: &Context, typed: String) {
    let home = cx.media.home.clone();
    blocking(cx.actions.clone(), move || {
        let completion = batch_file::complete_path(&typed, home.as_deref());
        Some(Action::Batch(BatchNews::Completed { typed, completion }))
    });
}

/// A batch file read and expanded over the form's fields, with what an earlier run sent of it.
pub fn load_batch(cx: &Context, path: String, defaults: Defaults, refresh: bool) {
    let (home, catalog, bounds) = (cx.media.home.clone(), cx.media.catalog.clone(), cx.batch);
    reading(cx, move |r| async move {
        let result = batch_file::load_batch(path, defaults.clone(), home, catalog, bounds, &r).await;
        Some(Action::Batch(BatchNews::Loaded { defaults, refresh, result }))
    });
}

/// The form's media items checked (files read, URLs asked) off the event loop.
pub fn check_media(cx: &Context, items: Vec<(String, reel_rules::MediaDraft)>) {
    let (home, storage, tx) = (cx.media.home.clone(), cx.media.storage.is_some(), cx.actions.clone());
    tokio::spawn(async move {
        let _ = tx.send(Action::MediaChecked(media::check_items(items, home, storage).await));
    });
}

/// The editor run on a field's text, with the terminal handed over until it exits.
pub async fn edit(cx: &Context, console: &mut impl Console, field: Field, text: String) {
    let result = run_editor(console, &cx.programs.editor, field, &text).await;
    let _ = cx.actions.send(Action::Edited(field, result));
}

/// Runs the editor on the text in a private temporary file.
async fn run_editor(
    console: &mut impl Console,
    editor: &[String],
    field: Field,
    text: &str,
) -> Result<String, EffectError> {
    let dir = tempfile::Builder::new().prefix("reel-").tempdir().map_err(EffectError::EditorFile)?;
    let path = dir.path().join(if field == Field::Prompt { "prompt.txt" } else { "negative.txt" });
    std::fs::write(&path, text).map_err(EffectError::EditorFile)?;
    let (program, args) = editor.split_first().ok_or(EffectError::EmptyCommand)?;
    console.release();
    let status = tokio::process::Command::new(program).args(args).arg(&path).status().await;
    console.reclaim().map_err(EffectError::Terminal)?;
    match status {
        Ok(s) if s.success() => std::fs::read_to_string(&path).map_err(EffectError::EditorFile),
        Ok(s) => Err(EffectError::EditorFailed { program: program.clone(), status: s.to_string() }),
        Err(source) => Err(EffectError::EditorMissing { program: program.clone(), source }),
    }
}

/// The unsent draft written before the loop ends: the process may exit right after.
pub fn save_draft(cx: &Context, draft: Option<Saved>) {
    // On the way out the status line is gone: the log keeps the failure.
    if let Err(e) = kept::save_draft(&cx.data_dir, draft.as_ref()) {
        tracing::warn!("{e}");
        let _ = cx.actions.send(Action::Report(Err(e)));
    }
}

/// The unsent draft kept while the dashboard runs, off the event loop.
pub fn keep_draft(cx: &Context, draft: Option<Saved>) {
    let dir = cx.data_dir.clone();
    blocking(cx.actions.clone(), move || kept::save_draft(&dir, draft.as_ref()).err().map(|e| Action::Report(Err(e))));
}

/// The models the service lists, for the form's model list.
pub fn load_service_models(cx: &Context) {
    let (engine, tx) = (cx.engine.get(), cx.actions.clone());
    tokio::spawn(async move {
        match engine.service_models().await {
            Ok(list) => drop(tx.send(Action::ServiceModels(list.models.into_iter().map(|m| m.id).collect()))),
            // Many services list nothing there: the catalog's models are the list then.
            Err(e) => tracing::info!(error = %e, "the service's model list is not available"),
        }
    });
}
