//! `[remote]` and its variables: how reel reaches an engine on another machine.

use serde::Deserialize;

use super::{ConfigError, Env};

/// How reel reaches an engine on another machine (`--engine ssh://…`): the ssh command
/// (REEL_SSH, default `ssh`) and the reel on that machine (REEL_REMOTE_REEL, default `reel`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RemoteSettings {
    pub ssh: Vec<String>,
    pub reel: Vec<String>,
}

impl Default for RemoteSettings {
    fn default() -> Self {
        RemoteSettings { ssh: vec!["ssh".into()], reel: vec!["reel".into()] }
    }
}

/// The file's `[remote]`, with REEL_SSH and REEL_REMOTE_REEL over it.
pub(super) fn resolve(env: &Env, file: &RemoteSettings) -> Result<RemoteSettings, ConfigError> {
    let split = |what: &'static str, text: &Option<String>, default: &Vec<String>| match text {
        Some(t) => match shell_words::split(t) {
            Ok(words) if !words.is_empty() => Ok(words),
            _ => Err(ConfigError::Command { what, text: t.clone() }),
        },
        None => Ok(default.clone()),
    };
    Ok(RemoteSettings {
        ssh: split("REEL_SSH", &env.ssh, &file.ssh)?,
        reel: split("REEL_REMOTE_REEL", &env.remote_reel, &file.reel)?,
    })
}
