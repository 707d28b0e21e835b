//! Submission validation: the one place the form, the commands and the simulator check a request.

use std::fmt;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::billing::{Billing, billing};
use super::catalog::{Catalog, DurationRule, RuleSource, Rules, media_of_mode};
use super::model_id::Mode;
use super::model_name::{ModelName, ModelNameError};
use super::params::{MediaKind, Ratio, Resolution};
use super::prompt_text::{Forbidden, first_forbidden};
use super::source::{LocalOrigin, is_local};

pub use super::catalog::DEFAULT_SECONDS;

/// What a user (or a request body) supplied, before any check. Text stays text so that every
/// mistake can be named with the value that was given.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Draft {
    pub model: String,
    pub prompt: String,
    pub negative_prompt: String,
    /// `None` or blank: the default, 5.
    pub seconds: Option<String>,
    pub resolution: Option<String>,
    pub ratio: Option<String>,
    pub watermark: Option<bool>,
    pub media: Vec<MediaDraft>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MediaDraft {
    pub kind: String,
    pub url: String,
    /// Duration the user states for a reference video or audio; never sent, used for the limits.
    pub seconds: Option<String>,
    /// Set when the item is a local file: `url` is then the file until it is uploaded, and
    /// the presigned URL after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local: Option<LocalOrigin>,
}

impl MediaDraft {
    /// An item as a user typed it: text that names a local file makes it a local item.
    pub fn typed(kind: &str, text: &str, seconds: Option<String>) -> MediaDraft {
        let text = text.trim();
        let local = is_local(text).then(|| LocalOrigin::pending(text));
        MediaDraft { kind: kind.trim().to_string(), url: text.to_string(), seconds, local }
    }

    /// An item as it was sent (journaled or validated): its seconds as the text that validates
    /// back to them, its local origin kept.
    pub fn sent(kind: String, url: &str, seconds: Option<f64>, local: Option<&LocalOrigin>) -> MediaDraft {
        MediaDraft { kind, url: url.to_string(), seconds: seconds.map(|s| s.to_string()), local: local.cloned() }
    }
}

/// A media item that passed every check.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Media {
    pub kind: MediaKind,
    /// The URL to send; for a local file not uploaded yet, the file as given.
    pub url: String,
    pub seconds: Option<f64>,
    /// The local file this item came from, if any; never sent.
    pub local: Option<LocalOrigin>,
}

impl Media {
    /// A local file that must be uploaded before this item can be sent.
    pub fn awaits_upload(&self) -> bool {
        self.local.as_ref().is_some_and(|l| !l.is_uploaded())
    }
}

/// A submission that passed every rule: the only thing the client will send.
#[derive(Debug, Clone, PartialEq)]
pub struct ValidSubmission {
    pub model: ModelName,
    pub prompt: String,
    pub negative_prompt: Option<String>,
    pub seconds: i64,
    pub resolution: Resolution,
    pub ratio: Ratio,
    pub watermark: bool,
    pub media: Vec<Media>,
    pub billing: Billing,
    pub warnings: Vec<Warning>,
}

impl ValidSubmission {
    /// Whether any item is a local file not uploaded yet: such a submission must not be sent.
    pub fn awaits_uploads(&self) -> bool {
        self.media.iter().any(Media::awaits_upload)
    }
}

/// The field a violation belongs to, so a form can show it beside that field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    Body,
    Model,
    Prompt,
    NegativePrompt,
    Seconds,
    Resolution,
    Ratio,
    Watermark,
    /// The media list as a whole (`None`) or one item.
    Media(Option<usize>),
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Field::Body => f.write_str("body"),
            Field::Model => f.write_str("model"),
            Field::Prompt => f.write_str("prompt"),
            Field::NegativePrompt => f.write_str("metadata.negative_prompt"),
            Field::Seconds => f.write_str("seconds"),
            Field::Resolution => f.write_str("metadata.resolution"),
            Field::Ratio => f.write_str("metadata.ratio"),
            Field::Watermark => f.write_str("metadata.watermark"),
            Field::Media(None) => f.write_str("metadata.media"),
            Field::Media(Some(i)) => write!(f, "metadata.media[{i}]"),
        }
    }
}

/// One broken rule: names the field, the value given and the rule.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum Violation {
    #[error("the request body must be a JSON object")]
    BodyNotObject,
    #[error("{field} must be {expected}, got {got}")]
    WrongType { field: Field, expected: &'static str, got: String },
    #[error("model \"{value}\" is not a valid model id: {source}")]
    ModelInvalid { value: String, source: ModelNameError },
    #[error("model \"{value}\" is not offered by this service")]
    ModelUnknown { value: String },
    #[error("model \"{value}\" cannot be used: its entry in the config is broken ({entry}); fix or remove it")]
    ModelBroken { value: String, entry: String },
    #[error("prompt is required and must not be blank")]
    PromptMissing,
    #[error(
        "{field} is {} characters long; at most {} are allowed ({})",
        thousands(*chars),
        thousands(*max),
        bound_setting(*field)
    )]
    TextTooLong { field: Field, chars: usize, max: usize },
    #[error(
        "{field} holds {character} at character {at}; remove it (of control characters only newlines and tabs \
         are allowed)"
    )]
    ControlCharacter { field: Field, character: Forbidden, at: usize },
    #[error("seconds \"{value}\" is not a whole number; give an integer such as 5")]
    SecondsNotInteger { value: String },
    #[error("seconds {value} is out of range for {model}: it accepts {rule}")]
    SecondsOutOfRange { value: i64, model: String, rule: DurationRule },
    #[error("resolution \"{value}\" is not allowed; use {}", Resolution::choices())]
    ResolutionInvalid { value: String },
    #[error("resolution {value} is not one {model} renders; use {allowed}")]
    ResolutionNotForModel { value: Resolution, model: String, allowed: String },
    #[error("ratio \"{value}\" is not allowed; use {}", Ratio::choices())]
    RatioInvalid { value: String },
    #[error("media item {} has type \"{value}\"; use {}", index + 1, MediaKind::choices())]
    MediaTypeInvalid { index: usize, value: String },
    #[error("media item {} URL \"{value}\" {reason}", index + 1)]
    MediaUrlInvalid { index: usize, value: String, reason: &'static str },
    #[error("media item {} duration \"{value}\" must be a number of seconds above 0", index + 1)]
    MediaSecondsInvalid { index: usize, value: String },
    #[error("media item {} is a {kind}, which has no duration; only reference videos and audio do", index + 1)]
    MediaSecondsNotApplicable { index: usize, kind: MediaKind },
    #[error("{count} {kind} items given; at most {max} {} allowed per request", if *max == 1 { "is" } else { "are" })]
    MediaCountExceeded { kind: MediaKind, count: usize, max: usize },
    #[error("media item {} is a {kind}, which {mode} does not take{}", index + 1, mode_hint(*mode))]
    MediaNotForMode { index: usize, kind: MediaKind, mode: Mode },
    #[error("media item {} is a {kind}, which {model} does not take (it takes {takes})", index + 1)]
    MediaNotForModel { index: usize, kind: MediaKind, model: String, takes: String },
    #[error("image-to-video needs exactly one first_frame image; add one")]
    FirstFrameMissing,
    #[error("reference-to-video needs at least one reference_image, reference_video or reference_audio item")]
    ReferenceMissing,
    #[error("{kind} items total {total} s; at most {max} s are allowed per request")]
    ReferenceDurationExceeded { kind: MediaKind, total: f64, max: f64 },
}

fn thousands(n: usize) -> String {
    crate::text::thousands(n as u64)
}

/// The config setting that bounds a text field's length, for the message.
fn bound_setting(field: Field) -> &'static str {
    match field {
        Field::NegativePrompt => "the [prompt] max_negative_chars",
        _ => "the [prompt] max_chars",
    }
}

fn mode_hint(mode: Mode) -> &'static str {
    match mode {
        Mode::TextToVideo => " (text-to-video takes no media)",
        Mode::ImageToVideo => " (image-to-video takes one first_frame)",
        Mode::ReferenceToVideo => " (reference-to-video takes reference items)",
    }
}

impl Violation {
    pub fn field(&self) -> Field {
        use Violation::*;
        match self {
            BodyNotObject => Field::Body,
            WrongType { field, .. } | TextTooLong { field, .. } | ControlCharacter { field, .. } => *field,
            ModelInvalid { .. } | ModelUnknown { .. } | ModelBroken { .. } => Field::Model,
            PromptMissing => Field::Prompt,
            SecondsNotInteger { .. } | SecondsOutOfRange { .. } => Field::Seconds,
            ResolutionInvalid { .. } | ResolutionNotForModel { .. } => Field::Resolution,
            RatioInvalid { .. } => Field::Ratio,
            MediaTypeInvalid { index, .. }
            | MediaUrlInvalid { index, .. }
            | MediaSecondsInvalid { index, .. }
            | MediaSecondsNotApplicable { index, .. }
            | MediaNotForMode { index, .. }
            | MediaNotForModel { index, .. } => Field::Media(Some(*index)),
            MediaCountExceeded { .. } | FirstFrameMissing | ReferenceMissing | ReferenceDurationExceeded { .. } => {
                Field::Media(None)
            }
        }
    }
}

/// Not a violation, but something the user should see before sending.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum Warning {
    #[error("model \"{model}\" is not in the catalog; it is sent as given, with seconds checked as {checked}")]
    UnknownModel { model: String, checked: String },
}

/// What to do with a well-formed model id the catalog does not list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnknownModels {
    /// Clients: the spec's list is incomplete, so send it with a warning.
    Warn,
    /// A server: refuse it.
    Reject,
}

/// Every broken rule of a draft, with the warnings that would have applied.
#[derive(Debug, Clone, PartialEq)]
pub struct Invalid {
    pub violations: Vec<Violation>,
    pub warnings: Vec<Warning>,
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lines: Vec<String> = self.violations.iter().map(|v| v.to_string()).collect();
        f.write_str(&lines.join("; "))
    }
}

impl std::error::Error for Invalid {}

/// A prompt's text within its length bound and free of control characters. Blank text is
/// not sent, so it is not checked here (a blank prompt is `PromptMissing`).
fn check_text(field: Field, text: &str, max: usize, out: &mut Vec<Violation>) {
    if text.trim().is_empty() {
        return;
    }
    let chars = text.chars().count();
    if chars > max {
        out.push(Violation::TextTooLong { field, chars, max });
    }
    if let Some((at, character)) = first_forbidden(text) {
        out.push(Violation::ControlCharacter { field, character, at });
    }
}

fn check_url(index: usize, value: &str) -> Option<Violation> {
    let reason = match url::Url::parse(value) {
        Err(_) => "is neither a URL nor a local path (/, ./, ../, ~/ or file://)",
        Ok(u) if !matches!(u.scheme(), "http" | "https") => "must start with http:// or https://",
        Ok(u) if u.host_str().is_none_or(str::is_empty) => "has no host",
        Ok(_) => return None,
    };
    Some(Violation::MediaUrlInvalid { index, value: value.to_string(), reason })
}

fn check_media(index: usize, item: &MediaDraft, out: &mut Vec<Violation>) -> Option<Media> {
    let kind = MediaKind::parse(&item.kind);
    if kind.is_none() {
        out.push(Violation::MediaTypeInvalid { index, value: item.kind.clone() });
    }
    // A local file waiting for its upload has no URL yet; once uploaded, the URL is checked.
    let url_problem = match &item.local {
        Some(l) if !l.is_uploaded() && is_local(&item.url) => None,
        Some(l) if !l.is_uploaded() => Some(Violation::MediaUrlInvalid {
            index,
            value: item.url.clone(),
            reason: "is not a local path (start it with /, ./, ../, ~/ or file://)",
        }),
        _ => check_url(index, &item.url),
    };
    let url_ok = url_problem.is_none();
    out.extend(url_problem);
    let seconds = match item.seconds.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        None => Some(None),
        Some(text) => match text.parse::<f64>() {
            Ok(s) if s.is_finite() && s > 0.0 => Some(Some(s)),
            _ => {
                out.push(Violation::MediaSecondsInvalid { index, value: text.to_string() });
                None
            }
        },
    };
    if let (Some(k), Some(Some(_))) = (kind, seconds)
        && k.max_total_seconds().is_none()
    {
        out.push(Violation::MediaSecondsNotApplicable { index, kind: k });
    }
    match (kind, seconds) {
        (Some(kind), Some(seconds)) if url_ok => {
            Some(Media { kind, url: item.url.clone(), seconds, local: item.local.clone() })
        }
        _ => None,
    }
}

/// Media the model does not take, and the media its mode needs. `takes` is what its entry
/// names (by default its mode's).
fn check_mode(model: &str, mode: Mode, takes: &[MediaKind], media: &[(usize, MediaKind)], out: &mut Vec<Violation>) {
    let by_mode = takes == media_of_mode(mode);
    for &(index, kind) in media.iter().filter(|(_, k)| !takes.contains(k)) {
        out.push(if by_mode {
            Violation::MediaNotForMode { index, kind, mode }
        } else {
            let names: Vec<&str> = takes.iter().map(|k| k.as_str()).collect();
            let takes = if names.is_empty() { "no media".to_string() } else { names.join(", ") };
            Violation::MediaNotForModel { index, kind, model: model.to_string(), takes }
        });
    }
    let has = |pred: fn(MediaKind) -> bool| media.iter().any(|(_, k)| pred(*k));
    match mode {
        Mode::ImageToVideo if !has(|k| k == MediaKind::FirstFrame) => out.push(Violation::FirstFrameMissing),
        Mode::ReferenceToVideo if !has(MediaKind::is_reference) => out.push(Violation::ReferenceMissing),
        _ => {}
    }
}

fn check_counts(media: &[MediaDraft], checked: &[Media], out: &mut Vec<Violation>) {
    for &kind in MediaKind::ALL {
        let count = media.iter().filter(|m| MediaKind::parse(&m.kind) == Some(kind)).count();
        if count > kind.max_count() {
            out.push(Violation::MediaCountExceeded { kind, count, max: kind.max_count() });
        }
        if let Some(max) = kind.max_total_seconds() {
            let total: f64 = checked.iter().filter(|m| m.kind == kind).filter_map(|m| m.seconds).sum();
            if total > max {
                out.push(Violation::ReferenceDurationExceeded { kind, total, max });
            }
        }
    }
}

/// Checks a draft against every rule of the spec and the catalog.
pub fn validate(draft: &Draft, catalog: &Catalog, unknown: UnknownModels) -> Result<ValidSubmission, Invalid> {
    let mut violations = Vec::new();
    let mut warnings = Vec::new();

    let model = match ModelName::new(&draft.model) {
        Ok(name) => Some(name),
        Err(source) => {
            violations.push(Violation::ModelInvalid { value: draft.model.clone(), source });
            None
        }
    };
    // What reel knows of the model: its mode and the media it takes, its seconds, resolutions.
    let known = model.as_ref().and_then(|id| match catalog.rules(id.as_str()) {
        Rules::Known(e) => Some((Some(e.mode), e.media.clone(), e.duration, e.resolutions.clone())),
        Rules::Broken(b) => {
            violations.push(Violation::ModelBroken { value: id.to_string(), entry: b.to_string() });
            None
        }
        Rules::Unknown { mode, duration, source } => {
            let mut checked = match source {
                RuleSource::FamilyFromVersion(f) => format!("family {f:?} ({duration})"),
                _ => format!("the widest range the spec allows ({duration})"),
            };
            if mode.is_none() {
                checked.push_str("; its mode is not known, so its media are not checked against one");
            }
            match unknown {
                UnknownModels::Warn => warnings.push(Warning::UnknownModel { model: id.to_string(), checked }),
                UnknownModels::Reject => violations.push(Violation::ModelUnknown { value: id.to_string() }),
            }
            Some((mode, mode.map(media_of_mode).unwrap_or_else(|| MediaKind::ALL.to_vec()), duration, Vec::new()))
        }
    });
    let rule = known.as_ref().map(|k| k.2);
    let resolutions = known.as_ref().map_or(&[][..], |k| &k.3[..]);

    if draft.prompt.trim().is_empty() {
        violations.push(Violation::PromptMissing);
    }
    let bounds = catalog.text_bounds();
    check_text(Field::Prompt, &draft.prompt, bounds.prompt_chars, &mut violations);
    check_text(Field::NegativePrompt, &draft.negative_prompt, bounds.negative_chars, &mut violations);

    let seconds = match draft.seconds.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        None => Some(rule.map_or(DEFAULT_SECONDS, DurationRule::default_seconds)),
        Some(text) => match text.parse::<i64>() {
            Ok(n) => Some(n),
            Err(_) => {
                violations.push(Violation::SecondsNotInteger { value: text.to_string() });
                None
            }
        },
    };
    if let (Some(value), Some(rule), Some(id)) = (seconds, rule, &model)
        && !rule.allows(value)
    {
        violations.push(Violation::SecondsOutOfRange { value, model: id.to_string(), rule });
    }

    let resolution = match draft.resolution.as_deref() {
        None => Some(resolutions.first().copied().unwrap_or_default()),
        Some(v) => Resolution::parse(v).or_else(|| {
            violations.push(Violation::ResolutionInvalid { value: v.to_string() });
            None
        }),
    };
    if let (Some(value), Some(id)) = (resolution, &model)
        && !resolutions.is_empty()
        && !resolutions.contains(&value)
    {
        let allowed: Vec<&str> = resolutions.iter().map(|r| r.as_str()).collect();
        violations.push(Violation::ResolutionNotForModel { value, model: id.to_string(), allowed: allowed.join(", ") });
    }
    let ratio = match draft.ratio.as_deref() {
        None => Some(Ratio::default()),
        Some(v) => Ratio::parse(v).or_else(|| {
            violations.push(Violation::RatioInvalid { value: v.to_string() });
            None
        }),
    };

    let media: Vec<Media> =
        draft.media.iter().enumerate().filter_map(|(i, m)| check_media(i, m, &mut violations)).collect();
    check_counts(&draft.media, &media, &mut violations);
    if let (Some((Some(mode), takes, ..)), Some(id)) = (&known, &model) {
        let kinds: Vec<(usize, MediaKind)> =
            draft.media.iter().enumerate().filter_map(|(i, m)| MediaKind::parse(&m.kind).map(|k| (i, k))).collect();
        check_mode(id.as_str(), *mode, takes, &kinds, &mut violations);
    }

    match (model, seconds, resolution, ratio) {
        (Some(model), Some(seconds), Some(resolution), Some(ratio)) if violations.is_empty() => {
            let billed: Vec<(MediaKind, Option<f64>)> = media.iter().map(|m| (m.kind, m.seconds)).collect();
            let negative = draft.negative_prompt.trim();
            Ok(ValidSubmission {
                model,
                prompt: draft.prompt.clone(),
                negative_prompt: (!negative.is_empty()).then(|| draft.negative_prompt.clone()),
                seconds,
                resolution,
                ratio,
                watermark: draft.watermark.unwrap_or(false),
                billing: Billing { longest_output: rule.map(|r| r.max), ..billing(seconds, &billed) },
                media,
                warnings,
            })
        }
        _ => Err(Invalid { violations, warnings }),
    }
}

#[cfg(test)]
#[path = "validate_tests.rs"]
mod tests;
