//! What `reel doctor` makes of the service's answers: plain data in, checks and the config
//! lines to set out. No I/O; every case is tested with a table.

use serde::Serialize;
use serde_json::Value;

use reel_api::models::read_list;
use reel_api::probe::Probe;
use reel_api::{BodyForm, ModelList, Wire};

/// A probe's outcome: the answer, or why there was none.
pub type Answered = Result<Probe, String>;

/// Everything the doctor asked, and the local facts to judge it by.
#[derive(Debug, Clone)]
pub struct Seen {
    pub profile: Option<String>,
    /// The base URL as configured, and as used (normalized, ending in `/`).
    pub base_url: String,
    pub used_base: String,
    /// The origin (`scheme://host:port/`), to suggest when the base's path is wrong.
    pub origin: String,
    /// The task id the doctor made up for its GETs (no task has it).
    pub made_up_id: String,
    /// `GET v1/models` with the key, and without it.
    pub models: Answered,
    pub models_no_key: Answered,
    /// `GET v1/videos/{made_up_id}`, `…/{made_up_id}/content` and a path no service routes.
    pub task: Answered,
    pub content: Answered,
    pub unrouted: Answered,
    /// `GET /v1/models` at the origin's root, when the base URL has a path.
    pub root_models: Option<Answered>,
    /// The local clock, Unix seconds.
    pub local_unix: i64,
    /// The models the config declares (and `[defaults] model`), which the service should list.
    pub config_models: Vec<String>,
    /// The catalog's ids: the models reel has rules for.
    pub known: Vec<String>,
    pub wire: Wire,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Ok,
    /// Something to set or fix: the exit code is 1.
    NeedsSetting,
    CannotTell,
    Note,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Check {
    pub topic: &'static str,
    pub status: Status,
    pub detail: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub profile: Option<String>,
    pub base_url: String,
    pub reached: bool,
    pub checks: Vec<Check>,
    /// Lines to paste under the profile's table (`[profiles.NAME]`).
    pub set: Vec<String>,
    /// Optional `[[models]]` entries for listed models reel has no rules for.
    pub optional: Vec<String>,
    pub listed: Option<ModelList>,
}

impl Report {
    /// 0: all is well; 1: something needs setting; 2: the service cannot be reached.
    pub fn exit_code(&self) -> u8 {
        if !self.reached {
            2
        } else if self.checks.iter().any(|c| c.status == Status::NeedsSetting) {
            1
        } else {
            0
        }
    }
}

/// How many listed models without rules get a `[[models]]` entry to start from.
const STUBS: usize = 3;

fn answer(a: &Answered) -> Option<&Probe> {
    a.as_ref().ok()
}

fn status(a: &Answered) -> Option<u16> {
    answer(a).map(|p| p.status)
}

fn refused(s: Option<u16>) -> bool {
    matches!(s, Some(401 | 403))
}

fn error_field<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    v.get("error").and_then(|e| e.get(key)).or_else(|| v.get(key))
}

/// What an answer is, without what changes between two requests (ids, numbers): two paths a
/// service does not route answer alike, a route it has answers otherwise.
pub fn shape(p: &Probe, made_up_id: &str) -> String {
    let text = match p.json() {
        Some(v) => {
            let field = |k: &str| error_field(&v, k).map(|x| x.to_string()).unwrap_or_default();
            format!("{} {} {}", field("code"), field("type"), field("message"))
        }
        None => String::from_utf8_lossy(&p.body[..p.body.len().min(200)]).into_owned(),
    };
    let text = text.replace(made_up_id, "ID").replace("/content", "");
    let text: String = text.chars().filter(|c| !c.is_ascii_digit()).collect();
    format!("{} {}", p.status, text)
}

/// Seconds the service's clock is ahead of ours, from its `Date` header.
pub fn clock_offset(p: &Probe, local_unix: i64) -> Option<i64> {
    let date = httpdate::parse_http_date(p.header("date")?).ok()?;
    let unix = date.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs() as i64;
    Some(unix - local_unix)
}

/// OpenAI's own API: its version headers, or its error shape (`type` and `param`).
fn says_openai(p: &Probe) -> bool {
    p.header("openai-version").is_some()
        || p.header("openai-organization").is_some()
        || p.json().is_some_and(|v| {
            v.get("error").is_some_and(|e| {
                e.get("type").and_then(Value::as_str) == Some("invalid_request_error") && e.get("param").is_some()
            })
        })
}

/// new-api and its forks: its request id header, its error type, its task error code.
fn says_new_api(p: &Probe) -> bool {
    p.header("x-oneapi-request-id").is_some()
        || p.json().is_some_and(|v| {
            error_field(&v, "type").and_then(Value::as_str) == Some("new_api_error")
                || error_field(&v, "code").and_then(Value::as_str) == Some("task_not_exist")
        })
}

struct Out {
    checks: Vec<Check>,
    set: Vec<String>,
}

impl Out {
    fn check(&mut self, topic: &'static str, status: Status, detail: String) {
        self.checks.push(Check { topic, status, detail });
    }
}

pub fn judge(seen: &Seen) -> Report {
    let mut out = Out { checks: Vec::new(), set: Vec::new() };
    let mut report = Report {
        profile: seen.profile.clone(),
        base_url: seen.used_base.clone(),
        reached: true,
        checks: Vec::new(),
        set: Vec::new(),
        optional: Vec::new(),
        listed: None,
    };
    if let Err(why) = &seen.models {
        report.reached = false;
        out.check("service", Status::NeedsSetting, format!("cannot reach {}: {why}", seen.used_base));
        report.checks = out.checks;
        return report;
    }
    let list = answer(&seen.models)
        .filter(|p| (200..300).contains(&p.status))
        .and_then(|p| p.json())
        .and_then(|v| read_list(&v));
    key(seen, &mut out);
    let routed = base_path(seen, &mut out);
    if routed {
        models(seen, list.as_ref(), &mut out, &mut report.optional);
        wire(seen, &mut out);
        download(seen, &mut out);
    }
    clock(seen, &mut out);
    report.checks = out.checks;
    report.set = out.set;
    report.listed = list;
    report
}

fn key(seen: &Seen, out: &mut Out) {
    let (with, without, task) = (status(&seen.models), status(&seen.models_no_key), status(&seen.task));
    // A made-up id "not found" says the key was taken only where the task route exists.
    let routed = match (answer(&seen.task), answer(&seen.unrouted)) {
        (Some(t), Some(u)) => shape(t, &seen.made_up_id) != shape(u, &seen.made_up_id),
        _ => false,
    };
    let key_line = "api_key_cmd = [\"pass\", \"show\", \"reel/api-key\"]  # or api_key, or REEL_API_KEY";
    let refused_by = |what: &str, status: u16, out: &mut Out| {
        out.check(
            "key",
            Status::NeedsSetting,
            format!("refused: {what} answers HTTP {status} with it; set the key the service gave you"),
        );
        out.set.push(key_line.to_string());
    };
    match (with, without, task) {
        (Some(s), ..) if refused(Some(s)) => refused_by("GET /v1/models", s, out),
        (_, _, Some(s)) if refused(Some(s)) => refused_by("GET /v1/videos/{id}", s, out),
        (Some(200..=299), Some(n), _) if refused(Some(n)) => {
            out.check("key", Status::Ok, format!("accepted: /v1/models answers with it and HTTP {n} without it"))
        }
        (_, _, Some(404 | 400)) if routed && (answer(&seen.task).is_some_and(says_new_api) || task == Some(404)) => {
            out.check("key", Status::Ok, "accepted: a made-up task id is \"not found\", not refused".into())
        }
        (Some(200..=299), ..) => out.check(
            "key",
            Status::CannotTell,
            "the service answers without any key too, so its answers say nothing of this one".into(),
        ),
        _ => out.check(
            "key",
            Status::CannotTell,
            format!("no answer tells: /v1/models HTTP {}, a made-up task HTTP {}", show(with), show(task)),
        ),
    }
}

fn show(s: Option<u16>) -> String {
    s.map_or("-".into(), |s| s.to_string())
}

/// Whether the API answers under the base URL; says what to set when it does not.
fn base_path(seen: &Seen, out: &mut Out) -> bool {
    let configured = seen.base_url.trim().trim_end_matches('/');
    if configured.ends_with("/v1") {
        out.check(
            "base URL",
            Status::Note,
            format!(
                "reel drops the trailing /v1 (its paths carry it): base_url = \"{}\" says the same",
                seen.used_base
            ),
        );
    }
    let not_found = matches!(status(&seen.task), Some(400 | 404 | 405));
    let alike = match (answer(&seen.task), answer(&seen.unrouted)) {
        (Some(t), Some(u)) => shape(t, &seen.made_up_id) == shape(u, &seen.made_up_id),
        _ => false,
    };
    let listed = matches!(status(&seen.models), Some(200..=299 | 401 | 403));
    if !(not_found && alike) || listed {
        out.check("base URL", Status::Ok, format!("the API answers under {}", seen.used_base));
        return true;
    }
    let root = seen.root_models.as_ref().and_then(status);
    if matches!(root, Some(200..=299 | 401 | 403)) {
        out.check(
            "base URL",
            Status::NeedsSetting,
            format!(
                "nothing of the API answers under {} (its paths answer as unknown ones), but {}v1/models does: \
                 the base URL has a path too many",
                seen.used_base, seen.origin
            ),
        );
        out.set.push(format!("base_url = \"{}\"", seen.origin.trim_end_matches('/')));
    } else {
        out.check(
            "base URL",
            Status::NeedsSetting,
            format!(
                "nothing of the API answers under {}: GET v1/videos/{{id}} answers as an unknown path does; check \
                 base_url (the part before /v1/videos)",
                seen.used_base
            ),
        );
    }
    false
}

fn models(seen: &Seen, list: Option<&ModelList>, out: &mut Out, optional: &mut Vec<String>) {
    let Some(list) = list else {
        let detail = match status(&seen.models) {
            Some(404 | 405) => "the service has no GET /v1/models: the catalog's models are the list".to_string(),
            Some(s) if refused(Some(s)) => "not listed: the key was refused".to_string(),
            Some(s) => format!("GET /v1/models answered HTTP {s} with no list reel can read"),
            None => "no answer".to_string(),
        };
        out.check("models", Status::CannotTell, detail);
        return;
    };
    out.check("models", Status::Ok, format!("the service lists {} models", list.models.len()));
    let missing: Vec<&str> = seen.config_models.iter().filter(|id| !list.lists(id)).map(String::as_str).collect();
    if !missing.is_empty() {
        let some: Vec<&str> = list.models.iter().take(8).map(|m| m.id.as_str()).collect();
        out.check(
            "models",
            Status::NeedsSetting,
            format!(
                "the config names models the service does not list: {}; fix their ids (it lists {}{})",
                missing.join(", "),
                some.join(", "),
                if list.models.len() > some.len() { ", …" } else { "" }
            ),
        );
    }
    let unknown: Vec<&str> =
        list.models.iter().map(|m| m.id.as_str()).filter(|id| !seen.known.iter().any(|k| k == id)).collect();
    if !unknown.is_empty() {
        out.check(
            "models",
            Status::Note,
            format!(
                "reel has no rules for {} of them (they can be sent, with general checks only): {}",
                unknown.len(),
                unknown.iter().take(8).copied().collect::<Vec<_>>().join(", ")
            ),
        );
        for id in unknown.iter().take(STUBS) {
            let mode = reel_rules::model_name::mode_in(id).map_or("text-to-video", |m| m.as_str());
            optional.extend([
                "[[models]]".to_string(),
                format!("id = \"{id}\""),
                format!("mode = \"{mode}\""),
                "seconds = [4, 8, 12]  # replace with what the vendor documents (or min_seconds and max_seconds)"
                    .to_string(),
                String::new(),
            ]);
        }
    }
}

fn wire(seen: &Seen, out: &mut Out) {
    let answers: Vec<&Probe> =
        [&seen.models, &seen.models_no_key, &seen.task, &seen.content].into_iter().filter_map(answer).collect();
    if answers.iter().any(|p| says_openai(p)) {
        if seen.wire.form == BodyForm::Openai {
            out.check("wire form", Status::Ok, "OpenAI's Videos API, and wire = \"openai\" is set".into());
        } else {
            out.check(
                "wire form",
                Status::NeedsSetting,
                format!(
                    "the service answers as OpenAI's API does (its headers or its error shape): it takes OpenAI's body \
                     (size, string seconds), not reel's {}",
                    seen.wire
                ),
            );
            out.set.push("wire = \"openai\"".into());
        }
    } else if answers.iter().any(|p| says_new_api(p)) {
        out.check(
            "wire form",
            Status::CannotTell,
            "a new-api gateway: the body it wants depends on its upstream, which no GET shows. If resolution or \
             ratio do not arrive, set wire = \"top_level\"; if it answers \"cannot unmarshal number into … seconds\", \
             set seconds_as_string = true"
                .into(),
        );
    } else {
        out.check(
            "wire form",
            Status::CannotTell,
            format!("cannot tell without sending a task; reel sends {} (the spec's form is the default)", seen.wire),
        );
    }
}

fn download(seen: &Seen, out: &mut Out) {
    match (answer(&seen.content), answer(&seen.unrouted)) {
        (Some(c), _) if refused(Some(c.status)) => out.check(
            "download",
            Status::CannotTell,
            format!("GET /v1/videos/{{id}}/content is refused (HTTP {}) for a made-up id", c.status),
        ),
        (Some(c), Some(u)) if shape(c, &seen.made_up_id) != shape(u, &seen.made_up_id) => out.check(
            "download",
            Status::Ok,
            "the service has GET /v1/videos/{id}/content: a task without a usable URL is fetched there, with the key"
                .into(),
        ),
        (Some(_), Some(_)) => out.check(
            "download",
            Status::Ok,
            "no /v1/videos/{id}/content route: files come from the URL each finished task carries (the spec's way)"
                .into(),
        ),
        _ => out.check("download", Status::CannotTell, "no answer tells which route files come from".into()),
    }
}

fn clock(seen: &Seen, out: &mut Out) {
    let offset =
        [&seen.models, &seen.task].into_iter().filter_map(answer).find_map(|p| clock_offset(p, seen.local_unix));
    match offset {
        None => out.check("clock", Status::CannotTell, "the service sends no Date header".into()),
        Some(n) if n.abs() <= 5 => out.check("clock", Status::Ok, format!("in step with the service's ({n:+} s)")),
        Some(n) => {
            let (how, away) = (if n > 0 { "behind" } else { "ahead of" }, n.abs());
            let status = if away > 120 { Status::NeedsSetting } else { Status::Note };
            out.check(
                "clock",
                status,
                format!(
                    "this machine's clock is {away} s {how} the service's; URL lifetimes and dated Retry-After are read \
                     against it: set the system clock (NTP)"
                ),
            );
        }
    }
}

#[cfg(test)]
#[path = "verdict_tests.rs"]
mod tests;
