//! `reel history`: search past tasks, the cost and time ledger, export everything.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

use crate::config::Settings;
use crate::engine::ledger::{Ledger, Line};
use crate::engine::query::{self, HistoryRow};
use crate::session::db_path;
use crate::store::history::HistoryQuery;
use crate::store::{LocalState, TaskRecord};
use crate::text::{excerpt, local_time};

#[derive(Debug, Args)]
pub struct HistoryArgs {
    #[command(subcommand)]
    pub command: HistoryCommand,
}

#[derive(Debug, Subcommand)]
pub enum HistoryCommand {
    /// Find past tasks: words match prompts and negative prompts by prefix.
    Search(SearchArgs),
    /// The ledger: tasks per day, success rate, render times, billed seconds and cost.
    Stats(StatsArgs),
    /// Every task, every field, as CSV or JSON lines.
    Export(ExportArgs),
}

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// Words to find (all must match); empty lists everything.
    #[arg(default_value = "")]
    pub text: String,
    #[arg(long)]
    pub model: Option<String>,
    #[arg(long)]
    pub status: Option<LocalState>,
    /// YYYY-MM-DD (local), or a number of days back such as 7d.
    #[arg(long, value_parser = parse_since)]
    pub since: Option<i64>,
    #[arg(long, default_value_t = 50)]
    pub limit: usize,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    #[arg(long, value_parser = parse_since)]
    pub since: Option<i64>,
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
    #[arg(long, value_enum)]
    pub format: Format,
    /// Write here instead of standard output.
    #[arg(long)]
    pub output: Option<PathBuf>,
}

/// `YYYY-MM-DD` at local midnight, or `Nd` for N days before now, as Unix ms.
pub fn parse_since(text: &str) -> Result<i64, String> {
    let text = text.trim();
    if let Some(days) = text.strip_suffix('d').and_then(|d| d.parse::<i64>().ok()) {
        return Ok(crate::engine::now_ms() - days * 86_400_000);
    }
    let date: jiff::civil::Date =
        text.parse().map_err(|_| format!("\"{text}\" is not a date like 2026-11-22 or a span like 7d"))?;
    let zoned = date.to_zoned(jiff::tz::TimeZone::system()).map_err(|e| e.to_string())?;
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
            excerpt(&t.model, 36),
            t.state.as_str(),
            t.seconds,
            format!("{} {}", t.resolution, t.ratio),
            file,
            excerpt(&t.prompt, 60)
        ));
    }
    out
}

fn stat_line(l: &Line, pricing: &crate::config::Pricing) -> String {
    let pct = l.success_rate.map_or("-".into(), |r| format!("{:.0}%", r * 100.0));
    let secs = |v: Option<f64>| v.map_or("-".into(), |s| format!("{s:.0} s"));
    format!(
        "{:<36}  {:>6}  {:>7}  {:>7}  {:>7}  {:>9.0}  {}",
        excerpt(&l.key, 36),
        l.tasks,
        pct,
        secs(l.p50),
        secs(l.p90),
        l.billed_seconds,
        l.cost.show(pricing)
    )
}

pub fn stats_text(ledger: &Ledger, pricing: &crate::config::Pricing) -> String {
    let header = format!(
        "{:<36}  {:>6}  {:>7}  {:>7}  {:>7}  {:>9}  {}",
        "", "TASKS", "SUCCESS", "P50", "P90", "BILLED S", "COST"
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
    out
}

/// The CSV form of a task: every field, structured ones (media, error) as JSON.
fn csv_record(t: &TaskRecord) -> Result<Vec<String>, serde_json::Error> {
    let value = serde_json::to_value(t)?;
    let obj = value.as_object().cloned().unwrap_or_default();
    Ok(obj
        .values()
        .map(|v| match v {
            serde_json::Value::Null => String::new(),
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect())
}

pub fn csv_header() -> Vec<String> {
    let sample = crate::store::fixtures::record(0, LocalState::Queued);
    serde_json::to_value(&sample)
        .ok()
        .and_then(|v| v.as_object().map(|o| o.keys().cloned().collect()))
        .unwrap_or_default()
}

pub fn export(args: &ExportArgs, settings: &Settings, stdout: &mut impl Write) -> anyhow::Result<()> {
    let mut out: Box<dyn Write> = match &args.output {
        Some(path) => Box::new(std::io::BufWriter::new(std::fs::File::create(path)?)),
        None => Box::new(stdout),
    };
    let db = db_path(settings);
    match args.format {
        Format::Jsonl => query::export(&db, |t| {
            serde_json::to_writer(&mut out, &t).map_err(|e| crate::store::StoreError::Encode(e.to_string()))?;
            writeln!(out).map_err(|e| crate::store::StoreError::Encode(e.to_string()))
        })?,
        Format::Csv => {
            let mut w = csv::Writer::from_writer(&mut out);
            w.write_record(csv_header())?;
            query::export(&db, |t| {
                let fields = csv_record(&t).map_err(|e| crate::store::StoreError::Encode(e.to_string()))?;
                w.write_record(fields).map_err(|e| crate::store::StoreError::Encode(e.to_string()))
            })?;
            w.flush()?;
        }
    }
    out.flush()?;
    Ok(())
}

pub fn run(args: &HistoryArgs, settings: &Settings, out: &mut impl Write) -> anyhow::Result<()> {
    let db = db_path(settings);
    match &args.command {
        HistoryCommand::Search(a) => {
            let q = HistoryQuery {
                text: a.text.clone(),
                model: a.model.clone(),
                state: a.status,
                since: a.since,
                ..Default::default()
            };
            let rows = query::history(&db, &q, None, a.limit)?;
            if a.json {
                serde_json::to_writer_pretty(&mut *out, &rows)?;
                writeln!(out)?;
            } else if rows.is_empty() {
                writeln!(out, "No task matches.")?;
            } else {
                write!(out, "{}", search_table(&rows))?;
            }
        }
        HistoryCommand::Stats(a) => {
            let ledger = query::ledger(&db, a.since, &settings.pricing)?;
            if a.json {
                serde_json::to_writer_pretty(&mut *out, &ledger)?;
                writeln!(out)?;
            } else {
                write!(out, "{}", stats_text(&ledger, &settings.pricing))?;
            }
        }
        HistoryCommand::Export(a) => export(a, settings, out)?,
    }
    Ok(())
}
