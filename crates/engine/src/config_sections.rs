//! The config file's sections of plain settings, each with its defaults: `[defaults]`,
//! `[batch]`, `[prompt]`, `[files]`, `[agents]` and `[engine]`.

use serde::Deserialize;

use reel_rules::TextBounds;

/// `[defaults]`: values `reel submit` takes when its flags leave them out.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Defaults {
    /// The model when `--model` is left out; a unique suffix of a catalog id will do.
    pub model: Option<String>,
}

/// `[batch]`: `reel submit --from FILE` and templates.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BatchSettings {
    /// Past this many tasks, a batch asks before sending (unless `--yes`).
    pub confirm_over: u32,
    /// Largest batch file (or `--var NAME=@FILE`) read, in bytes: a file past it, or a stream
    /// that never ends, is refused after reading at most this much.
    pub max_file_bytes: u64,
    /// Longest line of such a file, in bytes.
    pub max_line_bytes: u64,
    /// Most tasks one run may expand to, copies counted; counted before any task is built. Meant
    /// for the engine's admission of every submission too.
    pub max_tasks: u32,
}

/// The read bounds of a batch file are these settings' two byte limits.
impl From<&BatchSettings> for reel_rules::batch::stream::ReadBounds {
    fn from(b: &BatchSettings) -> Self {
        Self { max_file_bytes: b.max_file_bytes, max_line_bytes: b.max_line_bytes }
    }
}

impl Default for BatchSettings {
    fn default() -> Self {
        // 64 MiB is 10,000 rows of over 6 KiB each, past any real prompt (2,500 characters at
        // most); 1 MiB holds a row of 10,000 template values.
        BatchSettings { confirm_over: 20, max_file_bytes: 64 << 20, max_line_bytes: 1 << 20, max_tasks: 10_000 }
    }
}

/// `[prompt]`: what a prompt may hold, checked by the shared validation for every client.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PromptSettings {
    /// Longest prompt, in characters.
    pub max_chars: usize,
    /// Longest negative prompt, in characters.
    pub max_negative_chars: usize,
}

impl Default for PromptSettings {
    fn default() -> Self {
        let b = TextBounds::DEFAULT;
        PromptSettings { max_chars: b.prompt_chars, max_negative_chars: b.negative_chars }
    }
}

/// `[files]`: what reel does to the videos it saves.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FilesSettings {
    /// Write each video's provenance (prompt, model, settings, ids) into the file as MP4
    /// metadata, with ffmpeg; the sidecar .json keeps it either way.
    pub provenance: bool,
}

impl Default for FilesSettings {
    fn default() -> Self {
        FilesSettings { provenance: true }
    }
}

/// `[agents]`: what AI agents may do through `reel mcp`; an agent cannot lift these.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AgentsSettings {
    /// Whether agents may send tasks at all; without it they list, check, search and show.
    pub submit: bool,
    /// Spending per day by agents on priced models (the pricing currency), in flight included.
    pub daily: Option<f64>,
    /// Tasks per day agents may send.
    pub daily_tasks: Option<u32>,
    /// Tasks one call may send (a grid counts each of its tasks).
    pub max_tasks_per_call: u32,
}

impl Default for AgentsSettings {
    fn default() -> Self {
        AgentsSettings { submit: false, daily: None, daily_tasks: None, max_tasks_per_call: 10 }
    }
}

/// `[engine]`: polling, the request budget and downloads. Every field has the spec's default.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EngineSettings {
    /// API requests per second, never exceeded.
    pub requests_per_second: u32,
    /// First poll after submission (spec 4.3: 5 s).
    pub first_poll_secs: f64,
    /// The spec's interval; tasks are polled at this unless learned render times rule a finish
    /// out for a while (then up to `max_poll_interval_secs` apart).
    pub poll_interval_secs: f64,
    pub max_poll_interval_secs: f64,
    /// Past this a task is `stalled` (spec 4.3: 10 minutes).
    pub client_timeout_secs: f64,
    /// How long a result URL is assumed to work when the service does not say.
    pub url_ttl_secs: f64,
    pub max_downloads: usize,
    /// Largest file a download may be, in MB; each task's own bound (from its seconds and
    /// resolution) is usually lower. A transfer past it is cut and the task `download_failed`.
    pub max_file_mb: u64,
    /// Failed download attempts of one task before it is `download_failed`.
    pub download_attempts: u32,
    /// A transfer that moves less than 1 KiB in this long is cut and resumed.
    pub stall_secs: f64,
    /// Longest `Retry-After` believed (as the SDKs: 60 s); a longer one is ignored and reel
    /// backs off on its own schedule instead.
    pub max_retry_after_secs: f64,
    /// The engine process exits this long after nothing is unfinished and no client is attached.
    pub idle_exit_secs: f64,
    /// An engine process with no client whose tasks only wait for a service that has been
    /// unreachable this long exits too, leaving them in the journal for the next engine.
    pub give_up_after_secs: f64,
}

impl Default for EngineSettings {
    fn default() -> Self {
        EngineSettings {
            requests_per_second: 10,
            first_poll_secs: 5.0,
            poll_interval_secs: 5.0,
            max_poll_interval_secs: 90.0,
            client_timeout_secs: 600.0,
            url_ttl_secs: 3600.0,
            max_downloads: 4,
            max_file_mb: crate::verify::DEFAULT_MAX_FILE_MB,
            download_attempts: 6,
            stall_secs: 30.0,
            max_retry_after_secs: 60.0,
            idle_exit_secs: 60.0,
            give_up_after_secs: 3600.0,
        }
    }
}
