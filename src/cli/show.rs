//! `reel show`: one task's parameters, timeline and file.

use std::io::Write;

use clap::Args;
use serde_json::json;

use super::CliError;
use super::output::Output;
use crate::config::Settings;
use crate::engine::query;
use crate::session::db_path;
use crate::store::{EventRecord, TaskRecord};
use crate::text::{local_time, one_line, size};

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// Task id: local id, remote id, or a unique prefix of either.
    pub id: String,
    /// Print the task and its timeline as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn render(t: &TaskRecord, events: &[EventRecord]) -> String {
    let mut lines = vec![format!(
        "Task {} ({})",
        t.id,
        t.remote_id.as_deref().map(one_line).unwrap_or_else(|| "not accepted".into())
    )];
    let mut field = |name: &str, value: String| lines.push(format!("  {name:<12} {value}"));
    field("state", t.state.to_string());
    if let Some(s) = &t.remote_status {
        field("service says", one_line(s));
    }
    field("model", one_line(&t.model));
    field("prompt", one_line(&t.prompt));
    if let Some(n) = &t.negative_prompt {
        field("negative", one_line(n));
    }
    field(
        "settings",
        format!("{} s, {}, {}, watermark {}", t.seconds, t.resolution, t.ratio, if t.watermark { "on" } else { "off" }),
    );
    for m in &t.media {
        let secs = m.seconds.map(|s| format!(" ({s} s)")).unwrap_or_default();
        let from = m.local.as_ref().map(|l| format!(" from {}", one_line(&l.path))).unwrap_or_default();
        field("media", format!("{} {}{secs}{from}", m.kind, one_line(&m.url)));
    }
    field("billed", crate::engine::ledger::billed_text(t));
    if let Some(p) = t.parent_id {
        field("derived from", format!("task {p}"));
    }
    if let Some(profile) = &t.profile {
        field("profile", one_line(profile));
    }
    field("service", one_line(&t.base_url));
    if let Some(path) = &t.file_path {
        let bytes = t.file_size.map(|s| size(s as u64)).unwrap_or_default();
        let here = if std::path::Path::new(path).is_file() { "" } else { ", missing: moved or deleted" };
        field("file", format!("{} ({bytes}{here})", one_line(path)));
        if let Some(sha) = &t.sha256 {
            field("sha256", sha.clone());
        }
    }
    if let Some(url) = &t.url {
        let until = t.url_deadline.map(|d| format!(" (valid until about {})", local_time(d))).unwrap_or_default();
        field("url", format!("{}{until}", one_line(url)));
    }
    if let Some(e) = &t.error {
        field("error", one_line(&crate::api::types::message_of(e).unwrap_or_else(|| e.to_string())));
    }
    lines.push("Timeline".into());
    for e in events {
        let detail = e.detail.as_deref().map(|d| format!("  {}", one_line(d))).unwrap_or_default();
        lines.push(format!("  {}  {}{detail}", local_time(e.at), e.state));
    }
    lines.join("\n") + "\n"
}

pub fn run(args: &ShowArgs, settings: &Settings, out: &mut Output<impl Write>) -> Result<(), CliError> {
    let db = db_path(settings);
    let id = query::resolve(&db, &args.id)?;
    let (task, events) = query::show(&db, id)?;
    if args.json {
        out.json(&json!({ "task": task, "events": events }))?;
    } else {
        out.text(&render(&task, &events))?;
    }
    Ok(())
}
