//! `reel sim`: runs the simulator in the foreground and prints what it serves.

use std::io::Write;
use std::time::Duration;

use clap::Args;
use thiserror::Error;

use super::CliError;
use super::output::Output;
use reel_rules::Catalog;
use reel_sim::hostile::Named;
use reel_sim::{
    Answers, DEFAULT_API_KEY, Faults, Gateway, Hostile, HostileId, HostileProgress, HostileStatus, HostileUrl,
    LifecycleConfig, OpenAi, Origin, SimConfig, SimHandle, Storm, Trigger, UrlPlacement,
};

/// A `reel sim` value, or a combination of them, that the simulator does not take.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SimArgError {
    #[error("\"{0}\" is not a probability from 0 to 1")]
    Probability(String),
    #[error("\"{0}\" is not a number of seconds")]
    Seconds(String),
    #[error("\"{0}\" is not 307 or 308")]
    RedirectStatus(String),
    #[error("--render-min-secs is above --render-max-secs")]
    RenderRange,
}

fn probability(text: &str) -> Result<f64, SimArgError> {
    match text.parse::<f64>() {
        Ok(p) if (0.0..=1.0).contains(&p) => Ok(p),
        _ => Err(SimArgError::Probability(text.to_string())),
    }
}

fn takes_form(text: &str) -> Result<reel_api::BodyForm, reel_sim::hostile::BadValue> {
    reel_sim::hostile::by_name(&reel_api::BodyForm::NAMES, text)
}

fn seconds(text: &str) -> Result<Duration, SimArgError> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s >= 0.0 => Ok(Duration::from_secs_f64(s)),
        _ => Err(SimArgError::Seconds(text.to_string())),
    }
}

const DOWNLOADS: &str = "Hostile downloads (WHEN: never, always, first:N, every:N, 0..1)";
const ANSWERS: &str = "Hostile API answers (WHEN: never, always, first:N, every:N, 0..1)";
const TASKS: &str = "Hostile task content (WHEN: never, always, first:N, every:N, 0..1)";
const MEDIA: &str = "Media (/media/NAME.mp4?seconds=N, NAME.png, NAME.wav?seconds=N)";

fn redirect_status(text: &str) -> Result<u16, SimArgError> {
    match text {
        "307" => Ok(307),
        "308" => Ok(308),
        _ => Err(SimArgError::RedirectStatus(text.to_string())),
    }
}

/// WHEN values: never, always, first:N (the first N times), every:N (every Nth time) or a
/// probability from 0 to 1; counted per behaviour over the requests (or tasks) it can apply to.
#[derive(Debug, Args)]
pub struct SimArgs {
    /// Port on 127.0.0.1; 0 picks a free one.
    #[arg(long, default_value_t = 8787)]
    pub port: u16,
    /// The API key clients must send.
    #[arg(long, default_value = DEFAULT_API_KEY)]
    pub api_key: String,
    /// Seconds a task stays queued.
    #[arg(long, value_parser = seconds, default_value = "2")]
    pub queue_secs: Duration,
    /// Shortest rendering time, in seconds.
    #[arg(long, value_parser = seconds, default_value = "6")]
    pub render_min_secs: Duration,
    /// Longest rendering time, in seconds.
    #[arg(long, value_parser = seconds, default_value = "15")]
    pub render_max_secs: Duration,
    /// Share of tasks that end failed (0 to 1).
    #[arg(long, value_parser = probability, default_value = "0.1")]
    pub failure_rate: f64,
    /// Seconds a result URL keeps working.
    #[arg(long, value_parser = seconds, default_value = "3600")]
    pub url_ttl_secs: Duration,
    /// Hand out a fresh URL (with a fresh expiry) on every poll.
    #[arg(long)]
    pub fresh_urls: bool,
    /// Send only the fields the spec names (no progress, no expires_at).
    #[arg(long)]
    pub spec_only: bool,
    /// The shape of the answers: `spec`; `gateway` as new-api sends them (the video URL in
    /// metadata.url, `unknown` before a task starts, string seconds, integer progress in jumps,
    /// its two error shapes, 429 without Retry-After); or `openai` as OpenAI's Videos API does
    /// (no URL: the file at /v1/videos/{id}/content with the key, string seconds and size,
    /// usage, expires_at, `cancelled` and `expired`).
    #[arg(long, value_parser = ["spec", "gateway", "openai"], default_value = "spec")]
    pub answers: String,
    #[command(flatten)]
    pub openai: Box<OpenAiArgs>,
    /// With --answers gateway: where a completed task's URL is (metadata.url,
    /// metadata.video_url, url).
    #[arg(long, value_parser = UrlPlacement::parse_name, default_value = "metadata.url")]
    pub url_in: UrlPlacement,
    /// With --answers gateway: seconds a new task answers `unknown`.
    #[arg(long, value_parser = seconds, default_value = "1")]
    pub not_started_secs: Duration,
    /// With --answers gateway: seconds after which the vendor forgets a task (`unknown` again).
    #[arg(long, value_parser = seconds, default_value = "86400")]
    pub forget_after_secs: Duration,
    /// Seconds after which the service forgets a task's id: polls and its file answer 404
    /// (gateways forget ids after about a day). Default: never.
    #[arg(long, value_parser = seconds, value_name = "SECS")]
    pub forget_tasks_after_secs: Option<Duration>,
    /// The body a submission is taken in: `spec`, `top_level` (the fields at the top, `metadata`
    /// dropped unread, as some gateways do) or `openai` (`size`, string `seconds`,
    /// `input_reference`; unknown parameters refused).
    #[arg(long, value_parser = takes_form, default_value = "spec")]
    pub takes: reel_api::BodyForm,
    /// `seconds` only as a string (`"5"`); a number is refused as new-api refuses it.
    #[arg(long)]
    pub seconds_as_string: bool,
    /// Seed for repeatable ids, timings, failures and faults.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Probability of answering 500, 502 or 503.
    #[arg(long, value_parser = probability, default_value = "0")]
    pub fault_5xx: f64,
    /// Probability of answering 429 with Retry-After.
    #[arg(long, value_parser = probability, default_value = "0")]
    pub fault_429: f64,
    /// Retry-After sent with 429, in seconds.
    #[arg(long, value_parser = seconds, default_value = "1")]
    pub retry_after_secs: Duration,
    /// Probability of closing the connection without an answer.
    #[arg(long, value_parser = probability, default_value = "0")]
    pub fault_drop: f64,
    /// Probability of answering late.
    #[arg(long, value_parser = probability, default_value = "0")]
    pub fault_slow: f64,
    /// How late a slow answer is, in seconds.
    #[arg(long, value_parser = seconds, default_value = "2")]
    pub slow_secs: Duration,
    /// Probability of a 200 answer with a broken JSON body.
    #[arg(long, value_parser = probability, default_value = "0")]
    pub fault_malformed: f64,
    /// Serve result files at most this many bytes per second.
    #[arg(long, value_name = "BYTES")]
    pub file_rate: Option<u64>,
    /// Probability of a file download that stops halfway.
    #[arg(long, value_parser = probability, default_value = "0")]
    pub fault_truncate: f64,
    #[command(flatten)]
    pub hostile: Box<HostileArgs>,
    #[command(flatten)]
    pub upstream: Box<super::sim_upstream::UpstreamArgs>,
}

const OPENAI: &str = "With --answers openai (WHEN: never, always, first:N, every:N, 0..1)";

/// The flags of `--answers openai`.
#[derive(Debug, Args)]
pub struct OpenAiArgs {
    /// Answer every /content request with the whole file (200), Range or not.
    #[arg(long, help_heading = OPENAI)]
    pub content_full: bool,
    /// What /content answers before the file is ready: 404 (OpenAI's "not ready yet") or 400
    /// (new-api's "not completed yet").
    #[arg(long, value_parser = reel_sim::NotReady::parse_name, default_value = "404", help_heading = OPENAI)]
    pub content_not_ready: reel_sim::NotReady,
    /// Seconds after completion before /content serves the file.
    #[arg(long, value_parser = seconds, default_value = "0", value_name = "SECS", help_heading = OPENAI)]
    pub content_lag_secs: Duration,
    /// No /content route at all: it answers 404 for good.
    #[arg(long, help_heading = OPENAI)]
    pub no_content_route: bool,
    /// Send expires_at this many seconds after completion (default: null); past it the task
    /// says `expired` and /content has no file.
    #[arg(long, value_parser = seconds, value_name = "SECS", help_heading = OPENAI)]
    pub expires_after_secs: Option<Duration>,
    /// Tasks that end `cancelled` instead of completed.
    #[arg(long, value_name = "WHEN", default_value = "never", help_heading = OPENAI)]
    pub cancelled: Trigger,
    /// Tasks that end `expired` when they finish, before any download.
    #[arg(long, value_name = "WHEN", default_value = "never", help_heading = OPENAI)]
    pub expired: Trigger,
}

impl OpenAiArgs {
    pub fn openai(&self) -> OpenAi {
        OpenAi {
            ranges: !self.content_full,
            not_ready: self.content_not_ready,
            content_lag: self.content_lag_secs,
            content_route: !self.no_content_route,
            expires_after: self.expires_after_secs,
            cancelled: self.cancelled,
            expired: self.expired,
        }
    }
}

/// The hostile behaviours' flags (boxed in `SimArgs`: there are many).
#[derive(Debug, Args)]
pub struct HostileArgs {
    /// Send Retry-After as an HTTP date instead of seconds (429s and storms).
    #[arg(long)]
    pub retry_after_date: bool,
    /// Answer every API and file request 429 for this many seconds (a 429 storm).
    #[arg(long, value_parser = seconds, value_name = "SECS")]
    pub storm_secs: Option<Duration>,
    /// Seconds from start until the 429 storm begins.
    #[arg(long, value_parser = seconds, default_value = "0", value_name = "SECS")]
    pub storm_after_secs: Duration,
    /// Answer API requests 503 with Retry-After of --retry-after-secs (a date with
    /// --retry-after-date; past the year 9999 it is that year's last second).
    #[arg(long, value_name = "WHEN", default_value = "never")]
    pub hostile_unavailable: Trigger,

    /// Downloads that send --trickle-bytes, then stall (or drip, with --trickle-every-secs).
    #[arg(long, value_name = "WHEN", default_value = "never", help_heading = DOWNLOADS)]
    pub hostile_trickle: Trigger,
    /// Bytes a trickling download sends before it stalls.
    #[arg(long, default_value_t = 1024, value_name = "BYTES", help_heading = DOWNLOADS)]
    pub trickle_bytes: u64,
    /// After stalling, send one byte every this many seconds (default: nothing more).
    #[arg(long, value_parser = seconds, value_name = "SECS", help_heading = DOWNLOADS)]
    pub trickle_every_secs: Option<Duration>,
    /// Answer a Range request 200 with the whole file.
    #[arg(long, value_name = "WHEN", default_value = "never", help_heading = DOWNLOADS)]
    pub hostile_range_ignored: Trigger,
    /// Answer `Range: bytes=N-` 206 with a Content-Range of N- but the bytes from 0.
    #[arg(long, value_name = "WHEN", default_value = "never", help_heading = DOWNLOADS)]
    pub hostile_range_lying: Trigger,
    /// Answer a Range request 206 with another range than the one asked.
    #[arg(long, value_name = "WHEN", default_value = "never", help_heading = DOWNLOADS)]
    pub hostile_range_mismatch: Trigger,
    /// Change the file (bytes, ETag, Last-Modified) just before answering.
    #[arg(long, value_name = "WHEN", default_value = "never", help_heading = DOWNLOADS)]
    pub hostile_file_changes: Trigger,
    /// Send more bytes than the Content-Length says (raw on the socket).
    #[arg(long, value_name = "WHEN", default_value = "never", help_heading = DOWNLOADS)]
    pub hostile_overlong: Trigger,
    /// Answer a file request 403 Forbidden.
    #[arg(long, value_name = "WHEN", default_value = "never", help_heading = DOWNLOADS)]
    pub hostile_file_403: Trigger,
    /// Answer a file request 410 Gone.
    #[arg(long, value_name = "WHEN", default_value = "never", help_heading = DOWNLOADS)]
    pub hostile_file_410: Trigger,
    /// Redirect a file URL in a loop (302 between it and itself with hop=1).
    #[arg(long, value_name = "WHEN", default_value = "never", help_heading = DOWNLOADS)]
    pub hostile_file_redirect_loop: Trigger,
    /// Redirect a file URL to another path on the same origin (/mirror/files/...).
    #[arg(long, value_name = "WHEN", default_value = "never", help_heading = DOWNLOADS)]
    pub hostile_file_redirect_path: Trigger,
    /// Redirect a file URL to the second listener (another port on 127.0.0.1).
    #[arg(long, value_name = "WHEN", default_value = "never", help_heading = DOWNLOADS)]
    pub hostile_file_redirect_origin: Trigger,
    /// Redirect a file URL to file:///etc/passwd (another scheme).
    #[arg(long, value_name = "WHEN", default_value = "never", help_heading = DOWNLOADS)]
    pub hostile_file_redirect_scheme: Trigger,
    /// Answer a file request with no Content-Length and a body that never ends (chunked).
    #[arg(long, value_name = "WHEN", default_value = "never", help_heading = DOWNLOADS)]
    pub hostile_file_endless: Trigger,
    /// Answer a file request with no Content-Length, half the bytes, then a clean close.
    #[arg(long, value_name = "WHEN", default_value = "never", help_heading = DOWNLOADS)]
    pub hostile_file_cut_clean: Trigger,

    /// Answer a task GET 200 with JSON that never ends ([[[[...).
    #[arg(long, value_name = "WHEN", default_value = "never", help_heading = ANSWERS)]
    pub hostile_endless: Trigger,
    /// Answer a task GET 200 with a task followed by spaces that never end.
    #[arg(long, value_name = "WHEN", default_value = "never", help_heading = ANSWERS)]
    pub hostile_endless_spaces: Trigger,
    /// Answer a task GET with valid JSON of --huge-bytes.
    #[arg(long, value_name = "WHEN", default_value = "never", help_heading = ANSWERS)]
    pub hostile_huge: Trigger,
    /// Size of a huge answer, in bytes.
    #[arg(long, default_value_t = 50 * 1024 * 1024, value_name = "BYTES", help_heading = ANSWERS)]
    pub huge_bytes: u64,
    /// Answer a task GET one byte at a time, headers included (raw on the socket).
    #[arg(long, value_name = "WHEN", default_value = "never", help_heading = ANSWERS)]
    pub hostile_slow_bytes: Trigger,
    /// Milliseconds between the bytes of a byte-at-a-time answer.
    #[arg(long, default_value_t = 100, value_name = "MS", help_heading = ANSWERS)]
    pub slow_bytes_ms: u64,
    /// Redirect POSTs and GETs to the same path on the second listener (another origin).
    #[arg(long, value_name = "WHEN", default_value = "never", help_heading = ANSWERS)]
    pub hostile_api_redirect_origin: Trigger,
    /// Redirect POSTs and GETs to the same path with hop=1 (same origin).
    #[arg(long, value_name = "WHEN", default_value = "never", help_heading = ANSWERS)]
    pub hostile_api_redirect_same: Trigger,
    /// Status of API redirects: 307 or 308.
    #[arg(long, value_parser = redirect_status, default_value = "307", help_heading = ANSWERS)]
    pub api_redirect_status: u16,

    /// Which tasks get the hostile task content below.
    #[arg(long, value_name = "WHEN", default_value = "always", help_heading = TASKS)]
    pub hostile_tasks: Trigger,
    /// Status sent once done, with a url: padded, succeeded, done, upper, number, null, missing, escape.
    #[arg(long, value_parser = HostileStatus::parse_name, help_heading = TASKS)]
    pub hostile_status: Option<HostileStatus>,
    /// Task id handed out: empty, dot, dotdot, slash, encoded-dotdot, huge, control, duplicate.
    #[arg(long, value_parser = HostileId::parse_name, help_heading = TASKS)]
    pub hostile_id: Option<HostileId>,
    /// Result url with another scheme: ftp, file, javascript.
    #[arg(long, value_parser = HostileUrl::parse_name, help_heading = TASKS)]
    pub hostile_url: Option<HostileUrl>,
    /// Progress that is not a percent: negative, over, nan, text.
    #[arg(long, value_parser = HostileProgress::parse_name, help_heading = TASKS)]
    pub hostile_progress: Option<HostileProgress>,
    /// Terminal control sequences in the error, model and object strings.
    #[arg(long, help_heading = TASKS)]
    pub hostile_strings: bool,

    /// Answer HEAD on /media/ with 405.
    #[arg(long, help_heading = MEDIA)]
    pub media_head_405: bool,
    /// Serve /media/ files with the wrong Content-Type.
    #[arg(long, help_heading = MEDIA)]
    pub media_wrong_type: bool,
    /// Serve /media/ files as application/octet-stream.
    #[arg(long, help_heading = MEDIA)]
    pub media_octet_stream: bool,
    /// Serve /media/ files without a Content-Type.
    #[arg(long, help_heading = MEDIA)]
    pub media_untyped: bool,
    /// Serve /media/ MP4 files with their moov (index) after the media data.
    #[arg(long, help_heading = MEDIA)]
    pub media_moov_last: bool,
    /// Answer /media/ one byte every --slow-bytes-ms, headers included.
    #[arg(long, help_heading = MEDIA)]
    pub media_slow: bool,
}

impl SimArgs {
    pub fn config(&self, catalog: Catalog) -> Result<SimConfig, SimArgError> {
        if self.render_min_secs > self.render_max_secs {
            return Err(SimArgError::RenderRange);
        }
        Ok(SimConfig {
            api_key: self.api_key.clone(),
            lifecycle: LifecycleConfig {
                queue_time: self.queue_secs,
                render_min: self.render_min_secs,
                render_max: self.render_max_secs,
                failure_rate: self.failure_rate,
            },
            url_ttl: self.url_ttl_secs,
            forget_tasks_after: self.forget_tasks_after_secs,
            fresh_urls: self.fresh_urls,
            extensions: !self.spec_only,
            faults: Faults {
                server_error: self.fault_5xx,
                rate_limit: self.fault_429,
                retry_after: self.retry_after_secs,
                drop: self.fault_drop,
                slow: self.fault_slow,
                slow_delay: self.slow_secs,
                malformed: self.fault_malformed,
                truncate: self.fault_truncate,
            },
            hostile: self.hostile.hostile(),
            answers: match self.answers.as_str() {
                "gateway" => Answers::Gateway(Gateway {
                    url: self.url_in,
                    not_started: self.not_started_secs,
                    forget_after: self.forget_after_secs,
                }),
                "openai" => Answers::OpenAi(self.openai.openai()),
                _ => Answers::Spec,
            },
            takes: reel_api::Wire { form: self.takes, seconds_as_string: self.seconds_as_string },
            seed: self.seed,
            // OpenAI names its tasks `video_…`; everyone else here, `task_…`.
            id_prefix: if self.answers == "openai" { "video_" } else { "task_" }.into(),
            file_rate: self.file_rate,
            catalog,
            upstream: self.upstream.upstream(),
        })
    }
}

impl HostileArgs {
    pub fn hostile(&self) -> Hostile {
        Hostile {
            trickle: self.hostile_trickle,
            trickle_head: self.trickle_bytes,
            trickle_every: self.trickle_every_secs,
            range_ignored: self.hostile_range_ignored,
            range_lying: self.hostile_range_lying,
            range_mismatch: self.hostile_range_mismatch,
            file_changes: self.hostile_file_changes,
            overlong: self.hostile_overlong,
            file_403: self.hostile_file_403,
            file_410: self.hostile_file_410,
            file_redirect_loop: self.hostile_file_redirect_loop,
            file_redirect_path: self.hostile_file_redirect_path,
            file_redirect_origin: self.hostile_file_redirect_origin,
            file_redirect_scheme: self.hostile_file_redirect_scheme,
            file_endless: self.hostile_file_endless,
            file_cut_clean: self.hostile_file_cut_clean,
            endless: self.hostile_endless,
            endless_spaces: self.hostile_endless_spaces,
            huge: self.hostile_huge,
            huge_bytes: self.huge_bytes,
            slow_bytes: self.hostile_slow_bytes,
            slow_bytes_every: Duration::from_millis(self.slow_bytes_ms),
            api_redirect_origin: self.hostile_api_redirect_origin,
            api_redirect_same: self.hostile_api_redirect_same,
            api_redirect_status: self.api_redirect_status,
            storm: self.storm_secs.map(|lasting| Storm { after: self.storm_after_secs, lasting }),
            retry_after_date: self.retry_after_date,
            unavailable: self.hostile_unavailable,
            tasks: self.hostile_tasks,
            task_status: self.hostile_status,
            task_id: self.hostile_id,
            task_url: self.hostile_url,
            task_progress: self.hostile_progress,
            task_strings: self.hostile_strings,
            media_head_405: self.media_head_405,
            media_wrong_type: self.media_wrong_type,
            media_octet_stream: self.media_octet_stream,
            media_untyped: self.media_untyped,
            media_moov_last: self.media_moov_last,
            media_slow: self.media_slow,
        }
    }
}

/// The banner `reel sim` prints on start.
pub fn banner(base_url: &str, config: &SimConfig) -> String {
    let mut out = format!("reel sim: a simulator of the video API, listening on {base_url}\n");
    out.push_str(&format!("API key: {}\n", config.api_key));
    if let Answers::Gateway(g) = &config.answers {
        let at = UrlPlacement::NAMES.iter().find(|(_, p)| *p == g.url).map_or("metadata.url", |(n, _)| *n);
        out.push_str(&format!("Answers: as the new-api gateway does (the video URL in {at})\n"));
    }
    if let Answers::OpenAi(o) = &config.answers {
        let ranges = if o.ranges { "Range honoured" } else { "always the whole file" };
        out.push_str(&format!(
            "Answers: as OpenAI's Videos API does (no URL; the file at /v1/videos/ID/content with the key, {ranges})\n"
        ));
    }
    if config.takes != reel_api::Wire::default() {
        out.push_str(&format!(
            "Takes: the {} body (set wire and seconds_as_string in a profile to match)\n",
            config.takes
        ));
    }
    out.push_str("Models:\n");
    for e in config.catalog.entries() {
        out.push_str(&format!("  {:<44} {}\n", e.id, e.duration));
    }
    let model = config.catalog.entries().first().map_or("acme/aurora-3.0/text-to-video", |e| e.id.as_str());
    out.push_str(&format!(
        "Try it:\n  curl -s {base_url}/v1/videos -H 'Authorization: Bearer {key}' \
         -H 'Content-Type: application/json' -d '{{\"model\": \"{model}\", \"prompt\": \"a red fox in snow\"}}'\n  \
         curl -s {base_url}/v1/videos/TASK_ID -H 'Authorization: Bearer {key}'\n\
         Point reel at it:\n  REEL_BASE_URL={base_url} REEL_API_KEY={key} reel\n",
        key = config.api_key
    ));
    out
}

/// Serves until Ctrl-C, printing each request as it comes (flushed: output is buffered).
pub async fn run(args: &SimArgs, catalog: Catalog, out: &mut Output<impl Write>) -> Result<(), CliError> {
    let config = args.config(catalog).map_err(|e| CliError::Usage(e.to_string()))?;
    let sim =
        SimHandle::start(config, args.port).await.map_err(|source| CliError::Listen { port: args.port, source })?;
    out.text(&banner(&sim.base_url(), sim.config()))?;
    out.line(&format!("Second listener (the other origin of hostile redirects): {}", sim.other_base_url()))?;
    out.line("Serving; Ctrl-C stops.")?;
    out.flush()?;
    let mut requests = sim.watch_requests();
    loop {
        tokio::select! {
            Some(r) = requests.recv() => {
                let fault = r.fault.map(|f| format!("  [fault: {f}]")).unwrap_or_default();
                let other = if r.origin == Origin::Other { "  [second listener]" } else { "" };
                let path = reel_rules::text::excerpt(&r.path, 200);
                out.line(&format!("{} {path} -> {}{fault}{other}", r.method, r.status))?;
                out.flush()?;
            }
            _ = tokio::signal::ctrl_c() => break,
        }
    }
    out.line(&format!("Stopped after {} requests and {} tasks.", sim.requests().len(), sim.task_count()))?;
    sim.stop().await;
    Ok(())
}

#[cfg(test)]
#[path = "sim_tests.rs"]
mod tests;
