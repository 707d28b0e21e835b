//! The tools' arguments: their JSON schemas and descriptions (what an agent reads), and the
//! pure step from a submission's arguments to the drafts the shared rules validate.

use schemars::JsonSchema;
use serde::Deserialize;
use thiserror::Error;

use reel_rules::{Catalog, Draft, MediaDraft, choose_model, is_local};
use reel_store::review::{BadReview, Change, checked};

/// The tag prefix of agents' tasks (the engine tags them as it admits them).
pub use reel_engine::AGENT_PREFIX;
/// Search results when the call does not say, and the most it may ask for.
pub const SEARCH_DEFAULT: usize = 20;
pub const SEARCH_MAX: usize = 200;

/// One value or a list of them; a list makes a grid.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum OneOrMany<T> {
    One(T),
    Many(Vec<T>),
}

impl<T: Clone> OneOrMany<T> {
    fn values(&self) -> Vec<T> {
        match self {
            OneOrMany::One(v) => vec![v.clone()],
            OneOrMany::Many(v) => v.clone(),
        }
    }
}

/// A reference media item: always a URL (http or https), never a local file.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MediaItem {
    /// first_frame (image-to-video), or reference_image, reference_video, reference_audio
    /// (reference-to-video).
    #[serde(rename = "type")]
    pub kind: String,
    /// An http(s) URL the service can fetch; local paths are refused.
    pub url: String,
    /// For reference_video and reference_audio: the item's duration in seconds (billed for
    /// reference videos; the total per type is limited).
    pub seconds: Option<f64>,
}

/// One submission, or a small grid of them (every ratio × every duration).
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SubmissionArgs {
    /// A model id from the `models` tool, or a unique suffix of one ("aurora-3.0/t2v").
    pub model: String,
    /// What to render.
    pub prompt: String,
    /// What to keep out of the video.
    pub negative_prompt: Option<String>,
    /// Output duration in whole seconds (-1: automatic, where the model allows it); a list
    /// makes a grid. Default 5.
    pub seconds: Option<OneOrMany<i64>>,
    /// 480P, 720P or 1080P. Default 720P.
    pub resolution: Option<String>,
    /// 1:1, 16:9, 9:16, 4:3, 3:4 or adaptive; a list makes a grid. Default 1:1.
    pub ratio: Option<OneOrMany<String>>,
    /// Whether the service adds its watermark. Default false.
    pub watermark: Option<bool>,
    /// Reference media, by URL.
    #[serde(default)]
    pub media: Vec<MediaItem>,
    /// Copies of each combination. Default 1.
    pub copies: Option<u32>,
}

/// No arguments (the `models` tool): anything given is refused as an unknown argument.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

/// Task ids as reel numbers them (the `id` of every task in a result).
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IdsArgs {
    /// One local task id or several.
    pub ids: OneOrMany<i64>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitArgs {
    /// The local task ids to wait for.
    pub ids: OneOrMany<i64>,
    /// Give up after this many seconds (the tasks go on; call wait again). Default 600.
    pub timeout_secs: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// The dashboard's history search: words matched by prefix against prompts, and the terms
    /// rating:>=4 (rating:5, rating:<3, …), tag:NAME and picked (blank: every task).
    #[serde(default)]
    pub query: String,
    /// Only this model (exact catalog id).
    pub model: Option<String>,
    /// Only tasks in this state: waiting, submitting, queued, in_progress, completed,
    /// downloading, downloaded, failed, rejected, submit_unknown, expired, download_failed,
    /// stalled, unrecognized or lost.
    pub state: Option<String>,
    /// At most this many tasks, newest first. Default 20, at most 200.
    pub limit: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShowArgs {
    /// The local task id.
    pub id: i64,
}

#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RateArgs {
    /// The local task id.
    pub id: i64,
    /// 1 to 5; 0 removes the rating.
    pub rating: u8,
}

#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TagArgs {
    /// The local task id.
    pub id: i64,
    /// Tags: short single words (no spaces or commas), kept lowercase.
    pub tags: Vec<String>,
    /// Remove these tags instead of adding them. Default false.
    #[serde(default)]
    pub remove: bool,
}

#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PickArgs {
    /// The local task id.
    pub id: i64,
    /// Pick it (the winner of its batch or comparison), or with false unpick it. Default true.
    pub picked: Option<bool>,
}

/// The ids a call names, each once, in order; at least one (an empty list would answer
/// "nothing" as if it were a success).
pub fn ids(ids: &OneOrMany<i64>) -> Result<Vec<i64>, ArgsError> {
    let mut out = Vec::new();
    for id in ids.values() {
        if !out.contains(&id) {
            out.push(id);
        }
    }
    if out.is_empty() { Err(ArgsError::EmptyList { field: "ids" }) } else { Ok(out) }
}

/// How many tasks a search returns: refused outside 1 to [`SEARCH_MAX`] rather than quietly
/// returning fewer than asked.
pub fn search_limit(limit: Option<usize>) -> Result<usize, ArgsError> {
    match limit {
        None => Ok(SEARCH_DEFAULT),
        Some(n) if (1..=SEARCH_MAX).contains(&n) => Ok(n),
        Some(n) => Err(ArgsError::Limit(n)),
    }
}

/// The review change a rate, tag or pick call asks for, checked here (the engine checks it
/// again) so that the error names the argument. Tags starting `agent-` are reel's label of
/// agents' tasks, counted by the daily limits: no agent may add or remove one.
pub fn review_change(call: ReviewCall) -> Result<Change, ArgsError> {
    let (change, field) = match call {
        ReviewCall::Rate(0) => (Change::Rate(None), "rating"),
        ReviewCall::Rate(n) => (Change::Rate(Some(n)), "rating"),
        ReviewCall::Pick(p) => (Change::Pick(p), "picked"),
        ReviewCall::Tag { tags, remove } => {
            if let Some(t) = tags.iter().find(|t| t.trim().to_lowercase().starts_with(AGENT_PREFIX)) {
                return Err(ArgsError::AgentTag(t.clone()));
            }
            (if remove { Change::Untag(tags) } else { Change::Tag(tags) }, "tags")
        }
    };
    checked(&change).map_err(|rule| ArgsError::Review { field, rule })?;
    Ok(change)
}

/// A review call's arguments, as the tools take them.
#[derive(Debug, Clone, PartialEq)]
pub enum ReviewCall {
    Rate(u8),
    Pick(bool),
    Tag { tags: Vec<String>, remove: bool },
}

/// A submission an agent may not make, named by field and rule.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ArgsError {
    #[error("model: {0}")]
    Model(String),
    #[error(
        "media[{index}].url \"{url}\" is a local file; agents give media as http(s) URLs (reel reads no file outside \
         its data folder for an agent)"
    )]
    LocalMedia { index: usize, url: String },
    #[error("{field}: an empty list; give at least one value")]
    EmptyList { field: &'static str },
    #[error("copies: {0} is not allowed; give 1 or more")]
    Copies(u32),
    #[error("limit: {0} is not allowed; give 1 to {SEARCH_MAX} (a search returns at most {SEARCH_MAX} tasks)")]
    Limit(usize),
    #[error("{field}: {rule}")]
    Review { field: &'static str, rule: BadReview },
    #[error(
        "tags: \"{0}\" starts with agent-, reel's own label of the tasks agents send (the [agents] daily limits count \
         them); an agent cannot add or remove it"
    )]
    AgentTag(String),
}

/// The drafts of a submission, one per ratio × duration, and the copies of each. The model is
/// resolved against the catalog as `reel submit` resolves it (a unique suffix will do).
pub fn drafts(args: &SubmissionArgs, catalog: &Catalog) -> Result<(Vec<Draft>, u32), ArgsError> {
    let known: Vec<&str> = catalog.entries().iter().map(|e| e.id.as_str()).collect();
    let model = choose_model(&args.model, &known).map_err(|e| ArgsError::Model(e.to_string()))?;
    let copies = args.copies.unwrap_or(1);
    if copies == 0 {
        return Err(ArgsError::Copies(copies));
    }
    let mut media = Vec::new();
    for (index, m) in args.media.iter().enumerate() {
        if is_local(m.url.trim()) {
            return Err(ArgsError::LocalMedia { index, url: m.url.clone() });
        }
        media.push(MediaDraft::sent(m.kind.trim().to_string(), m.url.trim(), m.seconds, None));
    }
    let listed = |v: Option<Vec<String>>, field| match v {
        Some(v) if v.is_empty() => Err(ArgsError::EmptyList { field }),
        Some(v) => Ok(v.into_iter().map(Some).collect()),
        None => Ok(vec![None]),
    };
    let ratios = listed(args.ratio.as_ref().map(OneOrMany::values), "ratio")?;
    let seconds =
        listed(args.seconds.as_ref().map(|s| s.values().iter().map(ToString::to_string).collect()), "seconds")?;
    let mut out = Vec::new();
    for ratio in &ratios {
        for secs in &seconds {
            out.push(Draft {
                model: model.clone(),
                prompt: args.prompt.clone(),
                negative_prompt: args.negative_prompt.clone().unwrap_or_default(),
                seconds: secs.clone(),
                resolution: args.resolution.as_deref().map(|r| r.trim().to_ascii_uppercase()),
                ratio: ratio.as_deref().map(|r| r.trim().to_ascii_lowercase()),
                watermark: Some(args.watermark.unwrap_or(false)),
                media: media.clone(),
            });
        }
    }
    Ok((out, copies))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(json: serde_json::Value) -> SubmissionArgs {
        serde_json::from_value(json).expect("arguments parse")
    }

    #[test]
    fn arguments_become_drafts_one_per_ratio_and_duration() {
        let catalog = Catalog::builtin();
        // (arguments, Ok((drafts, copies, model)) or Err(words of the error))
        type Want<'a> = Result<(usize, u32, &'a str), &'a str>;
        let cases: &[(serde_json::Value, Want)] = &[
            (
                serde_json::json!({"model": "aurora-3.0/t2v", "prompt": "a fox"}),
                Ok((1, 1, "acme/aurora-3.0/text-to-video")),
            ),
            (
                serde_json::json!({"model": "acme/aurora-3.0/text-to-video", "prompt": "a fox", "ratio": ["16:9", "9:16"], "seconds": [5, 10, 15], "copies": 2}),
                Ok((6, 2, "acme/aurora-3.0/text-to-video")),
            ),
            (
                serde_json::json!({"model": "aurora-3.0/t2v", "prompt": "a fox", "ratio": "16:9", "seconds": 8}),
                Ok((1, 1, "acme/aurora-3.0/text-to-video")),
            ),
            (serde_json::json!({"model": "t2v", "prompt": "a fox"}), Err("model: ")),
            (serde_json::json!({"model": "nothing-like/t2v", "prompt": "a fox"}), Err("model: ")),
            // Any other id is the service's to know: sent as given.
            (serde_json::json!({"model": "sora-2", "prompt": "a fox"}), Ok((1, 1, "sora-2"))),
            (
                serde_json::json!({"model": "aurora-3.0/t2v", "prompt": "a fox", "ratio": []}),
                Err("ratio: an empty list"),
            ),
            (serde_json::json!({"model": "aurora-3.0/t2v", "prompt": "a fox", "copies": 0}), Err("copies: 0")),
            (
                serde_json::json!({"model": "aurora-3.0/i2v", "prompt": "a fox", "media": [{"type": "first_frame", "url": "/home/me/a.png"}]}),
                Err("media[0].url \"/home/me/a.png\" is a local file"),
            ),
            (
                serde_json::json!({"model": "aurora-3.0/i2v", "prompt": "a fox", "media": [{"type": "first_frame", "url": "./a.png"}]}),
                Err("is a local file"),
            ),
        ];
        for (json, want) in cases {
            match (drafts(&args(json.clone()), &catalog), want) {
                (Ok((drafts, copies)), Ok((n, c, model))) => {
                    assert_eq!((drafts.len(), copies), (*n, *c), "{json}");
                    assert!(drafts.iter().all(|d| d.model == *model), "{json}");
                }
                (Err(e), Err(words)) => assert!(e.to_string().contains(words), "{json}: {e}"),
                (got, want) => panic!("{json}: {got:?}, wanted {want:?}"),
            }
        }
    }

    #[test]
    fn a_grid_crosses_every_ratio_with_every_duration() {
        let a = args(
            serde_json::json!({"model": "aurora-3.0/t2v", "prompt": "p", "ratio": ["16:9", "1:1"], "seconds": [5, 10], "resolution": "1080p"}),
        );
        let (drafts, _) = drafts(&a, &Catalog::builtin()).expect("drafts");
        let pairs: Vec<(Option<&str>, Option<&str>)> =
            drafts.iter().map(|d| (d.ratio.as_deref(), d.seconds.as_deref())).collect();
        assert_eq!(
            pairs,
            [
                (Some("16:9"), Some("5")),
                (Some("16:9"), Some("10")),
                (Some("1:1"), Some("5")),
                (Some("1:1"), Some("10"))
            ]
        );
        assert!(drafts.iter().all(|d| d.resolution.as_deref() == Some("1080P")));
    }

    #[test]
    fn review_calls_become_changes_and_agent_tags_are_out_of_reach() {
        let tag =
            |tags: &[&str], remove| ReviewCall::Tag { tags: tags.iter().map(|t| t.to_string()).collect(), remove };
        let cases = [
            (ReviewCall::Rate(4), Ok(Change::Rate(Some(4)))),
            (ReviewCall::Rate(0), Ok(Change::Rate(None))),
            (ReviewCall::Pick(true), Ok(Change::Pick(true))),
            (tag(&["keeper"], false), Ok(Change::Tag(vec!["keeper".into()]))),
            (tag(&["keeper"], true), Ok(Change::Untag(vec!["keeper".into()]))),
            (tag(&["ok", "agent-claude"], true), Err(ArgsError::AgentTag("agent-claude".into()))),
            (tag(&[" Agent-X"], false), Err(ArgsError::AgentTag(" Agent-X".into()))),
            (ReviewCall::Rate(9), Err(ArgsError::Review { field: "rating", rule: BadReview::Rating(9) })),
            (tag(&[], false), Err(ArgsError::Review { field: "tags", rule: BadReview::NoTags })),
            (
                tag(&["two words"], false),
                Err(ArgsError::Review { field: "tags", rule: BadReview::NotOneWord("two words".into()) }),
            ),
        ];
        for (call, want) in cases {
            assert_eq!(review_change(call.clone()), want, "{call:?}");
        }
    }

    #[test]
    fn ids_are_each_named_once_and_at_least_one() {
        // (ids given, Ok(ids) or Err(the error's text))
        type Want = Result<Vec<i64>, &'static str>;
        let cases: &[(OneOrMany<i64>, Want)] = &[
            (OneOrMany::One(3), Ok(vec![3])),
            (OneOrMany::Many(vec![2, 1, 2]), Ok(vec![2, 1])),
            (OneOrMany::Many(vec![]), Err("ids: an empty list; give at least one value")),
        ];
        for (given, want) in cases {
            assert_eq!(ids(given).map_err(|e| e.to_string()), want.clone().map_err(String::from), "{given:?}");
        }
    }

    #[test]
    fn a_search_limit_is_refused_outside_its_range() {
        let cases = [
            (None, Ok(SEARCH_DEFAULT)),
            (Some(1), Ok(1)),
            (Some(SEARCH_MAX), Ok(SEARCH_MAX)),
            (Some(0), Err("limit: 0 is not allowed; give 1 to 200")),
            (Some(201), Err("limit: 201 is not allowed; give 1 to 200")),
        ];
        for (given, want) in cases {
            match (search_limit(given), want) {
                (Ok(n), Ok(w)) => assert_eq!(n, w, "{given:?}"),
                (Err(e), Err(w)) => assert!(e.to_string().starts_with(w), "{given:?}: {e}"),
                (got, want) => panic!("{given:?}: {got:?}, wanted {want:?}"),
            }
        }
    }

    #[test]
    fn unknown_argument_names_are_refused() {
        let bad =
            serde_json::from_value::<SubmissionArgs>(serde_json::json!({"model": "m", "prompt": "p", "api_key": "x"}));
        assert!(bad.is_err());
    }
}
