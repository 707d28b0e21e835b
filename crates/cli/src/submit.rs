//! `reel submit`: validate, journal, send; optionally wait for the files.

use std::io::{Read as _, Write};
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use thiserror::Error;

use super::CliError;
use super::follow::{exit_code, follow, print_tasks, stderr_is_tty};
use super::output::{Output, allow_closed, note};
use super::progress::Board;
use reel_engine::config::{Settings, Target};
use reel_engine::journal::Part;
use reel_engine::media::{measured, preflight, uploads};
use reel_engine::session::{self, Reach};
use reel_engine::{DraftPart, Submission};
use reel_rules::{BadMedia, Draft, Invalid, ModelChoiceError, UnknownModels, choose_model, parse_media, validate};
use reel_store::{LocalState, TaskRecord};

#[derive(Debug, Args)]
pub struct SubmitArgs {
    /// What the video shows (the same as --prompt); `-` reads it from standard input.
    #[arg(value_name = "PROMPT", conflicts_with = "prompt")]
    pub text: Option<String>,
    /// Model id, or a unique suffix of one: aurora-3.0/t2v (see `reel models`); by default the
    /// config's [defaults] model.
    #[arg(long, short = 'm', value_hint = clap::ValueHint::Other)]
    pub model: Option<String>,
    /// What the video shows; reference media by kind and position (image 1, video 1, …); `-`
    /// reads it from standard input. `{a|b}` sends one task per alternative, `{name}` one per
    /// value of a column or --var.
    #[arg(long, short = 'p', value_hint = clap::ValueHint::Other)]
    pub prompt: Option<String>,
    /// What to avoid.
    #[arg(long, value_hint = clap::ValueHint::Other)]
    pub negative: Option<String>,
    /// Output seconds (default 5; -1 for automatic where the model allows it); a list (5,10)
    /// sends one task per value.
    #[arg(long, short = 's', allow_hyphen_values = true, value_hint = clap::ValueHint::Other)]
    pub seconds: Option<String>,
    /// 480P, 720P or 1080P (default 720P).
    #[arg(long, value_hint = clap::ValueHint::Other)]
    pub resolution: Option<String>,
    /// 1:1, 16:9, 9:16, 4:3, 3:4 or adaptive (default 1:1); a list (16:9,9:16) sends one
    /// task per value, crossed with the seconds.
    #[arg(long, value_hint = clap::ValueHint::Other)]
    pub ratio: Option<String>,
    /// Ask the service to add its watermark.
    #[arg(long)]
    pub watermark: bool,
    /// Reference media: reference_image=URL, reference_video=URL@SECONDS, first_frame=PATH, …
    /// A local path (/, ./, ../, ~/ or file://) is uploaded to [storage] first.
    #[arg(long, value_name = "TYPE=URL|PATH[@SECONDS]")]
    pub media: Vec<String>,
    #[command(flatten)]
    pub delivery: Delivery,
    /// Send every row of a file: JSON lines (.jsonl), CSV with a header row (.csv) or one
    /// prompt per line (any other name). The flags give what a row leaves out.
    #[arg(long, value_name = "FILE")]
    pub from: Option<std::path::PathBuf>,
    /// Values of a prompt's `{NAME}`: NAME=a,b or NAME=@FILE (one value a line).
    #[arg(long, value_name = "NAME=VALUES")]
    pub var: Vec<String>,
    /// Send the valid tasks and list the invalid ones, instead of sending nothing.
    #[arg(long)]
    pub skip_invalid: bool,
    /// Send again the tasks of the batch already sent (same content) by an earlier run.
    #[arg(long)]
    pub again: bool,
    /// Run again: send the rows whose tasks ended without a video (failed, rejected, lost,
    /// expired, cancelled) once more, into the batch they went in; saved rows stay as they are.
    #[arg(long, conflicts_with = "again")]
    pub retry_failed: bool,
    /// Print every task the batch expands to, and send nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// How the tasks of `reel submit`, `rerun` and `vary` are sent and followed.
#[derive(Debug, Args)]
pub struct Delivery {
    /// Copies to submit (-n, like the n of image APIs).
    #[arg(long, short = 'n', default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub count: u32,
    /// Wait until the tasks end and their files are saved.
    #[arg(long)]
    pub wait: bool,
    /// Send even past the daily budget of the config's [budget].
    #[arg(long)]
    pub yes: bool,
    /// Print the tasks as JSON.
    #[arg(long)]
    pub json: bool,
    /// Send without checking the media URLs first (reachable, type, duration).
    #[arg(long)]
    pub no_preflight: bool,
}

impl Delivery {
    pub fn sending(&self, parent: Option<i64>) -> Sending {
        Sending {
            count: self.count,
            parent,
            wait: self.wait,
            journaled_only: false,
            yes: self.yes,
            json: self.json,
            no_preflight: self.no_preflight,
            resume: false,
            retry_failed: false,
        }
    }
}

/// How the tasks of a submission are sent and followed: `reel submit`, `rerun` and `vary`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sending {
    pub count: u32,
    /// The task these derive from (a re-run or a variation).
    pub parent: Option<i64>,
    pub wait: bool,
    /// Without `wait`, return once the engine has journaled the tasks (a batch from a file
    /// takes minutes to send at the service's pace; the engine sends it whoever waits).
    pub journaled_only: bool,
    pub yes: bool,
    pub json: bool,
    pub no_preflight: bool,
    /// Leave out what an earlier run with the same content sent (a batch file run again).
    pub resume: bool,
    /// With `resume`: what ended without a video is sent again.
    pub retry_failed: bool,
}

/// Why the prompt could not be had.
#[derive(Debug, Error)]
pub enum PromptError {
    #[error("no prompt: give it as an argument, with --prompt, or `-` to read it from standard input")]
    Missing,
    #[error("the prompt from standard input is empty")]
    EmptyStdin,
    #[error("cannot read the prompt from standard input: {0}")]
    Stdin(#[from] std::io::Error),
    #[error("the prompt from standard input is longer than {} MiB; nothing was sent", MAX_STDIN >> 20)]
    TooLong,
}

/// The most a prompt piped in may be read (memory stays bounded); the rules' own length bound
/// refuses far less.
const MAX_STDIN: u64 = 64 << 20;

/// The prompt as given, or read from `stdin` when it is `-` (its last line end dropped).
pub fn read_prompt(given: Option<&str>, stdin: impl std::io::Read) -> Result<String, PromptError> {
    match given {
        None => Err(PromptError::Missing),
        Some("-") => {
            let mut text = String::new();
            stdin.take(MAX_STDIN + 1).read_to_string(&mut text)?;
            if text.len() as u64 > MAX_STDIN {
                return Err(PromptError::TooLong);
            }
            let text = text.strip_suffix('\n').map(|t| t.strip_suffix('\r').unwrap_or(t)).unwrap_or(&text);
            if text.trim().is_empty() { Err(PromptError::EmptyStdin) } else { Ok(text.to_string()) }
        }
        Some(text) => Ok(text.to_string()),
    }
}

/// The catalog id a `--model` names, or the config's default model when none is given.
pub fn model_of(given: Option<&str>, settings: &Settings) -> Result<String, ModelChoiceError> {
    let text = given.or(settings.default_model.as_deref()).ok_or(ModelChoiceError::Missing)?;
    let known: Vec<&str> = settings.catalog.entries().iter().map(|e| e.id.as_str()).collect();
    choose_model(text, &known)
}

impl SubmitArgs {
    /// The draft of the given model and prompt (already resolved) and of the flags.
    pub fn draft(&self, model: String, prompt: String) -> Result<Draft, BadMedia> {
        Ok(Draft {
            model,
            prompt,
            negative_prompt: self.negative.clone().unwrap_or_default(),
            seconds: self.seconds.clone(),
            resolution: self.resolution.as_deref().map(|r| r.trim().to_ascii_uppercase()),
            ratio: self.ratio.as_deref().map(|r| r.trim().to_ascii_lowercase()),
            watermark: Some(self.watermark),
            media: self.media.iter().map(|m| parse_media(m)).collect::<Result<_, _>>()?,
        })
    }

    /// Whether this submission goes through the batch path: a file, a template, a list of
    /// ratios or seconds, or a dry run.
    /// A prompt given as `-` read from standard input, once, before anything else looks at
    /// it: a template or list piped in expands as one typed would.
    pub fn take_stdin(&mut self, stdin: impl std::io::Read) -> Result<(), PromptError> {
        let given = if self.text.is_some() { &mut self.text } else { &mut self.prompt };
        if given.as_deref() == Some("-") {
            *given = Some(read_prompt(Some("-"), stdin)?);
        }
        Ok(())
    }

    pub fn is_batch(&self) -> bool {
        let listed = |v: &Option<String>| v.as_deref().is_some_and(|v| v.contains(','));
        let templated = self.prompt.as_deref().or(self.text.as_deref()).is_some_and(|p| p.contains(['{', '}']));
        self.from.is_some()
            || !self.var.is_empty()
            || self.dry_run
            || listed(&self.ratio)
            || listed(&self.seconds)
            || templated
    }

    pub(super) fn sending(&self) -> Sending {
        // Only a batch (a file, a template, lists) resumes: a plain submit is another take.
        Sending {
            journaled_only: self.from.is_some(),
            resume: self.is_batch() && !self.again,
            retry_failed: self.is_batch() && self.retry_failed,
            ..self.delivery.sending(None)
        }
    }
}

pub async fn run(
    args: &SubmitArgs,
    settings: &Settings,
    reach: &Reach,
    out: &mut Output<impl Write>,
) -> Result<ExitCode, CliError> {
    let prompt = match read_prompt(args.text.as_deref().or(args.prompt.as_deref()), std::io::stdin()) {
        Ok(p) => p,
        Err(e) => return Ok(usage(&e.to_string())),
    };
    let model = match model_of(args.model.as_deref(), settings) {
        Ok(m) => m,
        Err(ModelChoiceError::Missing) => return Ok(usage(&ModelChoiceError::Missing.to_string())),
        Err(e) if args.model.is_none() => return Ok(usage(&format!("[defaults] model in the config file: {e}"))),
        Err(e) => return Ok(usage(&e.to_string())),
    };
    match args.draft(model, prompt) {
        Ok(draft) => send(draft, args.sending(), settings, reach, out).await,
        Err(bad) => Ok(usage(&bad.to_string())),
    }
}

/// A mistake in the arguments: said on stderr, exit code 2.
pub fn usage(message: &str) -> ExitCode {
    note(message);
    ExitCode::from(2)
}

/// Validates the draft (uploading local media and checking media URLs first), journals its
/// tasks, and follows them until sent, or until saved with `wait`.
pub async fn send(
    draft: Draft,
    how: Sending,
    settings: &Settings,
    reach: &Reach,
    out: &mut Output<impl Write>,
) -> Result<ExitCode, CliError> {
    let skip = how.no_preflight || draft.media.is_empty();
    match validate(&draft, &settings.catalog, UnknownModels::Warn) {
        Ok(_) => {}
        // Over a duration total as stated: measured durations decide.
        Err(invalid) if !skip && measured::only_totals(&invalid) => {}
        Err(invalid) => return Ok(refused(&invalid)),
    }
    let Some(draft) = uploaded(draft, settings).await else { return Ok(ExitCode::from(2)) };
    let draft = if skip {
        draft
    } else {
        let Some(draft) = checked_media(&draft).await else { return Ok(ExitCode::from(2)) };
        draft
    };
    let valid = match validate(&draft, &settings.catalog, UnknownModels::Warn) {
        Ok(v) if !v.awaits_uploads() => v,
        Ok(_) => {
            note("a local media file was not uploaded; nothing was sent");
            return Ok(ExitCode::from(2));
        }
        Err(invalid) => return Ok(refused(&invalid)),
    };
    for w in &valid.warnings {
        note(&format!("warning: {w}"));
    }
    deliver(vec![Part { submission: valid, count: how.count, parent: how.parent }], how, settings, reach, out).await
}

/// Hands the parts to the engine as one submission (one batch when there are several tasks),
/// follows them as `how` asks, prints them and chooses the exit code.
pub(super) async fn deliver(
    parts: Vec<Part>,
    how: Sending,
    settings: &Settings,
    reach: &Reach,
    out: &mut Output<impl Write>,
) -> Result<ExitCode, CliError> {
    // An engine on another machine serves what that machine is configured for.
    if settings.target == Target::Demo && reach.far().is_none() {
        if *reach == Reach::InProcess && !how.wait {
            note(
                "demo mode with --no-service: the embedded simulator, and its tasks, end with this command; \
                 add --wait (or drop --no-service, so that the engine process keeps them)",
            );
            return Ok(ExitCode::from(2));
        }
        let tail = if *reach == Reach::InProcess { "" } else { " in the engine process" };
        note(&format!("demo mode: no API key is configured, so this runs against the embedded simulator{tail}"));
    }
    let attached = session::attach(settings, reach).await?;
    if let Some(said) = attached.config_note() {
        note(&said);
    }
    let (engine, mut events) = (attached.engine, attached.events);
    // The engine admits or refuses it against its limits (the daily budget: `--yes` says yes).
    let submission = Submission {
        parts: parts.iter().map(DraftPart::from).collect(),
        over_budget: how.yes,
        resume: how.resume,
        retry_failed: how.retry_failed,
        ..Submission::default()
    };
    let submitted = engine.send(submission).await?;
    if submitted.left_out > 0 {
        note(&format!(
            "{} sent by an earlier run {} left out (--again sends them; --retry-failed sends again those that \
             ended without a video)",
            reel_rules::text::count(submitted.left_out as usize, "task"),
            if submitted.left_out == 1 { "is" } else { "are" }
        ));
    }
    if submitted.tasks.is_empty() {
        note("every task was already sent; nothing to send");
        engine.shutdown().await;
        return Ok(ExitCode::SUCCESS);
    }
    let relink = super::follow::Relink::over_ssh(settings, reach);
    follow_sent(engine, &mut events, Board::new(stderr_is_tty(), submitted.tasks), how, relink, out).await
}

/// Follows tasks just handed to the engine until they are sent (or saved, with `wait`), prints
/// them and chooses the exit code.
pub async fn follow_sent(
    mut engine: reel_engine::Engine,
    events: &mut tokio::sync::mpsc::UnboundedReceiver<reel_engine::Event>,
    mut board: Board,
    how: Sending,
    relink: Option<super::follow::Relink<'_>>,
    out: &mut Output<impl Write>,
) -> Result<ExitCode, CliError> {
    // Only an engine process goes on sending after this command ends; one in this process
    // (`--no-service`) stops with it, so the tasks are followed until sent.
    if how.journaled_only && !how.wait && engine.outlives_this_process() {
        engine.shutdown().await;
        let records = board.records();
        allow_closed(print_tasks(&records, how.json, out))?;
        if let Some(batch) = records.first().and_then(|r| r.batch_id) {
            note(&format!(
                "journaled {} as batch {batch}; the engine sends them at the service's pace, whether or not \
                 anything waits (`reel wait --batch {batch}` follows them, `reel list --batch {batch}` lists them)",
                reel_rules::text::count(records.len(), "task")
            ));
        }
        return Ok(ExitCode::SUCCESS);
    }
    let ended = if how.wait {
        follow(&mut engine, events, &mut board, Board::done, relink).await
    } else {
        // Sent, or not sendable now: an outage or a model's refused key keeps them waiting in the
        // engine, not here.
        follow(&mut engine, events, &mut board, |b| b.unreachable() || b.sent_or_held(), relink).await
    };
    engine.shutdown().await;
    let records = board.records();
    allow_closed(print_tasks(&records, how.json, out))?;
    if let Some(code) = ended.code() {
        return Ok(code);
    }
    if how.wait {
        for line in super::follow::why_not_done(&records, None) {
            note(&line);
        }
        return Ok(exit_code(&records, LocalState::is_success, board.saw_unreachable));
    }
    for line in held_lines(&records) {
        note(&line);
    }
    Ok(sent_code(&records))
}

/// The exit code of a send not waited on: 1 when a task was refused or its answer lost, else 3
/// when a task is journaled but held by the engine (an unreachable service, a refused key), so
/// that a script never takes a task the engine will send for one that was never made.
pub fn sent_code(records: &[TaskRecord]) -> ExitCode {
    if records.iter().any(|r| matches!(r.state, LocalState::Rejected | LocalState::SubmitUnknown)) {
        ExitCode::from(1)
    } else if records.iter().any(|r| r.state.is_sending()) {
        ExitCode::from(HELD)
    } else {
        ExitCode::SUCCESS
    }
}

/// The exit code of a send whose tasks are journaled but not sent yet: the engine sends them.
pub const HELD: u8 = 3;

/// One line per task held, with its id and what becomes of it.
fn held_lines(records: &[TaskRecord]) -> Vec<String> {
    records
        .iter()
        .filter(|r| r.state.is_sending())
        .map(|r| {
            format!(
                "task {} is held, not sent yet: the engine sends it by itself when it can (`reel wait {}` \
                 follows it; `reel rm {}` drops it)",
                r.id, r.id, r.id
            )
        })
        .collect()
}

pub(super) fn refused(invalid: &Invalid) -> ExitCode {
    for v in &invalid.violations {
        note(&format!("{}: {v}", v.field()));
    }
    note("nothing was sent");
    ExitCode::from(2)
}

/// The draft with every local file uploaded (or re-signed) and its URL in place, or `None`
/// when any could not be (each one named, nothing sent).
pub async fn uploaded(draft: Draft, settings: &Settings) -> Option<Draft> {
    let cwd = std::env::current_dir().unwrap_or_default();
    let frame = uploads::Frame {
        home: settings.home.as_deref(),
        cwd: &cwd,
        now: jiff::Timestamp::now().as_second(),
        client_timeout: Duration::try_from_secs_f64(settings.engine.client_timeout_secs).unwrap_or(Duration::MAX),
    };
    let mut bars = super::progress::UploadBars::new(stderr_is_tty());
    let shown = |index, path: &std::path::Path, p| bars.show(index, path, p);
    let storage = settings.storage.as_ref();
    let result = uploads::upload_all(draft, &frame, storage, reel_engine::config::storage_credentials, shown).await;
    bars.end();
    match result {
        Ok(d) => Some(d),
        Err(failures) => {
            failures.iter().for_each(|f| note(f));
            note("nothing was sent");
            None
        }
    }
}

/// The preflight: every media URL checked, each one's verdict shown; the draft with measured
/// durations, or `None` when any item failed (every failure listed, nothing sent).
pub(super) async fn checked_media(draft: &Draft) -> Option<Draft> {
    match preflight::check_draft(draft).await {
        Ok((draft, checked)) => {
            checked.iter().for_each(|c| note(&c.to_string()));
            Some(draft)
        }
        Err(failures) => {
            failures.iter().for_each(|f| note(f));
            note("nothing was sent (--no-preflight sends without these checks)");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_send_not_waited_on_exits_by_what_became_of_its_tasks() {
        use LocalState::*;
        use reel_store::fixtures::record;
        let code = |states: &[LocalState]| {
            let records: Vec<_> = states.iter().enumerate().map(|(i, s)| record(i as i64 + 1, *s)).collect();
            sent_code(&records)
        };
        assert_eq!(code(&[Queued, InProgress]), ExitCode::SUCCESS);
        assert_eq!(code(&[Queued, Waiting]), ExitCode::from(HELD), "held is not 'nothing was sent' (2)");
        assert_eq!(code(&[Waiting, Rejected]), ExitCode::from(1));
        assert_eq!(code(&[SubmitUnknown]), ExitCode::from(1));
        let held = held_lines(&[record(4, Waiting), record(5, Queued)]);
        assert_eq!(held.len(), 1);
        assert!(held[0].starts_with("task 4 is held, not sent yet"), "{held:?}");
    }

    #[test]
    fn prompts_as_given_or_from_standard_input() {
        let read = |given: Option<&str>, stdin: &str| read_prompt(given, stdin.as_bytes()).map_err(|e| e.to_string());
        let cases: &[(Option<&str>, &str, Result<&str, &str>)] = &[
            (Some("a fox"), "ignored", Ok("a fox")),
            (Some("-"), "a fox\n", Ok("a fox")),
            (Some("-"), "a fox\r\n", Ok("a fox")),
            (Some("-"), "line one\nline two\n\n", Ok("line one\nline two\n")),
            (Some("-"), "no newline", Ok("no newline")),
            (Some("-"), " \n", Err("the prompt from standard input is empty")),
            (Some("-"), "", Err("the prompt from standard input is empty")),
            (Some(" - "), "", Ok(" - ")),
            (None, "a fox", Err("no prompt: give it as an argument")),
        ];
        for (given, stdin, want) in cases {
            match (read(*given, stdin), want) {
                (Ok(got), Ok(w)) => assert_eq!(got, *w, "{given:?} {stdin:?}"),
                (Err(got), Err(w)) => assert!(got.starts_with(w), "{got}"),
                (got, want) => panic!("{given:?} {stdin:?}: {got:?} vs {want:?}"),
            }
        }
    }

    #[test]
    fn the_default_model_and_suffixes() {
        use clap::Parser;
        let file = reel_engine::config::ConfigFile::default();
        let mut settings =
            reel_engine::config::resolve(&file, &reel_engine::config::Env::default(), None, Some("/data".into()))
                .expect("resolves");
        let err = model_of(None, &settings).expect_err("no model").to_string();
        assert!(err.contains("[defaults] model"), "{err}");
        settings.default_model = Some("swift-1.5/t2v".into());
        assert_eq!(model_of(None, &settings).ok().as_deref(), Some("acme/swift-1.5/text-to-video"));
        assert_eq!(model_of(Some("aurora-3.0/i2v"), &settings).ok().as_deref(), Some("acme/aurora-3.0/image-to-video"));
        let err = model_of(Some("t2v"), &settings).expect_err("three match").to_string();
        assert!(err.contains("acme/aurora-2.7/text-to-video"), "{err}");
        // The short flags and the positional prompt parse without clashing.
        let cli = super::super::Cli::try_parse_from(["reel", "submit", "-m", "t2v", "-s", "-1", "-n", "3", "a fox"])
            .expect("parses");
        let Some(super::super::Command::Submit(args)) = cli.command else { panic!("submit") };
        assert_eq!((args.model.as_deref(), args.seconds.as_deref(), args.delivery.count), (Some("t2v"), Some("-1"), 3));
        assert_eq!(args.text.as_deref(), Some("a fox"));
        assert!(super::super::Cli::try_parse_from(["reel", "submit", "a", "--prompt", "b"]).is_err());
    }
}
