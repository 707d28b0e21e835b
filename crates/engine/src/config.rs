//! Configuration: the TOML file, environment overrides and profiles, resolved into [`Settings`].
//! Only this module reads the environment; everything below gets plain values.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use thiserror::Error;

use crate::media::storage::StorageSettings;
use reel_api::{ApiKey, KeyError};
use reel_rules::catalog::Declared;
/// Pricing and the budget are rules; they are read from the config file, so they are named
/// here too.
pub use reel_rules::pricing::{Budget, Pricing};
use reel_rules::{Catalog, TextBounds};
pub use remote::RemoteSettings;
pub use sections::{AgentsSettings, BatchSettings, Defaults, EngineSettings, FilesSettings, PromptSettings};

#[path = "config_remote.rs"]
mod remote;
#[path = "config_sections.rs"]
mod sections;

/// The config file as written.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// Profile used when neither `--profile` nor REEL_PROFILE names one.
    pub default_profile: Option<String>,
    /// Where the database and the videos go.
    pub data_dir: Option<PathBuf>,
    #[serde(default)]
    pub profiles: BTreeMap<String, Profile>,
    /// Models added to the built-in catalog for every profile. Each is read on its own
    /// (see [`reel_rules::catalog::Declared`]): a broken one stops only the commands using it.
    #[serde(default)]
    pub models: Vec<toml::Value>,
    #[serde(default)]
    pub engine: EngineSettings,
    #[serde(default)]
    pub pricing: Pricing,
    /// Extra keys in the task table.
    #[serde(default)]
    pub actions: Vec<UserAction>,
    #[serde(default)]
    pub budget: Budget,
    #[serde(default)]
    pub batch: BatchSettings,
    #[serde(default)]
    pub prompt: PromptSettings,
    #[serde(default)]
    pub files: FilesSettings,
    #[serde(default)]
    pub agents: AgentsSettings,
    /// Dashboard keys by command: `open = "p"`, `down = ["j", "Down"]`, `"history.open" = "p"`.
    #[serde(default)]
    pub keys: BTreeMap<String, KeyList>,
    /// `[storage]`: where local media files are uploaded.
    pub storage: Option<StorageSettings>,
    /// `[defaults]`: what `reel submit` uses when a flag is left out.
    #[serde(default)]
    pub defaults: Defaults,
    /// `[remote]`: how an engine on another machine is reached.
    #[serde(default)]
    pub remote: RemoteSettings,
}

/// One key or several.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(
    untagged,
    expecting = "[keys] takes a key or a list of keys for each command, as in open = \"Enter\" or \
                 down = [\"j\", \"Down\"]; a name with a part goes in quotes: \"history.quit\" = \"x\""
)]
pub enum KeyList {
    One(String),
    Many(Vec<String>),
}

impl KeyList {
    pub fn keys(&self) -> Vec<String> {
        match self {
            KeyList::One(k) => vec![k.clone()],
            KeyList::Many(v) => v.clone(),
        }
    }
}

/// A key of the task table that runs a command: `[[actions]] key = "m", name = "mpv",
/// command = ["mpv", "{path}"]`. Plain data; the dashboard's keymap turns it into a binding.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserAction {
    pub key: char,
    pub name: String,
    /// Program and arguments, run without a shell; `{id}` (reel's), `{remote_id}` (the
    /// service's), `{path}`, `{url}` and `{prompt}` are replaced in each argument. The keymap
    /// checks them when the config is loaded.
    pub command: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    pub base_url: Option<String>,
    pub api_key: Option<String>,
    /// A command (program and arguments, run without a shell) that prints the key.
    pub api_key_cmd: Option<Vec<String>>,
    #[serde(default)]
    pub models: Vec<toml::Value>,
    /// The engine to use, on another machine: `ssh://[user@]host[:port][/data/dir]`.
    pub engine: Option<String>,
    /// The body form the service takes: `spec` (the default), `top_level` or `openai`.
    pub wire: Option<reel_api::BodyForm>,
    /// `seconds` sent as a string (`"5"`), for gateways that want it so.
    pub seconds_as_string: Option<bool>,
}

/// The environment variables reel reads, captured once by [`Env::from_process`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Env {
    pub base_url: Option<String>,
    pub api_key: Option<String>,
    pub data_dir: Option<PathBuf>,
    pub profile: Option<String>,
    pub config: Option<PathBuf>,
    /// REEL_PLAYER: plays a video.
    pub player: Option<String>,
    /// REEL_FFMPEG: the ffmpeg that makes previews.
    pub ffmpeg: Option<String>,
    pub visual: Option<String>,
    pub editor: Option<String>,
    /// REEL_LOG (or RUST_LOG): what the log file records, e.g. `reel=debug`.
    pub log: Option<String>,
    /// HOME: where `~/` in a local media path points.
    pub home: Option<PathBuf>,
    /// Inside tmux or screen (TMUX, STY, or TERM saying so).
    pub multiplexer: bool,
    /// REEL_ENGINE: an engine on another machine (`ssh://…`).
    pub engine: Option<String>,
    /// REEL_SSH and REEL_REMOTE_REEL, split as a shell would.
    pub ssh: Option<String>,
    pub remote_reel: Option<String>,
}

impl Env {
    /// The variables as `var` gives them; a blank value counts as unset.
    pub fn from_lookup(var: impl Fn(&str) -> Option<String>) -> Env {
        let var = |k: &str| var(k).filter(|v| !v.trim().is_empty());
        Env {
            base_url: var("REEL_BASE_URL"),
            api_key: var("REEL_API_KEY"),
            data_dir: var("REEL_DATA_DIR").map(PathBuf::from),
            profile: var("REEL_PROFILE"),
            config: var("REEL_CONFIG").map(PathBuf::from),
            player: var("REEL_PLAYER"),
            ffmpeg: var("REEL_FFMPEG"),
            visual: var("VISUAL"),
            editor: var("EDITOR"),
            log: var("REEL_LOG").or_else(|| var("RUST_LOG")),
            home: var("HOME").map(PathBuf::from),
            multiplexer: var("TMUX").is_some()
                || var("STY").is_some()
                || var("TERM").is_some_and(|t| t.starts_with("tmux") || t.starts_with("screen")),
            engine: var("REEL_ENGINE"),
            ssh: var("REEL_SSH"),
            remote_reel: var("REEL_REMOTE_REEL"),
        }
    }

    pub fn from_process() -> Env {
        Env::from_lookup(|k| std::env::var(k).ok())
    }
}

/// Programs reel starts for the user, each a program and its first arguments; the file or
/// folder is appended as the last argument. No shell is involved.
#[derive(Debug, Clone, PartialEq)]
pub struct Programs {
    /// Plays a video: REEL_PLAYER, else the desktop's opener.
    pub player: Vec<String>,
    /// Edits a prompt: VISUAL, else EDITOR, else vi.
    pub editor: Vec<String>,
    /// Opens a folder: the desktop's opener.
    pub opener: Vec<String>,
    /// Makes previews: REEL_FFMPEG, else `ffmpeg` on the PATH. A program, never a command line.
    pub ffmpeg: String,
}

fn desktop_opener() -> Vec<String> {
    vec![if cfg!(target_os = "macos") { "open" } else { "xdg-open" }.to_string()]
}

/// The first candidate that is set and splits (with shell quoting) into a program and its
/// arguments, else `fallback`. One that cannot be split is passed over with a warning, so a
/// stray quote never runs something else (such as the file itself).
fn first_command(
    candidates: &[(&str, Option<&str>)],
    fallback: Vec<String>,
    warnings: &mut Vec<String>,
) -> Vec<String> {
    for (name, value) in candidates {
        let Some(text) = value.filter(|v| !v.trim().is_empty()) else { continue };
        match shell_words::split(text) {
            Ok(words) if words.first().is_some_and(|w| !w.trim().is_empty()) => return words,
            Ok(_) => warnings.push(format!("{name} names no program; it is ignored")),
            Err(e) => {
                warnings.push(format!("{name} cannot be split into a program and arguments ({e}); it is ignored"))
            }
        }
    }
    fallback
}

/// The player, the editor and the opener from the environment; warnings for values passed over.
pub fn programs(env: &Env) -> (Programs, Vec<String>) {
    let mut warnings = Vec::new();
    let player = first_command(&[("REEL_PLAYER", env.player.as_deref())], desktop_opener(), &mut warnings);
    let editor = first_command(
        &[("VISUAL", env.visual.as_deref()), ("EDITOR", env.editor.as_deref())],
        vec!["vi".to_string()],
        &mut warnings,
    );
    let ffmpeg = env.ffmpeg.clone().unwrap_or_else(|| "ffmpeg".to_string());
    (Programs { player, editor, opener: desktop_opener(), ffmpeg }, warnings)
}

#[derive(Debug, Error)]
pub enum ConfigError {
    #[error("cannot read config file {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("config file {path}, line {line}, column {column}: {message}")]
    Parse { path: PathBuf, line: usize, column: usize, message: String },
    #[error("no profile named \"{name}\"{}", known_profiles(known))]
    UnknownProfile { name: String, known: Vec<String> },
    #[error("{source_name} gives an API key but no base URL: set REEL_BASE_URL or base_url in the profile")]
    KeyWithoutUrl { source_name: String },
    #[error("base URL {url} has no API key: set REEL_API_KEY, or api_key or api_key_cmd in the profile")]
    UrlWithoutKey { url: String },
    #[error("{what} is not a command reel can split into words: {text:?} (check its quotes)")]
    Command { what: &'static str, text: String },
    #[error("the API key from {source_name} is unusable: {source}")]
    BadKey { source_name: String, source: KeyError },
    #[error("api_key_cmd {command:?} failed: {detail}")]
    KeyCommand { command: Vec<String>, detail: String },
    #[error("no data folder: set REEL_DATA_DIR or data_dir in the config file")]
    NoDataDir,
    #[error("[engine] in the config file: every number must be above 0")]
    Engine,
    #[error("[{section}] {key} in the config file must be above 0")]
    Bound { section: &'static str, key: &'static str },
}

fn known_profiles(known: &[String]) -> String {
    if known.is_empty() { "; the config file defines none".into() } else { format!("; known: {}", known.join(", ")) }
}

/// Where the API key comes from, decided before any command is run.
#[derive(Debug, Clone, PartialEq)]
pub enum KeySource {
    Env(String),
    File { profile: String, key: String },
    Command { profile: String, argv: Vec<String> },
}

impl KeySource {
    fn name(&self) -> String {
        match self {
            KeySource::Env(_) => "REEL_API_KEY".into(),
            KeySource::File { profile, .. } => format!("profile \"{profile}\" api_key"),
            KeySource::Command { profile, .. } => format!("profile \"{profile}\" api_key_cmd"),
        }
    }
}

/// What to talk to.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// No key configured: the embedded simulator.
    Demo,
    Remote {
        base_url: String,
        key: KeySource,
    },
}

/// Everything the program needs, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// The profile in use, if any.
    pub profile: Option<String>,
    pub target: Target,
    pub data_dir: PathBuf,
    pub catalog: Catalog,
    pub config_path: Option<PathBuf>,
    pub engine: EngineSettings,
    pub pricing: Pricing,
    pub actions: Vec<UserAction>,
    pub budget: Budget,
    pub batch: BatchSettings,
    pub files: FilesSettings,
    pub agents: AgentsSettings,
    /// `[keys]`, each command with its keys; the keymap checks them (with `actions`) when any
    /// command starts.
    pub keys: BTreeMap<String, Vec<String>>,
    /// `[storage]`, if configured; credentials are resolved only when an upload needs them.
    pub storage: Option<StorageSettings>,
    /// `[defaults] model`: the model of `reel submit` without `--model`.
    pub default_model: Option<String>,
    pub programs: Programs,
    /// What the log file records (`RUST_LOG` syntax); `None`: `reel=info`.
    pub log_filter: Option<String>,
    /// The home folder, for `~/` in local media paths.
    pub home: Option<PathBuf>,
    /// Inside tmux or screen: pictures are half blocks, the terminal is not asked.
    pub multiplexer: bool,
    /// Things the user should know but that do not stop the program.
    pub warnings: Vec<String>,
    /// The engine on another machine to use (`--engine`, REEL_ENGINE, the profile's `engine`).
    pub engine_url: Option<String>,
    /// The body form the profile's service takes.
    pub wire: reel_api::Wire,
    pub remote: RemoteSettings,
}

/// Byte offset to 1-based line and column.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

pub fn parse_file(path: &Path, text: &str) -> Result<ConfigFile, ConfigError> {
    toml::from_str(text).map_err(|e| {
        let (line, column) = e.span().map_or((1, 1), |s| line_col(text, s.start));
        ConfigError::Parse { path: path.to_path_buf(), line, column, message: e.message().trim().to_string() }
    })
}

fn above_zero(section: &'static str, key: &'static str, value: u64) -> Result<(), ConfigError> {
    if value == 0 { Err(ConfigError::Bound { section, key }) } else { Ok(()) }
}

/// `[prompt]` as the bounds the catalog's validation applies.
fn text_bounds(p: &PromptSettings) -> Result<TextBounds, ConfigError> {
    above_zero("prompt", "max_chars", p.max_chars as u64)?;
    above_zero("prompt", "max_negative_chars", p.max_negative_chars as u64)?;
    Ok(TextBounds { prompt_chars: p.max_chars, negative_chars: p.max_negative_chars })
}

/// The `[[models]]` entries in the order they apply: the file's, then the profile's.
fn declared_models(file: &ConfigFile, profile: Option<(&str, &Profile)>) -> Vec<Declared> {
    let at = |place: String| {
        move |(i, value): (usize, &toml::Value)| Declared {
            place: format!("{place} entry {}", i + 1),
            value: value.clone(),
        }
    };
    let mut out: Vec<Declared> = file.models.iter().enumerate().map(at("[[models]]".into())).collect();
    if let Some((name, p)) = profile {
        out.extend(p.models.iter().enumerate().map(at(format!("[[profiles.{name}.models]]"))));
    }
    out
}

/// `[pricing] per_second`, with the price a model's entry names where the table names none.
fn with_model_prices(pricing: &Pricing, catalog: &Catalog) -> Pricing {
    let mut out = pricing.clone();
    for e in catalog.entries() {
        if let Some(price) = e.price_per_second {
            out.per_second.entry(e.id.clone()).or_insert(price);
        }
    }
    out
}

/// A bound of 0 would refuse everything: a mistake, said at start rather than on every run.
fn check_batch(b: &BatchSettings) -> Result<(), ConfigError> {
    above_zero("batch", "max_file_bytes", b.max_file_bytes)?;
    above_zero("batch", "max_line_bytes", b.max_line_bytes)?;
    above_zero("batch", "max_tasks", u64::from(b.max_tasks))
}

/// Combines the file, the environment and the `--profile` flag. Pure: runs no command.
pub fn resolve(
    file: &ConfigFile,
    env: &Env,
    profile_flag: Option<&str>,
    default_data_dir: Option<PathBuf>,
) -> Result<Settings, ConfigError> {
    let known: Vec<String> = file.profiles.keys().cloned().collect();
    let chosen = profile_flag
        .map(str::to_string)
        .or_else(|| env.profile.clone())
        .or_else(|| file.default_profile.clone())
        .or_else(|| (known.len() == 1).then(|| known[0].clone()));
    let profile = match &chosen {
        Some(name) => Some(
            file.profiles
                .get(name)
                .ok_or_else(|| ConfigError::UnknownProfile { name: name.clone(), known: known.clone() })?,
        ),
        None => None,
    };
    let name = chosen.clone().unwrap_or_default();
    let key = match (&env.api_key, profile) {
        (Some(k), _) => Some(KeySource::Env(k.clone())),
        (None, Some(Profile { api_key: Some(k), .. })) => {
            Some(KeySource::File { profile: name.clone(), key: k.clone() })
        }
        (None, Some(Profile { api_key_cmd: Some(argv), .. })) if !argv.is_empty() => {
            Some(KeySource::Command { profile: name.clone(), argv: argv.clone() })
        }
        _ => None,
    };
    let base_url = env.base_url.clone().or_else(|| profile.and_then(|p| p.base_url.clone()));
    let target = match (base_url, key) {
        (Some(base_url), Some(key)) => Target::Remote { base_url, key },
        (None, Some(key)) => return Err(ConfigError::KeyWithoutUrl { source_name: key.name() }),
        (Some(url), None) => return Err(ConfigError::UrlWithoutKey { url }),
        (None, None) => Target::Demo,
    };
    let catalog = Catalog::builtin()
        .with_extra(&declared_models(file, profile.map(|p| (name.as_str(), p))))
        .with_text_bounds(text_bounds(&file.prompt)?);
    check_batch(&file.batch)?;
    let data_dir =
        env.data_dir.clone().or_else(|| file.data_dir.clone()).or(default_data_dir).ok_or(ConfigError::NoDataDir)?;
    let e = file.engine;
    let positive = [
        e.first_poll_secs,
        e.poll_interval_secs,
        e.max_poll_interval_secs,
        e.client_timeout_secs,
        e.url_ttl_secs,
        e.stall_secs,
        e.max_retry_after_secs,
        e.idle_exit_secs,
        e.give_up_after_secs,
    ];
    if e.requests_per_second == 0
        || e.max_downloads == 0
        || e.max_file_mb == 0
        || e.download_attempts == 0
        || positive.iter().any(|v| !v.is_finite() || *v <= 0.0)
    {
        return Err(ConfigError::Engine);
    }
    let pricing = with_model_prices(&file.pricing, &catalog);
    let (programs, warnings) = programs(env);
    let remote = remote::resolve(env, &file.remote)?;
    let engine_url = env.engine.clone().or_else(|| profile.and_then(|p| p.engine.clone()));
    let wire = reel_api::Wire {
        form: profile.and_then(|p| p.wire).unwrap_or_default(),
        seconds_as_string: profile.and_then(|p| p.seconds_as_string).unwrap_or(false),
    };
    Ok(Settings {
        profile: chosen,
        target,
        data_dir,
        catalog,
        config_path: None,
        engine: e,
        pricing,
        actions: file.actions.clone(),
        budget: file.budget,
        batch: file.batch,
        files: file.files,
        agents: file.agents,
        keys: file.keys.iter().map(|(k, v)| (k.clone(), v.keys())).collect(),
        storage: file.storage.clone(),
        default_model: file.defaults.model.clone(),
        programs,
        log_filter: env.log.clone(),
        home: env.home.clone(),
        multiplexer: env.multiplexer,
        warnings,
        engine_url,
        wire,
        remote,
    })
}

fn project_dirs() -> Option<directories::ProjectDirs> {
    directories::ProjectDirs::from("", "", "reel")
}

/// The config file used when none is named: `<platform config folder>/reel/config.toml`.
pub fn default_config_path() -> Option<PathBuf> {
    project_dirs().map(|d| d.config_dir().join("config.toml"))
}

fn holds_key(file: &ConfigFile) -> bool {
    file.profiles.values().any(|p| p.api_key.is_some())
}

#[cfg(unix)]
fn readable_by_others(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o077 != 0)
}

#[cfg(not(unix))]
fn readable_by_others(_: &Path) -> bool {
    false
}

/// Reads the config file (`--config`, REEL_CONFIG, or the default place; a missing default file
/// is fine) and resolves it with the process environment.
pub fn load(explicit: Option<&Path>, profile_flag: Option<&str>) -> Result<Settings, ConfigError> {
    let env = Env::from_process();
    let named = explicit.map(Path::to_path_buf).or_else(|| env.config.clone());
    let path = named.clone().or_else(default_config_path);
    let (file, used) = match &path {
        Some(p) => match std::fs::read_to_string(p) {
            Ok(text) => (parse_file(p, &text)?, Some(p.clone())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && named.is_none() => (ConfigFile::default(), None),
            Err(source) => return Err(ConfigError::Read { path: p.clone(), source }),
        },
        None => (ConfigFile::default(), None),
    };
    let mut settings = resolve(&file, &env, profile_flag, project_dirs().map(|d| d.data_dir().to_path_buf()))?;
    if let Some(p) = &used
        && holds_key(&file)
        && readable_by_others(p)
    {
        settings.warnings.push(format!(
            "config file {} holds an API key and is readable by other users; run: chmod 600 {}",
            p.display(),
            p.display()
        ));
    }
    if let Some(p) = &used {
        settings.catalog = settings.catalog.clone().in_file(p);
    }
    settings.config_path = used;
    Ok(settings)
}

/// Turns the key source into a key, running `api_key_cmd` if that is the source.
pub fn resolve_key(source: &KeySource) -> Result<ApiKey, ConfigError> {
    let text = match source {
        KeySource::Env(k) | KeySource::File { key: k, .. } => k.clone(),
        KeySource::Command { argv, .. } => {
            let output = std::process::Command::new(&argv[0])
                .args(&argv[1..])
                .stdin(std::process::Stdio::null())
                .output()
                .map_err(|e| ConfigError::KeyCommand { command: argv.clone(), detail: e.to_string() })?;
            if !output.status.success() {
                let stderr = String::from_utf8_lossy(&output.stderr);
                let detail = format!("{}: {}", output.status, stderr.trim().chars().take(200).collect::<String>());
                return Err(ConfigError::KeyCommand { command: argv.clone(), detail });
            }
            String::from_utf8_lossy(&output.stdout).into_owned()
        }
    };
    ApiKey::new(&text).map_err(|e| ConfigError::BadKey { source_name: source.name(), source: e })
}

/// Credentials for `[storage]`, resolved each time an upload needs them (from its
/// credentials_cmd, else the environment) and never kept in the settings.
pub async fn storage_credentials(
    storage: &StorageSettings,
) -> Result<crate::media::storage::Credentials, crate::media::storage::StorageError> {
    crate::media::storage::Credentials::resolve(storage, |k| std::env::var(k).ok()).await
}

/// Whether the user turned colours off: `NO_COLOR` set and not empty (no-color.org), read once.
pub fn colours_off() -> bool {
    static OFF: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *OFF.get_or_init(|| std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()))
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
