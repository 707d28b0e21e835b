//! `reel submit --from FILE` and templates: read the rows, expand and validate every task,
//! leave out those an earlier run sent, say the count and cost, ask past the threshold, and
//! send the rest as one submission (one batch).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

use serde::Serialize;

use super::CliError;
use super::output::{Output, allow_closed, note};
use super::submit::{SubmitArgs, checked_media, deliver, model_of, uploaded};
use reel_engine::config::Settings;
use reel_engine::journal::Part;
use reel_engine::session::Reach;
use reel_rules::batch::RowError;
use reel_rules::batch::expand::{Checked, Defaults};
use reel_rules::batch::key::Content;
use reel_rules::batch::plan::{self, Plan};
use reel_rules::batch::read::{self, Row};
use reel_rules::batch::stream::{self, ReadBounds};
use reel_rules::batch::template::{self, VarSource};
use reel_rules::parse_media;
use reel_rules::{Draft, MediaDraft, UnknownModels, ValidSubmission, validate};

/// One task of the expansion, as `--dry-run` prints it.
#[derive(Debug, Serialize)]
struct Planned<'a> {
    at: &'a str,
    #[serde(flatten)]
    content: Content<'a>,
    copies: u32,
    billed_seconds: Option<f64>,
    key: &'a str,
    /// An earlier run sent a task with this content; it is left out unless `--again`.
    already_sent: bool,
    /// An earlier run's tasks of it all ended without a video: `--retry-failed` sends it again.
    retried: bool,
}

/// The flags, as the defaults of every row. The model flag (or the config's default model) is
/// resolved as `reel submit` resolves it (a unique suffix); one it cannot resolve is given to
/// the rules as written, which name the problem on every row that uses it.
fn defaults(args: &SubmitArgs, settings: &Settings) -> Defaults {
    let model = model_of(args.model.as_deref(), settings)
        .ok()
        .or_else(|| args.model.clone())
        .or_else(|| settings.default_model.clone());
    let given = [
        ("model", model.filter(|m| !m.trim().is_empty())),
        ("prompt", args.prompt.clone().or(args.text.clone()).filter(|p| !p.is_empty())),
        ("negative", args.negative.clone()),
        ("seconds", args.seconds.clone()),
        ("resolution", args.resolution.clone()),
        ("ratio", args.ratio.clone()),
        ("watermark", args.watermark.then(|| "true".to_string())),
        ("copies", Some(args.delivery.count.to_string())),
    ];
    Defaults {
        fields: given.into_iter().filter_map(|(k, v)| v.map(|v| (k.to_string(), v))).collect(),
        media: args.media.clone(),
    }
}

/// `--var` values, files read; each problem said.
fn vars(args: &SubmitArgs, bounds: ReadBounds) -> Result<BTreeMap<String, Vec<String>>, Vec<String>> {
    let mut out = BTreeMap::new();
    let mut problems = Vec::new();
    for text in &args.var {
        match template::parse_var(text) {
            Ok((name, VarSource::Values(values))) => {
                out.insert(name, values);
            }
            Ok((name, VarSource::File(path))) => match stream::file(Path::new(&path), &path, bounds) {
                Ok(text) => {
                    out.insert(name, template::file_values(&text));
                }
                Err(e) => problems.push(format!("--var {name}=@{path}: {e}")),
            },
            Err(problem) => problems.push(problem),
        }
    }
    if problems.is_empty() { Ok(out) } else { Err(problems) }
}

/// The rows: the file's (read within `bounds`), or the flags alone as one row.
fn rows(args: &SubmitArgs, bounds: ReadBounds) -> Result<Vec<Row>, Vec<String>> {
    let Some(path) = &args.from else { return Ok(vec![Row { at: "command line".into(), ..Row::default() }]) };
    let name = path.display().to_string();
    let text = stream::file(path, &name, bounds).map_err(|e| vec![e.to_string()])?;
    read::rows(&name, &text).map_err(|errors| errors.iter().map(ToString::to_string).collect())
}

/// Every task of every row, validated; the problems of the rest; and how many rows there were.
/// A run past `[batch] max_tasks` is refused whole, `--skip-invalid` or not.
fn expansion(args: &SubmitArgs, settings: &Settings) -> Result<(usize, Vec<Checked>, Vec<RowError>), Vec<String>> {
    let bounds = ReadBounds::from(&settings.batch);
    let vars = vars(args, bounds)?;
    let rows = rows(args, bounds)?;
    let media = |text: &str| parse_media(text).map_err(|e| e.to_string());
    let defaults = defaults(args, settings);
    let max = settings.batch.max_tasks;
    let (good, problems) =
        plan::expand_rows(&rows, &defaults, &vars, &settings.catalog, media, max).map_err(|e| vec![e.to_string()])?;
    Ok((rows.len(), good, problems))
}

pub async fn run(
    args: &SubmitArgs,
    settings: &Settings,
    reach: &Reach,
    out: &mut Output<impl Write>,
) -> Result<ExitCode, CliError> {
    // A suffix that names several models is the flag's mistake, said once, not on every row.
    if let Some(given) = args.model.as_deref()
        && let Err(e @ reel_rules::model_choice::ModelChoiceError::Ambiguous { .. }) = model_of(Some(given), settings)
    {
        note(&e.to_string());
        note("nothing was sent");
        return Ok(ExitCode::from(2));
    }
    let (rows, mut good, problems) = match expansion(args, settings) {
        Ok(found) => found,
        Err(problems) => {
            problems.iter().for_each(|p| note(p));
            note("nothing was sent");
            return Ok(ExitCode::from(2));
        }
    };
    if !problems.is_empty() {
        if !args.skip_invalid {
            problems.iter().for_each(|p| note(&p.to_string()));
            note("nothing was sent (--skip-invalid sends the valid tasks and leaves these out)");
            return Ok(ExitCode::from(2));
        }
        problems.iter().for_each(|p| note(&format!("skipped {p}")));
    }
    if good.is_empty() {
        note("no valid task to send; nothing was sent");
        return Ok(ExitCode::from(2));
    }
    let warnings: HashSet<String> =
        good.iter().flat_map(|c| c.submission.warnings.iter().map(ToString::to_string)).collect();
    warnings.iter().for_each(|w| note(&format!("warning: {w}")));
    // A dry run sends nothing, and uploading is sending a file: local files are shown as named.
    if !args.dry_run && !prepared_media(&mut good, args.delivery.no_preflight, settings).await {
        return Ok(ExitCode::from(2));
    }
    // Keyed once the media are ready: an uploaded file counts by its absolute path.
    let name = args.from.as_ref().map_or_else(|| "command line".to_string(), |p| p.display().to_string());
    let mut batch = Plan::new(&name, rows, good, problems);
    // Rows of an earlier run that ended without a video: sent again with --retry-failed.
    let mut retried = HashSet::new();
    if !args.again {
        let reader = super::reading::reader(settings, reach).await?;
        batch.sent = reader.already_sent(&batch.keys, args.retry_failed).await?;
        if args.retry_failed {
            let any = reader.already_sent(&batch.keys, false).await?;
            retried = any.difference(&batch.sent).cloned().collect();
        }
    }
    if args.dry_run {
        return dry_run(&batch, &retried, settings, args.delivery.json, out);
    }
    let plan = batch.to_send();
    if plan.is_empty() {
        let hint =
            if args.retry_failed { "" } else { " (--retry-failed sends again those that ended without a video)" };
        note(&format!("every task was already sent; nothing to send{hint}"));
        return Ok(ExitCode::SUCCESS);
    }
    note(&summary(&plan, settings));
    if plan.len() > settings.batch.confirm_over as usize && !args.delivery.yes {
        let question = format!("reel: send {} tasks?", plan.len());
        if !std::io::stdin().is_terminal() {
            note(&format!(
                "{} tasks is more than the [batch] confirm_over of {}; add --yes to send them",
                plan.len(),
                settings.batch.confirm_over
            ));
            return Ok(ExitCode::from(2));
        }
        if !super::engine::confirmed(&question) {
            note("nothing was sent");
            return Ok(ExitCode::from(2));
        }
    }
    // Every row goes to the engine, which leaves out (unless --again) what an earlier run sent,
    // as it journals: two runs of one file at once send each row once.
    let parts =
        batch.tasks.iter().map(|c| Part { submission: c.submission.clone(), count: c.copies, parent: None }).collect();
    deliver(parts, args.sending(), settings, reach, out).await
}

/// Every task's local files uploaded and its media checked (unless `--no-preflight`), each
/// distinct media list once; `false` when any could not be (each problem said, nothing sent).
async fn prepared_media(good: &mut [Checked], no_preflight: bool, settings: &Settings) -> bool {
    let mut done: HashMap<String, Vec<MediaDraft>> = HashMap::new();
    for c in good.iter_mut().filter(|c| !c.submission.media.is_empty()) {
        let draft = Draft::from(&c.submission);
        let id = serde_json::to_string(&draft.media).unwrap_or_default();
        let media = match done.get(&id) {
            Some(media) => media.clone(),
            None => {
                let Some(mut ready) = uploaded(draft.clone(), settings).await else { return false };
                if !no_preflight {
                    let Some(checked) = checked_media(&ready).await else { return false };
                    ready = checked;
                }
                done.insert(id, ready.media.clone());
                ready.media
            }
        };
        match validate(&Draft { media, ..draft }, &settings.catalog, UnknownModels::Warn) {
            Ok(v) if !v.awaits_uploads() => c.submission = v,
            Ok(_) => {
                note(&format!("{}: a local media file was not uploaded; nothing was sent", c.at));
                return false;
            }
            Err(invalid) => {
                invalid.violations.iter().for_each(|v| note(&format!("{}: {}: {v}", c.at, v.field())));
                note("nothing was sent");
                return false;
            }
        }
    }
    true
}

/// `N tasks, billed …, cost …`.
fn summary(plan: &[ValidSubmission], settings: &Settings) -> String {
    let (billed, cost) = reel_rules::pricing::billed_and_cost(plan, 1, &settings.pricing);
    let tasks = if plan.len() == 1 { "task" } else { "tasks" };
    format!("{} {tasks}, billed {billed}, cost {cost}", plan.len())
}

fn dry_run(
    batch: &Plan,
    retried: &HashSet<String>,
    settings: &Settings,
    json: bool,
    out: &mut Output<impl Write>,
) -> Result<ExitCode, CliError> {
    let planned: Vec<Planned> = batch
        .tasks
        .iter()
        .zip(&batch.keys)
        .map(|(c, key)| Planned {
            at: &c.at,
            content: Content::of(&c.submission),
            copies: c.copies,
            billed_seconds: c.submission.billing.total(),
            key,
            already_sent: batch.sent.contains(key),
            retried: retried.contains(key),
        })
        .collect();
    let to_send = batch.to_send();
    if json {
        allow_closed(out.json(&planned))?;
    } else {
        for p in &planned {
            let copies = if p.copies > 1 { format!(" ×{}", p.copies) } else { String::new() };
            let mark = match (p.already_sent, p.retried) {
                (true, _) => " (already sent)",
                (false, true) => " (ended without a video before: sent again)",
                _ => "",
            };
            let line = format!(
                "{}  {}  {} s  {}  {}{copies}{mark}  {}",
                p.at,
                p.content.model,
                p.content.seconds,
                p.content.resolution,
                p.content.ratio,
                reel_rules::text::one_line(p.content.prompt)
            );
            allow_closed(out.line(&line))?;
        }
    }
    note(&format!("dry run: {}; nothing was sent", summary(&to_send, settings)));
    Ok(ExitCode::SUCCESS)
}
