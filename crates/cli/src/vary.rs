//! `reel vary ID`: a new task from an old one's parameters, the flags given replacing them,
//! recorded as derived from it.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;

use super::CliError;
use super::output::Output;
use super::submit::{Delivery, model_of, read_prompt, send, usage};
use reel_engine::config::Settings;
use reel_engine::journal;
use reel_engine::session::Reach;
use reel_rules::Draft;
use reel_rules::{BadMedia, parse_media};

#[derive(Debug, Args)]
pub struct VaryArgs {
    /// Task id: local id, remote id, or a unique prefix of either.
    pub id: String,
    /// The new prompt; `-` reads it from standard input.
    #[arg(long, short = 'p', value_hint = clap::ValueHint::Other)]
    pub prompt: Option<String>,
    /// Another model: an id or a unique suffix of one (aurora-3.0/t2v).
    #[arg(long, short = 'm', value_hint = clap::ValueHint::Other)]
    pub model: Option<String>,
    /// What to avoid; an empty value clears the task's.
    #[arg(long, value_hint = clap::ValueHint::Other)]
    pub negative: Option<String>,
    /// Output seconds (-1 for automatic where the model allows it).
    #[arg(long, short = 's', allow_hyphen_values = true, value_hint = clap::ValueHint::Other)]
    pub seconds: Option<String>,
    /// 480P, 720P or 1080P.
    #[arg(long, value_hint = clap::ValueHint::Other)]
    pub resolution: Option<String>,
    /// 1:1, 16:9, 9:16, 4:3, 3:4 or adaptive.
    #[arg(long, value_hint = clap::ValueHint::Other)]
    pub ratio: Option<String>,
    /// Ask the service to add its watermark.
    #[arg(long, conflicts_with = "no_watermark")]
    pub watermark: bool,
    /// Ask for no watermark.
    #[arg(long)]
    pub no_watermark: bool,
    /// Reference media, replacing all of the task's: TYPE=URL|PATH[@SECONDS], as for submit.
    #[arg(long, value_name = "TYPE=URL|PATH[@SECONDS]")]
    pub media: Vec<String>,
    #[command(flatten)]
    pub delivery: Delivery,
}

impl VaryArgs {
    /// The task's draft with the flags given in place of its values. The model is resolved by
    /// the caller.
    pub fn apply(&self, mut draft: Draft, model: Option<String>, prompt: Option<String>) -> Result<Draft, BadMedia> {
        if let Some(m) = model {
            draft.model = m;
        }
        if let Some(p) = prompt {
            draft.prompt = p;
        }
        if let Some(n) = &self.negative {
            draft.negative_prompt = n.clone();
        }
        if let Some(s) = &self.seconds {
            draft.seconds = Some(s.clone());
        }
        if let Some(r) = &self.resolution {
            draft.resolution = Some(r.trim().to_ascii_uppercase());
        }
        if let Some(r) = &self.ratio {
            draft.ratio = Some(r.trim().to_ascii_lowercase());
        }
        if self.watermark || self.no_watermark {
            draft.watermark = Some(self.watermark);
        }
        if !self.media.is_empty() {
            draft.media = self.media.iter().map(|m| parse_media(m)).collect::<Result<_, _>>()?;
        }
        Ok(draft)
    }
}

pub async fn run(
    args: &VaryArgs,
    settings: &Settings,
    reach: &Reach,
    out: &mut Output<impl Write>,
) -> Result<ExitCode, CliError> {
    let task = super::reading::resolve_one(settings, reach, &args.id).await?;
    let prompt = match args.prompt.as_deref().map(|p| read_prompt(Some(p), std::io::stdin())).transpose() {
        Ok(p) => p,
        Err(e) => return Ok(usage(&e.to_string())),
    };
    let model = match args.model.as_deref().map(|m| model_of(Some(m), settings)).transpose() {
        Ok(m) => m,
        Err(e) => return Ok(usage(&e.to_string())),
    };
    match args.apply(journal::draft(&task), model, prompt) {
        Ok(draft) => send(draft, args.delivery.sending(Some(task.id)), settings, reach, out).await,
        Err(bad) => Ok(usage(&bad.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Debug, Parser)]
    struct Wrap {
        #[command(flatten)]
        args: VaryArgs,
    }

    fn base() -> Draft {
        Draft {
            model: "acme/aurora-3.0/text-to-video".into(),
            prompt: "a fox".into(),
            negative_prompt: "blur".into(),
            seconds: Some("5".into()),
            resolution: Some("720P".into()),
            ratio: Some("1:1".into()),
            watermark: Some(true),
            media: Vec::new(),
        }
    }

    #[test]
    fn flags_given_replace_the_task_s_values_and_only_those() {
        let vary = |argv: &[&str]| {
            let mut full = vec!["vary", "7"];
            full.extend_from_slice(argv);
            Wrap::try_parse_from(full).expect("parses").args.apply(base(), None, None).expect("applies")
        };
        assert_eq!(vary(&[]), base(), "nothing given, nothing changed");
        let d = vary(&["-s", "10", "--ratio", "16:9", "--no-watermark", "--negative", ""]);
        assert_eq!(d.seconds.as_deref(), Some("10"));
        assert_eq!(d.ratio.as_deref(), Some("16:9"));
        assert_eq!(d.watermark, Some(false));
        assert_eq!(d.negative_prompt, "");
        assert_eq!((d.prompt.as_str(), d.resolution.as_deref()), ("a fox", Some("720P")));
        let d = vary(&["--resolution", "1080p", "--media", "first_frame=https://x.org/a.png"]);
        assert_eq!(d.resolution.as_deref(), Some("1080P"));
        assert_eq!(d.media.len(), 1);
        assert!(Wrap::try_parse_from(["vary", "7", "--watermark", "--no-watermark"]).is_err());
    }
}
