//! `reel history`: search past tasks, the cost and time ledger, export everything.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};
use thiserror::Error;

use super::CliError;
use super::output::{Output, OutputError};
use reel_engine::config::Settings;
use reel_engine::ledger::{Ledger, Line};
use reel_engine::public::{self, PublicTask};
use reel_engine::query::{self, HistoryRow, QueryError};
use reel_engine::reader::Reader;
use reel_engine::session::Reach;
use reel_rules::text::{fit, local_time};
use reel_store::history::HistoryQuery;
use reel_store::{LocalState, StoreError, TaskRecord};

#[derive(Debug, Args)]
pub struct HistoryArgs {
    #[command(subcommand)]
    pub command: HistoryCommand,
}

#[derive(Debug, Subcommand)]
pub enum HistoryCommand {
    /// Find past tasks: words match prompts and negative prompts by prefix; `rating:>=4`,
    /// `tag:WORD` and `picked` match reviews.
    Search(SearchArgs),
    /// The ledger: tasks per day, success rate, render times, billed seconds and cost.
    Stats(StatsArgs),
    /// Every task, every field, as CSV or JSON lines.
    Export(ExportArgs),
}

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// Words to find (all must match, each by prefix), and terms on reviews: `rating:>=4`
    /// (also `rating:5`, `rating:<3`), `tag:keeper`, `picked`; empty lists everything.
    #[arg(default_value = "")]
    pub text: String,
    /// Only tasks of this model id.
    #[arg(long, value_hint = clap::ValueHint::Other)]
    pub model: Option<String>,
    /// Only tasks in this state (downloaded, failed, rejected, …).
    #[arg(long, value_parser = super::state_names())]
    pub status: Option<LocalState>,
    /// YYYY-MM-DD (local), or a number of days back such as 7d.
    #[arg(long, value_parser = parse_since)]
    pub since: Option<i64>,
    /// Show at most this many tasks.
    #[arg(long, default_value_t = 50)]
    pub limit: usize,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    /// Count from YYYY-MM-DD (local), or from a number of days back such as 30d.
    #[arg(long, value_parser = parse_since)]
    pub since: Option<i64>,
    /// Print JSON instead of tables.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Csv,
    Jsonl,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// csv (one row per task; media and error as JSON cells) or jsonl (one JSON object per line).
    #[arg(long, value_enum)]
    pub format: Format,
    /// Write here instead of standard output.
    #[arg(long, value_name = "PATH")]
    pub output: Option<PathBuf>,
}

/// Why a `--since` value names no moment.
#[derive(Debug, Error)]
pub enum SinceError {
    #[error("\"{0}\" is not a date like 2026-11-22 or a span like 7d")]
    NotADate(String),
    /// The day has no local midnight jiff can give (outside its range).
    #[error(transparent)]
    NoMidnight(#[from] jiff::Error),
}

/// `YYYY-MM-DD` at local midnight, or `Nd` for N days before now, as Unix ms.
pub fn parse_since(text: &str) -> Result<i64, SinceError> {
    let text = text.trim();
    if let Some(days) = text.strip_suffix('d').and_then(|d| d.parse::<i64>().ok()) {
        return Ok(reel_engine::now_ms() - days * 86_400_000);
    }
    let date: jiff::civil::Date = text.parse().map_err(|_| SinceError::NotADate(text.to_string()))?;
    let zoned = date.to_zoned(reel_rules::text::local_zone())?;
    Ok(zoned.timestamp().as_millisecond())
}

fn search_table(rows: &[HistoryRow]) -> String {
    let mut out = format!(
        "{:>7}  {:<19}  {:<36}  {:<15}  {:>4}  {:<11}  {:<7}  {}\n",
        "ID", "DATE", "MODEL", "STATE", "SEC", "SIZE", "FILE", "PROMPT"
    );
    for r in rows {
        let t = &r.record;
        let file = match r.file_present {
            Some(true) => "saved",
            Some(false) => "missing",
            None => "-",
        };
        out.push_str(&format!(
            "{:>7}  {:<19}  {:<36}  {:<15}  {:>4}  {:<11}  {:<7}  {}\n",
            t.id,
            local_time(t.created_at),
            fit(&t.model, 36),
            t.state.as_str(),
            t.seconds,
            format!("{} {}", t.resolution, t.ratio),
            file,
            fit(&t.prompt, 60)
        ));
    }
    out
}

fn stat_line(l: &Line, pricing: &reel_engine::config::Pricing) -> String {
    let pct = l.success_rate.map_or("-".into(), |r| format!("{:.0}%", r * 100.0));
    let secs = |v: Option<f64>| v.map_or("-".into(), |s| format!("{s:.0} s"));
    format!(
        "{:<36}  {:>6}  {:>7}  {:>6}  {:>8}  {:>4}  {:>7}  {:>7}  {:>9.0}  {:>9}  {}",
        fit(&l.key, 36),
        l.tasks,
        pct,
        l.failed,
        l.rejected,
        l.lost,
        secs(l.p50),
        secs(l.p90),
        l.billed_seconds,
        l.rating_text(),
        l.cost.show(pricing)
    )
}

pub fn stats_text(ledger: &Ledger, pricing: &reel_engine::config::Pricing) -> String {
    let header = format!(
        "{:<36}  {:>6}  {:>7}  {:>6}  {:>8}  {:>4}  {:>7}  {:>7}  {:>9}  {:>9}  {}",
        "", "TASKS", "SUCCESS", "FAILED", "REJECTED", "LOST", "P50", "P90", "BILLED S", "RATING", "COST"
    );
    let mut out = format!("Per model\n{}\n", header.replacen(&" ".repeat(36), &format!("{:<36}", "MODEL"), 1));
    for l in &ledger.models {
        out.push_str(&stat_line(l, pricing));
        out.push('\n');
    }
    out.push_str(&format!("\nPer day\n{}\n", header.replacen(&" ".repeat(36), &format!("{:<36}", "DAY"), 1)));
    for l in &ledger.days {
        out.push_str(&stat_line(l, pricing));
        out.push('\n');
    }
    out.push('\n');
    out.push_str(&stat_line(&ledger.total, pricing));
    out.push('\n');
    out.push_str(&otherwise_line(ledger.total.rendered_otherwise));
    out
}

/// Said under the ledger when the service rendered some tasks other than asked.
fn otherwise_line(count: u64) -> String {
    match count {
        0 => String::new(),
        1 => "\n1 task was rendered other than asked (another size or length): reel show ID says how\n".into(),
        n => format!("\n{n} tasks were rendered other than asked (another size or length): reel show ID says how\n"),
    }
}

/// The CSV form of a task: every field in `public`'s order, structured ones (media, error) as
/// JSON.
fn csv_record(t: &TaskRecord) -> Result<Vec<String>, serde_json::Error> {
    Ok(public::fields(t)?
        .into_iter()
        .map(|(_, v)| match v {
            serde_json::Value::Null => String::new(),
            serde_json::Value::String(s) => s,
            other => other.to_string(),
        })
        .collect())
}

/// The CSV's header: the names of `public`'s fields, in order.
pub fn csv_header() -> Result<Vec<String>, serde_json::Error> {
    let sample = reel_store::fixtures::record(0, LocalState::Queued);
    Ok(public::fields(&sample)?.into_iter().map(|(name, _)| name).collect())
}

pub async fn export(args: &ExportArgs, reader: &Reader, stdout: &mut Output<impl Write>) -> Result<(), CliError> {
    match &args.output {
        Some(path) => {
            let mut file = Output::create(path)?;
            write_export(args.format, reader, &mut file).await?;
            Ok(file.flush()?)
        }
        None => write_export(args.format, reader, stdout).await,
    }
}

/// Every task, oldest first: streamed from this machine's file, or a page at a time through
/// an engine on another machine.
async fn each_task(
    reader: &Reader,
    mut each: impl FnMut(TaskRecord) -> Result<(), StoreError>,
) -> Result<(), CliError> {
    match reader {
        Reader::Store(db) => Ok(query::export(db, each)?),
        Reader::Engine(_) => reader.export(|t| each(t).map_err(|e| CliError::Query(QueryError::Store(e)))).await,
    }
}

/// Every task, oldest first. A failed write stops the reading, and it is the write's own error
/// (a closed pipe above all) that is returned, not the store's.
async fn write_export(format: Format, reader: &Reader, out: &mut Output<impl Write>) -> Result<(), CliError> {
    let mut failed: Option<OutputError> = None;
    let mut stop = |e: OutputError| {
        failed = Some(e);
        StoreError::Encode("the output failed".into())
    };
    let read = match format {
        Format::Jsonl => each_task(reader, |t| out.json_line(&PublicTask::from(&t)).map_err(&mut stop)).await,
        Format::Csv => {
            let mut csv = out.csv();
            csv.row(csv_header().map_err(OutputError::Json)?)?;
            let read = each_task(reader, |t| {
                let cells = csv_record(&t).map_err(|e| stop(OutputError::Json(e)))?;
                csv.row(cells).map_err(&mut stop)
            })
            .await;
            if read.is_ok() {
                csv.finish()?;
            }
            read
        }
    };
    if let Some(e) = failed {
        return Err(e.into());
    }
    read
}

pub async fn run(
    args: &HistoryArgs,
    settings: &Settings,
    reach: &Reach,
    out: &mut Output<impl Write>,
) -> Result<(), CliError> {
    let reader = super::reading::reader(settings, reach).await?;
    match &args.command {
        HistoryCommand::Search(a) => {
            let problems = reel_store::history::problems(&a.text);
            if !problems.is_empty() {
                return Err(CliError::Usage(format!("{}; nothing was searched", problems.join("; "))));
            }
            let q = HistoryQuery {
                text: a.text.clone(),
                model: a.model.clone(),
                state: a.status,
                since: a.since,
                ..Default::default()
            };
            let rows = reader.history(&q, None, a.limit).await?;
            if a.json {
                out.json(&public::rows(&rows))?;
            } else if rows.is_empty() {
                out.line("No task matches.")?;
            } else {
                out.text(&search_table(&rows))?;
            }
        }
        HistoryCommand::Stats(a) => {
            let ledger = reader.ledger(a.since, &settings.pricing).await?;
            if a.json {
                out.json(&ledger)?;
            } else {
                out.text(&stats_text(&ledger, &settings.pricing))?;
            }
        }
        HistoryCommand::Export(a) => export(a, &reader, out).await?,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use reel_store::history::LedgerRow;

    #[test]
    fn since_is_a_local_day_or_a_number_of_days_back() {
        let midnight =
            jiff::civil::date(2026, 11, 22).to_zoned(reel_rules::text::local_zone()).expect("a local midnight");
        assert_eq!(parse_since(" 2026-11-22 ").ok(), Some(midnight.timestamp().as_millisecond()));
        let before = reel_engine::now_ms();
        let week = parse_since("7d").expect("a span");
        assert!((before - 7 * 86_400_000..=reel_engine::now_ms() - 7 * 86_400_000).contains(&week), "{week}");
        for bad in ["yesterday", "7w", "2026-13-01"] {
            let e = parse_since(bad).expect_err("refused");
            assert_eq!(e.to_string(), format!("\"{bad}\" is not a date like 2026-11-22 or a span like 7d"));
        }
    }

    #[test]
    fn stats_keep_failed_rejected_and_lost_apart() {
        let row = LedgerRow {
            day: "2026-11-23".into(),
            model: "acme/aurora-3.0/text-to-video".into(),
            tasks: 10,
            succeeded: 4,
            failed: 1,
            rejected: 3,
            lost: 2,
            billed_seconds: 20.0,
            unknown_billed: 0,
            rated: 2,
            rating_total: 9,
            rendered_otherwise: 3,
            ..LedgerRow::default()
        };
        let pricing = reel_engine::config::Pricing::default();
        let text = stats_text(&reel_engine::ledger::compute(&[row], &Default::default(), &pricing), &pricing);
        let header = text.lines().nth(1).unwrap_or_default();
        assert!(header.contains("SUCCESS  FAILED  REJECTED  LOST"), "{text}");
        let model = text.lines().nth(2).unwrap_or_default();
        let columns: Vec<&str> = model.split_whitespace().collect();
        assert_eq!(columns[1..6], ["10", "80%", "1", "3", "2"], "{text}");
        assert!(header.contains("BILLED S     RATING  COST"), "{text}");
        assert_eq!(columns[9..11], ["4.5", "(2)"], "the average rating of the rated tasks: {text}");
        assert!(
            text.ends_with(
                "\n3 tasks were rendered other than asked (another size or length): reel show ID says how\n"
            ),
            "{text}"
        );
    }
}
