//! Configuration: the TOML file, environment overrides and profiles, resolved into [`Settings`].
//! Only this module reads the environment; everything below gets plain values.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use thiserror::Error;

use crate::api::{ApiKey, KeyError};
use crate::rules::Catalog;
use crate::rules::catalog::{CatalogError, ModelSpec};

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
    /// Models added to the built-in catalog for every profile.
    #[serde(default)]
    pub models: Vec<ModelSpec>,
    #[serde(default)]
    pub engine: EngineSettings,
    #[serde(default)]
    pub pricing: Pricing,
    /// Extra keys in the task table: `[[actions]] key = "m", name = "mpv", command = ["mpv", "{path}"]`.
    #[serde(default)]
    pub actions: Vec<crate::tui::keymap::UserAction>,
    #[serde(default)]
    pub budget: Budget,
}

/// `[budget]`: spending past `daily` (in the pricing currency, priced models only) asks first.
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Budget {
    pub daily: Option<f64>,
}

impl Budget {
    /// Whether adding `planned` to `spent` goes past the daily budget.
    pub fn exceeded(&self, spent: f64, planned: f64) -> bool {
        self.daily.is_some_and(|d| spent + planned > d + 1e-9)
    }
}

/// `[pricing]`: what a billed second costs per model; models without a price are "unpriced".
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pricing {
    /// Written before amounts, such as "$" or "EUR ".
    #[serde(default)]
    pub currency: String,
    #[serde(default)]
    pub per_second: BTreeMap<String, f64>,
}

impl Pricing {
    /// The cost of `billed_seconds` of `model`, if the model has a price.
    pub fn cost(&self, model: &str, billed_seconds: f64) -> Option<f64> {
        self.per_second.get(model).map(|p| p * billed_seconds)
    }

    pub fn format(&self, amount: f64) -> String {
        format!("{}{amount:.2}", self.currency)
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
    /// The spec's interval; tasks are polled at about this where a finish is likely, less often
    /// elsewhere (up to `max_poll_interval_secs`).
    pub poll_interval_secs: f64,
    pub max_poll_interval_secs: f64,
    /// Past this a task is `stalled` (spec 4.3: 10 minutes).
    pub client_timeout_secs: f64,
    /// How long a result URL is assumed to work when the service does not say.
    pub url_ttl_secs: f64,
    pub max_downloads: usize,
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
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    pub base_url: Option<String>,
    pub api_key: Option<String>,
    /// A command (program and arguments, run without a shell) that prints the key.
    pub api_key_cmd: Option<Vec<String>>,
    #[serde(default)]
    pub models: Vec<ModelSpec>,
}

/// The environment variables reel reads, captured once by [`Env::from_process`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Env {
    pub base_url: Option<String>,
    pub api_key: Option<String>,
    pub data_dir: Option<PathBuf>,
    pub profile: Option<String>,
    pub config: Option<PathBuf>,
}

impl Env {
    pub fn from_process() -> Env {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
        Env {
            base_url: var("REEL_BASE_URL"),
            api_key: var("REEL_API_KEY"),
            data_dir: var("REEL_DATA_DIR").map(PathBuf::from),
            profile: var("REEL_PROFILE"),
            config: var("REEL_CONFIG").map(PathBuf::from),
        }
    }
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
    #[error("the API key from {source_name} is unusable: {source}")]
    BadKey { source_name: String, source: KeyError },
    #[error("api_key_cmd {command:?} failed: {detail}")]
    KeyCommand { command: Vec<String>, detail: String },
    #[error("{0}")]
    Catalog(#[from] CatalogError),
    #[error("no data folder: set REEL_DATA_DIR or data_dir in the config file")]
    NoDataDir,
    #[error("[engine] in the config file: every number must be above 0")]
    Engine,
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
    pub actions: Vec<crate::tui::keymap::UserAction>,
    pub budget: Budget,
    /// Things the user should know but that do not stop the program.
    pub warnings: Vec<String>,
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
    let mut models = file.models.clone();
    models.extend(profile.map(|p| p.models.clone()).unwrap_or_default());
    let catalog = Catalog::builtin().with_extra(models)?;
    let data_dir =
        env.data_dir.clone().or_else(|| file.data_dir.clone()).or(default_data_dir).ok_or(ConfigError::NoDataDir)?;
    let e = file.engine;
    let positive =
        [e.first_poll_secs, e.poll_interval_secs, e.max_poll_interval_secs, e.client_timeout_secs, e.url_ttl_secs];
    if e.requests_per_second == 0 || e.max_downloads == 0 || positive.iter().any(|v| !v.is_finite() || *v <= 0.0) {
        return Err(ConfigError::Engine);
    }
    Ok(Settings {
        profile: chosen,
        target,
        data_dir,
        catalog,
        config_path: None,
        engine: e,
        pricing: file.pricing.clone(),
        actions: file.actions.clone(),
        budget: file.budget,
        warnings: Vec::new(),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> ConfigFile {
        parse_file(Path::new("c.toml"), text).expect("parses")
    }

    const TWO: &str = r#"
        default_profile = "work"
        [profiles.work]
        base_url = "https://api.work.example"
        api_key = "sk-work"
        [profiles.home]
        base_url = "https://api.home.example"
        api_key_cmd = ["pass", "show", "video"]
        [[profiles.home.models]]
        id = "home/vid-3.0/text-to-video"
        family = "A"
    "#;

    fn run(text: &str, env: Env, flag: Option<&str>) -> Result<Settings, ConfigError> {
        resolve(&file(text), &env, flag, Some("/data".into()))
    }

    #[test]
    fn precedence_of_profile_url_key_and_data_dir() {
        let s = run(TWO, Env::default(), None).expect("ok");
        assert_eq!(s.profile.as_deref(), Some("work"));
        assert_eq!(
            s.target,
            Target::Remote {
                base_url: "https://api.work.example".into(),
                key: KeySource::File { profile: "work".into(), key: "sk-work".into() }
            }
        );
        assert_eq!(s.data_dir, PathBuf::from("/data"));

        let s = run(TWO, Env { profile: Some("home".into()), ..Env::default() }, None).expect("ok");
        assert!(matches!(s.target, Target::Remote { key: KeySource::Command { .. }, .. }));
        assert!(s.catalog.get("home/vid-3.0/text-to-video").is_some(), "profile models join the catalog");

        let s = run(TWO, Env { profile: Some("home".into()), ..Env::default() }, Some("work")).expect("ok");
        assert_eq!(s.profile.as_deref(), Some("work"), "the flag beats REEL_PROFILE");

        let env = Env {
            base_url: Some("http://127.0.0.1:9".into()),
            api_key: Some("k".into()),
            data_dir: Some("/x".into()),
            ..Env::default()
        };
        let s = run(TWO, env, None).expect("ok");
        assert_eq!(s.target, Target::Remote { base_url: "http://127.0.0.1:9".into(), key: KeySource::Env("k".into()) });
        assert_eq!(s.data_dir, PathBuf::from("/x"));
    }

    #[test]
    fn engine_settings_have_defaults_and_are_checked() {
        let s = run("", Env::default(), None).expect("ok");
        assert_eq!(s.engine, EngineSettings::default());
        let s = run("[engine]\nrequests_per_second = 3\nurl_ttl_secs = 60", Env::default(), None).expect("ok");
        assert_eq!((s.engine.requests_per_second, s.engine.url_ttl_secs, s.engine.max_downloads), (3, 60.0, 4));
        assert!(matches!(run("[engine]\nrequests_per_second = 0", Env::default(), None), Err(ConfigError::Engine)));
        assert!(matches!(run("[engine]\nfirst_poll_secs = -1.0", Env::default(), None), Err(ConfigError::Engine)));
    }

    #[test]
    fn pricing_and_actions() {
        let s = run(
            "[pricing]\ncurrency = \"$\"\nper_second = { \"acme/aurora-3.0/text-to-video\" = 0.05 }\n\
             [[actions]]\nkey = \"m\"\nname = \"mpv\"\ncommand = [\"mpv\", \"{path}\"]\n",
            Env::default(),
            None,
        )
        .expect("ok");
        assert_eq!(
            s.pricing.cost("acme/aurora-3.0/text-to-video", 10.0).map(|c| s.pricing.format(c)),
            Some("$0.50".into())
        );
        assert_eq!(s.pricing.cost("other", 10.0), None);
        assert_eq!(s.actions[0].command, vec!["mpv", "{path}"]);
    }

    #[test]
    fn nothing_configured_means_demo() {
        let s = run("", Env::default(), None).expect("ok");
        assert_eq!((s.target, s.profile), (Target::Demo, None));
    }

    #[test]
    fn half_configured_is_an_error_naming_the_fix() {
        let e = run("", Env { api_key: Some("k".into()), ..Env::default() }, None).expect_err("no url");
        assert!(e.to_string().contains("REEL_BASE_URL"), "{e}");
        let e =
            run("", Env { base_url: Some("http://127.0.0.1:9".into()), ..Env::default() }, None).expect_err("no key");
        assert!(e.to_string().contains("REEL_API_KEY"), "{e}");
        let e = run(TWO, Env::default(), Some("play")).expect_err("unknown profile");
        assert_eq!(e.to_string(), "no profile named \"play\"; known: home, work");
    }

    #[test]
    fn malformed_files_name_line_and_problem() {
        let e = parse_file(Path::new("/etc/reel.toml"), "default_profile = \"a\"\n[profiles.a]\nbase_url = 3\n")
            .expect_err("bad type");
        let ConfigError::Parse { line, .. } = &e else { panic!("{e}") };
        assert_eq!(*line, 3);
        assert!(e.to_string().starts_with("config file /etc/reel.toml, line 3, column"), "{e}");
        let e = parse_file(Path::new("c.toml"), "[profiles.a]\napi_kye = \"x\"\n").expect_err("typo");
        assert!(e.to_string().contains("line 2") && e.to_string().contains("api_kye"), "{e}");
        let e = parse_file(Path::new("c.toml"), "x = [\n").expect_err("syntax");
        assert!(matches!(e, ConfigError::Parse { .. }));
    }

    #[test]
    fn keys_from_commands_and_checks() {
        let cmd = KeySource::Command { profile: "p".into(), argv: vec!["echo".into(), "sk-from-cmd".into()] };
        let key = resolve_key(&cmd).expect("runs");
        assert!(!format!("{key:?}").contains("sk-from-cmd"));
        let failing = KeySource::Command { profile: "p".into(), argv: vec!["false".into()] };
        assert!(matches!(resolve_key(&failing), Err(ConfigError::KeyCommand { .. })));
        let missing = KeySource::Command { profile: "p".into(), argv: vec!["/nonexistent/reel-key".into()] };
        assert!(matches!(resolve_key(&missing), Err(ConfigError::KeyCommand { .. })));
        let bad = KeySource::Env("two words".into());
        let e = resolve_key(&bad).expect_err("bad key");
        assert!(!e.to_string().contains("two words"), "the key is never in messages: {e}");
    }

    #[cfg(unix)]
    #[test]
    fn warns_when_a_key_file_is_readable_by_others() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("config.toml");
        std::fs::write(&path, "[profiles.a]\nbase_url = \"http://127.0.0.1:1\"\napi_key = \"sk\"\n").expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        assert!(readable_by_others(&path));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        assert!(!readable_by_others(&path));
    }
}
