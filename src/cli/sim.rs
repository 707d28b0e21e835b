//! `reel sim`: runs the simulator in the foreground and prints what it serves.

use std::io::Write;
use std::time::Duration;

use clap::Args;

use super::CliError;
use super::output::Output;
use crate::rules::Catalog;
use crate::sim::{DEFAULT_API_KEY, Faults, LifecycleConfig, SimConfig, SimHandle};

fn probability(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(p) if (0.0..=1.0).contains(&p) => Ok(p),
        _ => Err(format!("\"{text}\" is not a probability from 0 to 1")),
    }
}

fn seconds(text: &str) -> Result<Duration, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s >= 0.0 => Ok(Duration::from_secs_f64(s)),
        _ => Err(format!("\"{text}\" is not a number of seconds")),
    }
}

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
}

impl SimArgs {
    pub fn config(&self, catalog: Catalog) -> Result<SimConfig, String> {
        if self.render_min_secs > self.render_max_secs {
            return Err("--render-min-secs is above --render-max-secs".into());
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
            seed: self.seed,
            id_prefix: "task_".into(),
            file_rate: self.file_rate,
            catalog,
        })
    }
}

/// The banner `reel sim` prints on start.
pub fn banner(base_url: &str, config: &SimConfig) -> String {
    let mut out = format!("reel sim: a simulator of the video API, listening on {base_url}\n");
    out.push_str(&format!("API key: {}\n", config.api_key));
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
    let config = args.config(catalog).map_err(CliError::Usage)?;
    let sim =
        SimHandle::start(config, args.port).await.map_err(|source| CliError::Listen { port: args.port, source })?;
    out.text(&banner(&sim.base_url(), sim.config()))?;
    out.line("Serving; Ctrl-C stops.")?;
    out.flush()?;
    let mut requests = sim.watch_requests();
    loop {
        tokio::select! {
            Some(r) = requests.recv() => {
                let fault = r.fault.map(|f| format!("  [fault: {f}]")).unwrap_or_default();
                out.line(&format!("{} {} -> {}{}", r.method, r.path, r.status, fault))?;
                out.flush()?;
            }
            _ = tokio::signal::ctrl_c() => break,
        }
    }
    out.line(&format!("Stopped after {} requests and {} tasks.", sim.requests().len(), sim.task_count()))?;
    sim.stop().await;
    Ok(())
}
