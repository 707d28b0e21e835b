//! `reel models`: the catalog, as a table or JSON; with `--service`, what the service lists
//! (`GET /v1/models`), each marked with the rules reel has for it.

use std::io::Write;

use clap::Args;
use serde::Serialize;

use super::CliError;
use super::output::Output;
use reel_api::ModelList;
use reel_engine::config::Settings;
use reel_rules::text::one_line;
use reel_rules::{Catalog, Rules, catalog::Origin};

#[derive(Debug, Args)]
pub struct ModelsArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// List the models the service offers (GET /v1/models with the profile's key), marking
    /// those reel has no rules for.
    #[arg(long)]
    pub service: bool,
}

/// Rows under a header, each column as wide as its widest cell.
fn columns(header: &[&str], rows: &[Vec<String>]) -> String {
    let header: Vec<String> = header.iter().map(|h| h.to_string()).collect();
    let mut widths = vec![0usize; header.len()];
    for row in std::iter::once(&header).chain(rows) {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(rows) {
        let cells: Vec<String> = row.iter().zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// The table `reel models` prints, and the config's entries it cannot use.
pub fn table(catalog: &Catalog) -> String {
    let rows: Vec<Vec<String>> = catalog
        .entries()
        .iter()
        .map(|e| {
            vec![
                one_line(&e.id),
                e.mode.to_string(),
                e.family.map_or("-".into(), |f| format!("{f:?}")),
                e.duration.to_string(),
                match e.origin {
                    Origin::Builtin => "built-in".into(),
                    Origin::Config => "config".into(),
                },
                e.description.as_deref().map(one_line).unwrap_or_default(),
            ]
        })
        .collect();
    let mut out = columns(&["MODEL", "MODE", "FAMILY", "SECONDS", "FROM", "DESCRIPTION"], &rows);
    if !catalog.broken().is_empty() {
        out.push_str("\nBroken entries (the models they name cannot be used until they are fixed):\n");
        for b in catalog.broken() {
            out.push_str(&format!("  {}\n", one_line(&b.to_string())));
        }
    }
    out
}

/// One model the service lists, with what reel knows of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Offered {
    pub id: String,
    pub owned_by: Option<String>,
    /// reel has an entry for it: its mode, seconds and media are checked.
    pub rules: bool,
    /// Its mode, where reel knows it (from its entry or its id).
    pub mode: Option<String>,
    pub seconds: Option<String>,
}

/// What the service lists, against the catalog; and the config's models it does not list.
pub fn offered(list: &ModelList, catalog: &Catalog) -> (Vec<Offered>, Vec<String>) {
    let rows = list
        .models
        .iter()
        .map(|m| {
            let (rules, seconds) = match catalog.rules(&m.id) {
                Rules::Known(e) => (true, Some(e.duration.to_string())),
                _ => (false, None),
            };
            Offered {
                id: m.id.clone(),
                owned_by: m.owned_by.clone(),
                rules,
                mode: catalog.mode(&m.id).map(|m| m.to_string()),
                seconds,
            }
        })
        .collect();
    let unlisted = catalog
        .entries()
        .iter()
        .filter(|e| e.origin == Origin::Config && !list.lists(&e.id))
        .map(|e| e.id.clone())
        .collect();
    (rows, unlisted)
}

pub fn service_table(base_url: &str, list: &ModelList, catalog: &Catalog) -> String {
    let (rows, unlisted) = offered(list, catalog);
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|o| {
            let rules = match (&o.seconds, &o.mode) {
                (Some(s), Some(m)) => format!("{m}, {s}"),
                (_, Some(m)) => format!("none ({m} by its id): general checks only"),
                _ => "none: general checks only".into(),
            };
            vec![one_line(&o.id), rules, o.owned_by.as_deref().map(one_line).unwrap_or_default()]
        })
        .collect();
    let mut out = format!("{} lists {} models:\n", one_line(base_url), rows.len());
    out.push_str(&columns(&["MODEL", "RULES", "OWNED BY"], &cells));
    if list.left_out > 0 {
        out.push_str(&format!("({} entries left out: ids reel cannot send)\n", list.left_out));
    }
    if rows.iter().any(|o| !o.rules) {
        out.push_str(
            "\nModels without rules can be sent; only the prompt, the media's shape and the widest seconds are checked. \
             Add a [[models]] entry (see README) for reel to check more.\n",
        );
    }
    if !unlisted.is_empty() {
        out.push_str(&format!("\nThe config declares models the service does not list: {}\n", unlisted.join(", ")));
    }
    out
}

pub async fn run(args: &ModelsArgs, settings: &Settings, out: &mut Output<impl Write>) -> Result<(), CliError> {
    let catalog = &settings.catalog;
    if !args.service {
        return if args.json { Ok(out.json(catalog.entries())?) } else { Ok(out.text(&table(catalog))?) };
    }
    let (client, _sim) = reel_engine::session::service_client(settings).await?;
    let list = client.list_models().await.map_err(|e| {
        CliError::Usage(format!("GET {}v1/models: {e} (`reel doctor` checks the profile)", client.base_url()))
    })?;
    if args.json {
        let (models, unlisted) = offered(&list, catalog);
        let value = serde_json::json!({
            "base_url": client.base_url(),
            "models": models,
            "left_out": list.left_out,
            "config_models_not_listed": unlisted,
        });
        out.json(&value)?;
    } else {
        out.text(&service_table(client.base_url(), &list, catalog))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use reel_api::ListedModel;
    use reel_rules::Declared;

    #[test]
    fn table_lists_every_model_with_its_range() {
        let text = table(&Catalog::builtin());
        assert!(text.starts_with("MODEL"));
        assert_eq!(text.lines().count(), Catalog::builtin().entries().len() + 1);
        assert!(text.contains("acme/aurora-3.0/text-to-video") && text.contains("4 to 30 s, or -1 for automatic"));
    }

    #[test]
    fn json_has_ids_modes_and_durations() {
        let mut out = Output::new(Vec::new(), "test");
        out.json(Catalog::builtin().entries()).expect("writes");
        let v: serde_json::Value = serde_json::from_slice(&out.into_inner()).expect("json");
        assert_eq!(v[0]["id"], "acme/aurora-3.0/text-to-video");
        assert_eq!(v[0]["mode"], "text-to-video");
        assert_eq!(v[0]["duration"]["max"], 30);
    }

    fn declared(text: &str) -> Vec<Declared> {
        reel_rules::catalog::declare(text).expect("toml")
    }

    #[test]
    fn broken_entries_are_said_below_the_good_ones() {
        let cat = Catalog::builtin().with_extra(&declared(
            "[[models]]\nid = \"sora-2\"\nmode = \"text-to-video\"\nseconds = [4, 8, 12]\n\
             [[models]]\nid = \"wan2.7-t2v\"\nseconds = \"ten\"",
        ));
        let text = table(&cat);
        assert!(text.contains("sora-2") && text.contains("4, 8 or 12 s"), "{text}");
        assert!(text.contains("Broken entries") && text.contains("[[models]] entry 2"), "{text}");
        assert!(text.contains("model \"wan2.7-t2v\""), "{text}");
    }

    #[test]
    fn the_service_list_is_marked_with_the_rules_reel_has() {
        let cat = Catalog::builtin().with_extra(&declared(
            "[[models]]\nid = \"sora-2\"\nmode = \"text-to-video\"\nseconds = [4, 8, 12]\n\
             [[models]]\nid = \"sora-3\"\nmode = \"text-to-video\"\nseconds = [4]",
        ));
        let listed = |id: &str| ListedModel { id: id.into(), owned_by: Some("openai".into()) };
        let list = ModelList {
            models: vec![listed("sora-2"), listed("wan2.5-t2v-preview"), listed("kling-v2-1")],
            left_out: 0,
        };
        let (rows, unlisted) = offered(&list, &cat);
        let marks: Vec<(&str, bool, Option<&str>)> =
            rows.iter().map(|o| (o.id.as_str(), o.rules, o.mode.as_deref())).collect();
        assert_eq!(
            marks,
            [
                ("sora-2", true, Some("text-to-video")),
                ("wan2.5-t2v-preview", false, Some("text-to-video")),
                ("kling-v2-1", false, None)
            ]
        );
        assert_eq!(unlisted, ["sora-3"]);
        let text = service_table("http://gw/", &list, &cat);
        assert!(text.contains("none: general checks only") && text.contains("does not list: sora-3"), "{text}");
    }
}
