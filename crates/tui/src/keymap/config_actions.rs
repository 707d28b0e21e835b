//! The config's `[[actions]]`: which placeholders a command may use (checked when the config is
//! loaded) and the command filled from a task when its key is pressed, never with an empty value.

use std::fmt;

use thiserror::Error;

use reel_engine::config::UserAction;
use reel_store::TaskRecord;

/// What a `{name}` in an action's command stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placeholder {
    /// reel's own task id, the one the table, `reel show` and the file names use.
    Id,
    /// The service's id for the task; none until the service accepted it.
    RemoteId,
    /// The saved video file.
    Path,
    /// The video's URL at the service.
    Url,
    Prompt,
}

impl Placeholder {
    pub const ALL: [Placeholder; 5] =
        [Placeholder::Id, Placeholder::RemoteId, Placeholder::Path, Placeholder::Url, Placeholder::Prompt];

    /// The name between the braces.
    pub fn name(self) -> &'static str {
        match self {
            Placeholder::Id => "id",
            Placeholder::RemoteId => "remote_id",
            Placeholder::Path => "path",
            Placeholder::Url => "url",
            Placeholder::Prompt => "prompt",
        }
    }

    fn by_name(name: &str) -> Option<Placeholder> {
        Placeholder::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The task's value for it; an empty value counts as none, so no program gets an empty
    /// argument where it expects a file or a URL.
    fn value(self, t: &TaskRecord) -> Option<String> {
        let value = match self {
            Placeholder::Id => Some(t.id.to_string()),
            Placeholder::RemoteId => t.remote_id.clone(),
            Placeholder::Path => t.file_path.clone(),
            Placeholder::Url => t.url.clone(),
            Placeholder::Prompt => Some(t.prompt.clone()),
        };
        value.filter(|v| !v.is_empty())
    }

    /// What a task without a value lacks, as in "task 12 has no saved file".
    fn lack(self) -> &'static str {
        match self {
            Placeholder::Id => "has no id",
            Placeholder::RemoteId => "has no id from the service (it was never accepted)",
            Placeholder::Path => "has no saved file",
            Placeholder::Url => "has no video URL",
            Placeholder::Prompt => "has no prompt",
        }
    }
}

impl fmt::Display for Placeholder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{{}}}", self.name())
    }
}

/// Why an action cannot be used (when the config is loaded) or cannot run on a task.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ActionError {
    #[error(
        "[[actions]] \"{action}\": {{{name}}} is not a placeholder; the placeholders are {{id}} (reel's task id), \
         {{remote_id}} (the service's), {{path}}, {{url}} and {{prompt}}"
    )]
    UnknownPlaceholder { action: String, name: String },
    #[error(
        "[[actions]] \"{action}\": the command names no program; give the program and its arguments, as in \
         command = [\"mpv\", \"{{path}}\"]"
    )]
    NoProgram { action: String },
    #[error("[[actions]] \"{action}\": its key {key:?} cannot be typed; give a character, such as key = \"m\"")]
    Untypable { action: String, key: char },
    #[error("“{action}” needs {placeholder}, and task {id} {}", placeholder.lack())]
    Missing { action: String, placeholder: Placeholder, id: i64 },
}

/// A piece of one argument: text as written, or a `{name}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part<'a> {
    Text(&'a str),
    Slot(&'a str),
}

/// Splits an argument at its placeholders. A placeholder is a name of letters, digits and `_` in
/// braces; any other brace is text, so `awk '{print $1}'` stays as it is.
fn parts(arg: &str) -> Vec<Part<'_>> {
    let mut out = Vec::new();
    let mut rest = arg;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let len = after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(after.len());
        if len > 0 && after[len..].starts_with('}') {
            out.push(Part::Text(&rest[..open]));
            out.push(Part::Slot(&after[..len]));
            rest = &after[len + 1..];
        } else {
            out.push(Part::Text(&rest[..=open]));
            rest = after;
        }
    }
    out.push(Part::Text(rest));
    out
}

fn placeholder(action: &UserAction, name: &str) -> Result<Placeholder, ActionError> {
    Placeholder::by_name(name)
        .ok_or_else(|| ActionError::UnknownPlaceholder { action: action.name.clone(), name: name.to_string() })
}

/// Whether the config's action can ever run: a key that can be typed, a program, and only
/// placeholders reel knows (a typo such as `{file}` is refused, never passed on as text).
pub fn check(action: &UserAction) -> Result<(), ActionError> {
    if action.key.is_control() || action.key.is_whitespace() {
        return Err(ActionError::Untypable { action: action.name.clone(), key: action.key });
    }
    if action.command.first().is_none_or(|program| program.trim().is_empty()) {
        return Err(ActionError::NoProgram { action: action.name.clone() });
    }
    for arg in &action.command {
        for part in parts(arg) {
            if let Part::Slot(name) = part {
                placeholder(action, name)?;
            }
        }
    }
    Ok(())
}

/// The action's command for task `t`, each placeholder replaced in each argument (no shell is
/// involved). A placeholder the task has no value for refuses the whole command.
pub fn fill_command(action: &UserAction, t: &TaskRecord) -> Result<Vec<String>, ActionError> {
    check(action)?;
    action
        .command
        .iter()
        .map(|arg| {
            parts(arg)
                .into_iter()
                .map(|part| match part {
                    Part::Text(text) => Ok(text.to_string()),
                    Part::Slot(name) => {
                        let p = placeholder(action, name)?;
                        p.value(t).ok_or_else(|| ActionError::Missing {
                            action: action.name.clone(),
                            placeholder: p,
                            id: t.id,
                        })
                    }
                })
                .collect::<Result<String, _>>()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use reel_store::LocalState;
    use reel_store::fixtures::record;

    fn action(command: &[&str]) -> UserAction {
        UserAction { key: 'm', name: "mpv".into(), command: command.iter().map(|s| s.to_string()).collect() }
    }

    /// Task 12, downloaded, saved, with the service's id `task_00000012`.
    fn saved() -> TaskRecord {
        TaskRecord {
            file_path: Some("/videos/12.mp4".into()),
            url: Some("https://cdn.example/12.mp4".into()),
            ..record(12, LocalState::Downloaded)
        }
    }

    #[test]
    fn placeholders_are_filled_from_the_task() {
        let cases: [(&[&str], TaskRecord, &[&str]); 6] = [
            (&["mpv", "--fs", "{path}"], saved(), &["mpv", "--fs", "/videos/12.mp4"]),
            (&["open", "{url}"], saved(), &["open", "https://cdn.example/12.mp4"]),
            (&["echo", "{id}"], saved(), &["echo", "12"]),
            (&["echo", "{remote_id}"], saved(), &["echo", "task_00000012"]),
            (&["echo", "local {id}, remote {remote_id}"], saved(), &["echo", "local 12, remote task_00000012"]),
            (
                &["sh", "-c", "echo {prompt} | awk '{print $1}' {", "{}"],
                saved(),
                &["sh", "-c", "echo a red fox running through fresh snow at dawn | awk '{print $1}' {", "{}"],
            ),
        ];
        for (command, t, want) in cases {
            let want: Vec<String> = want.iter().map(|s| s.to_string()).collect();
            assert_eq!(fill_command(&action(command), &t), Ok(want), "{command:?}");
        }
    }

    #[test]
    fn a_value_the_task_lacks_refuses_the_command() {
        let queued = TaskRecord { remote_id: None, ..record(12, LocalState::Queued) };
        let unsaved = record(12, LocalState::InProgress);
        let cases: [(&[&str], TaskRecord, &str); 5] = [
            (&["mpv", "{path}"], unsaved.clone(), "“mpv” needs {path}, and task 12 has no saved file"),
            (&["open", "{url}"], unsaved.clone(), "“mpv” needs {url}, and task 12 has no video URL"),
            (
                &["echo", "{id}", "{remote_id}"],
                queued,
                "“mpv” needs {remote_id}, and task 12 has no id from the service (it was never accepted)",
            ),
            (
                &["mpv", "{path}"],
                TaskRecord { file_path: Some(String::new()), ..saved() },
                "“mpv” needs {path}, and task 12 has no saved file",
            ),
            (
                &["say", "{prompt}"],
                TaskRecord { prompt: String::new(), ..saved() },
                "“mpv” needs {prompt}, and task 12 has no prompt",
            ),
        ];
        for (command, t, want) in cases {
            assert_eq!(
                fill_command(&action(command), &t).map_err(|e| e.to_string()),
                Err(want.to_string()),
                "{command:?}"
            );
        }
    }

    #[test]
    fn actions_that_can_never_run_are_refused_naming_the_action() {
        let placeholders =
            "the placeholders are {id} (reel's task id), {remote_id} (the service's), {path}, {url} and {prompt}";
        let cases: [(UserAction, String); 6] = [
            (action(&["mpv", "{file}"]), format!("[[actions]] \"mpv\": {{file}} is not a placeholder; {placeholders}")),
            (action(&["mpv", "{Path}"]), format!("[[actions]] \"mpv\": {{Path}} is not a placeholder; {placeholders}")),
            (
                action(&["mpv", "--title={name}"]),
                format!("[[actions]] \"mpv\": {{name}} is not a placeholder; {placeholders}"),
            ),
            (
                action(&[]),
                "[[actions]] \"mpv\": the command names no program; give the program and its arguments, as in \
                 command = [\"mpv\", \"{path}\"]"
                    .to_string(),
            ),
            (
                action(&[" ", "{path}"]),
                "[[actions]] \"mpv\": the command names no program; give the program and its arguments, as in \
                 command = [\"mpv\", \"{path}\"]"
                    .to_string(),
            ),
            (
                UserAction { key: '\t', ..action(&["mpv", "{path}"]) },
                "[[actions]] \"mpv\": its key '\\t' cannot be typed; give a character, such as key = \"m\"".to_string(),
            ),
        ];
        for (a, want) in cases {
            assert_eq!(check(&a).map_err(|e| e.to_string()), Err(want.clone()), "{:?}", a.command);
            assert_eq!(fill_command(&a, &saved()).map_err(|e| e.to_string()), Err(want), "never run either");
        }
        assert_eq!(check(&action(&["mpv", "{path}", "{url}", "{id}", "{remote_id}", "{prompt}"])), Ok(()));
    }
}
