//! `reel models`: the catalog, as a table or JSON.

use std::io::Write;

use clap::Args;

use super::CliError;
use super::output::Output;
use crate::rules::{Catalog, catalog::Origin};
use crate::text::one_line;

#[derive(Debug, Args)]
pub struct ModelsArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// The table `reel models` prints.
pub fn table(catalog: &Catalog) -> String {
    let rows: Vec<[String; 5]> = catalog
        .entries()
        .iter()
        .map(|e| {
            [
                e.id.clone(),
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
    let header = ["MODEL", "FAMILY", "SECONDS", "FROM", "DESCRIPTION"].map(String::from);
    let mut widths = [0usize; 5];
    for row in std::iter::once(&header).chain(&rows) {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let cells: Vec<String> = row.iter().zip(widths).map(|(c, w)| format!("{c:<w$}")).collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

pub fn run(args: &ModelsArgs, catalog: &Catalog, out: &mut Output<impl Write>) -> Result<(), CliError> {
    if args.json {
        out.json(catalog.entries())?;
    } else {
        out.text(&table(catalog))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
        run(&ModelsArgs { json: true }, &Catalog::builtin(), &mut out).expect("writes");
        let v: serde_json::Value = serde_json::from_slice(&out.into_inner()).expect("json");
        assert_eq!(v[0]["id"], "acme/aurora-3.0/text-to-video");
        assert_eq!(v[0]["mode"], "text-to-video");
        assert_eq!(v[0]["duration"]["max"], 30);
    }
}
