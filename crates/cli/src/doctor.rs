//! `reel doctor`: checks a profile against its service without spending (GETs only, never a
//! POST): the key, what `/v1/models` lists, the base URL's path, the wire form and download
//! route where the answers tell, the clock; and prints the config lines to set.
//! The probes are here; what they mean is `verdict` (pure, tested by table).

mod verdict;

use std::io::Write;
use std::process::ExitCode;

use clap::Args;

use super::CliError;
use super::output::Output;
use reel_api::Client;
use reel_engine::config::{Settings, Target};
use reel_rules::catalog::Origin;
use reel_rules::text::one_line;
pub use verdict::{Report, Seen, Status, judge};

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Print JSON instead of lines.
    #[arg(long)]
    pub json: bool,
}

/// A task id no service has: its GET tells "not found" from "refused".
fn made_up_id() -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    format!("reel-doctor-{:x}", nanos & 0xffff_ffff_ffff)
}

async fn ask(client: &Client, path: &str, with_key: bool) -> verdict::Answered {
    client.probe(path, with_key).await.map_err(|e| e.to_string())
}

/// Every GET the doctor sends, one after the other (a handful; no service minds).
async fn look(client: &Client, settings: &Settings, base_url: &str) -> Seen {
    let id = made_up_id();
    let used = url::Url::parse(client.base_url()).ok();
    let origin = used.as_ref().map_or(String::new(), |u| format!("{}/", u.origin().ascii_serialization()));
    let has_path = used.as_ref().is_some_and(|u| u.path() != "/");
    let models = ask(client, "v1/models", true).await;
    let reached = models.is_ok();
    let later = |path: String, key: bool| async move {
        if reached { ask(client, &path, key).await } else { Err("not asked".into()) }
    };
    let models_no_key = later("v1/models".into(), false).await;
    let task = later(format!("v1/videos/{id}"), true).await;
    let content = later(format!("v1/videos/{id}/content"), true).await;
    let unrouted = later(format!("v1/{id}/reel-doctor"), true).await;
    let root_models = if has_path && reached { Some(ask(client, "/v1/models", true).await) } else { None };
    let mut config_models: Vec<String> =
        settings.catalog.entries().iter().filter(|e| e.origin == Origin::Config).map(|e| e.id.clone()).collect();
    if let Some(m) = settings.default_model.as_ref().filter(|m| !config_models.contains(m)) {
        // A short form (`aurora-3.0/t2v`) names a catalog model, not the service's id.
        if settings.catalog.get(m).is_none_or(|e| e.origin == Origin::Config) {
            config_models.extend(reel_rules::choose_model(m, &[]).ok());
        }
    }
    Seen {
        profile: settings.profile.clone(),
        base_url: base_url.to_string(),
        used_base: client.base_url().to_string(),
        origin,
        made_up_id: id,
        models,
        models_no_key,
        task,
        content,
        unrouted,
        root_models,
        local_unix: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64),
        config_models,
        known: settings.catalog.entries().iter().map(|e| e.id.clone()).collect(),
        wire: settings.wire,
    }
}

/// The report as lines: one per check, then what to set.
pub fn lines(r: &Report) -> String {
    let mut out = format!(
        "reel doctor: {}{}\n",
        r.profile.as_deref().map_or(String::new(), |p| format!("profile \"{}\", ", one_line(p))),
        one_line(&r.base_url)
    );
    for c in &r.checks {
        let mark = match c.status {
            Status::Ok => "ok",
            Status::NeedsSetting => "SET",
            Status::CannotTell => "?",
            Status::Note => "note",
        };
        out.push_str(&format!("  {mark:<4}  {:<9}  {}\n", c.topic, one_line(&c.detail)));
    }
    if !r.set.is_empty() {
        let table = r.profile.as_deref().map_or("[profiles.NAME]".to_string(), |p| format!("[profiles.{p}]"));
        out.push_str(&format!("\nSet in the config file (`reel --profile NAME doctor` checks again):\n{table}\n"));
        for line in &r.set {
            out.push_str(&format!("{line}\n"));
        }
    }
    if !r.optional.is_empty() {
        out.push_str("\nOptional, for reel to check more of the models it has no rules for (see README):\n");
        for line in &r.optional {
            out.push_str(&format!("{line}\n"));
        }
    }
    let verdict = match r.exit_code() {
        0 => "All is well.",
        1 => "Something needs setting (above).",
        _ => "The service cannot be reached.",
    };
    out.push_str(&format!("{verdict}\n"));
    out
}

/// The lines a user without any profile starts from.
const NO_PROFILE: &str = "reel doctor: no service is configured, so reel runs in demo mode against its simulator.
To use a service, add a profile to the config file (see README), for example:

default_profile = \"gw\"
[profiles.gw]
base_url = \"https://gateway.example.com\"
api_key_cmd = [\"pass\", \"show\", \"reel/gateway\"]

then run `reel doctor` again.
";

pub async fn run(args: &DoctorArgs, settings: &Settings, out: &mut Output<impl Write>) -> Result<ExitCode, CliError> {
    let Target::Remote { base_url, .. } = &settings.target else {
        if args.json {
            out.json(&serde_json::json!({"configured": false, "exit": 1}))?;
        } else {
            out.text(NO_PROFILE)?;
        }
        return Ok(ExitCode::from(1));
    };
    let (client, _) = reel_engine::session::service_client(settings).await?;
    let report = judge(&look(&client, settings, base_url).await);
    if args.json {
        out.json(&serde_json::json!({ "report": report, "exit": report.exit_code() }))?;
    } else {
        out.text(&lines(&report))?;
    }
    Ok(ExitCode::from(report.exit_code()))
}
