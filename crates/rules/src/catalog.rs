//! The model catalog: which models exist, and the rules of each: its mode, the seconds it
//! accepts, the media it takes, its resolutions and price.

use std::fmt;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::model_id::{Mode, ModelId};
use super::model_name::{ModelName, ModelNameError, mode_in};
use super::params::{MediaKind, Resolution};
use super::prompt_text::TextBounds;

/// The catalog shipped in the binary.
pub const BUILTIN_TOML: &str = include_str!("../assets/models.toml");

/// Spec section 8's duration families.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Family {
    A,
    B,
    C,
}

impl Family {
    /// The family a version series belongs to, where the spec names one.
    pub fn from_series(series: &str) -> Option<Family> {
        match series {
            "3.0" => Some(Family::A),
            "2.7" => Some(Family::B),
            _ => None,
        }
    }

    pub fn duration(self) -> DurationRule {
        match self {
            Family::A => DurationRule::range(4, 30, true),
            Family::B => DurationRule::range(4, 150, false),
            Family::C => DurationRule::range(4, 15, false),
        }
    }
}

/// Spec section 4.1: `seconds` when none is given.
pub const DEFAULT_SECONDS: i64 = 5;

/// Most values a list of seconds may hold (`seconds = [4, 8, 12]`).
pub const MAX_STEPS: usize = 16;

/// The exact seconds a model takes when it takes only some (Sora-shaped models: 4, 8, 12).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Steps {
    values: [i64; MAX_STEPS],
    len: usize,
}

impl Steps {
    /// Sorted, without repeats; `None` when empty or longer than [`MAX_STEPS`].
    pub fn new(values: &[i64]) -> Option<Steps> {
        let mut sorted = values.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        if sorted.is_empty() || sorted.len() > MAX_STEPS {
            return None;
        }
        let mut out = Steps { values: [0; MAX_STEPS], len: sorted.len() };
        out.values[..sorted.len()].copy_from_slice(&sorted);
        Some(out)
    }

    pub fn as_slice(&self) -> &[i64] {
        &self.values[..self.len]
    }
}

impl Serialize for Steps {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.as_slice().serialize(s)
    }
}

/// Seconds a model accepts: `min..=max` (or only the values of `only`), and `-1` for automatic
/// when `auto`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct DurationRule {
    pub min: i64,
    pub max: i64,
    pub auto: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub only: Option<Steps>,
}

impl DurationRule {
    /// The value that selects automatic duration.
    pub const AUTO: i64 = -1;
    /// The widest range the spec allows any model: used for unknown models of unknown family.
    pub const WIDEST: DurationRule = DurationRule { min: 4, max: 150, auto: true, only: None };

    /// A range rule.
    pub const fn range(min: i64, max: i64, auto: bool) -> DurationRule {
        DurationRule { min, max, auto, only: None }
    }

    pub fn allows(self, seconds: i64) -> bool {
        let listed = match self.only {
            Some(steps) => steps.as_slice().contains(&seconds),
            None => (self.min..=self.max).contains(&seconds),
        };
        listed || (self.auto && seconds == Self::AUTO)
    }

    /// What is sent when no seconds are given: the spec's 5 where the model takes it, else its
    /// shortest (a Sora-shaped model refuses 5).
    pub fn default_seconds(self) -> i64 {
        if self.allows(DEFAULT_SECONDS) { DEFAULT_SECONDS } else { self.min }
    }

    /// The next value the model takes after `from` (before it, when `forward` is false),
    /// for ← and → on the form's seconds.
    pub fn step(self, from: i64, forward: bool) -> i64 {
        match self.only {
            Some(steps) => {
                let s = steps.as_slice();
                let next = if forward { s.iter().find(|v| **v > from) } else { s.iter().rev().find(|v| **v < from) };
                next.or(if forward { s.last() } else { s.first() }).copied().unwrap_or(from)
            }
            None => {
                if forward {
                    from + 1
                } else {
                    from - 1
                }
            }
        }
    }
}

impl fmt::Display for DurationRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.only.as_ref().map(Steps::as_slice) {
            Some([one]) => write!(f, "{one} s")?,
            Some([rest @ .., last]) => {
                let rest: Vec<String> = rest.iter().map(i64::to_string).collect();
                write!(f, "{} or {last} s", rest.join(", "))?
            }
            _ => write!(f, "{} to {} s", self.min, self.max)?,
        }
        if self.auto {
            write!(f, ", or -1 for automatic")?;
        }
        Ok(())
    }
}

/// One catalog entry as written in TOML (assets/models.toml or the config file).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSpec {
    /// The id as the service names it: the spec's three parts, or any other (`sora-2`).
    pub id: String,
    /// `text-to-video`, `image-to-video` or `reference-to-video-global`; needed when the id
    /// does not say it.
    #[serde(default)]
    pub mode: Option<String>,
    #[serde(default)]
    pub family: Option<Family>,
    #[serde(default)]
    pub min_seconds: Option<i64>,
    #[serde(default)]
    pub max_seconds: Option<i64>,
    #[serde(default)]
    pub auto_seconds: Option<bool>,
    /// The only seconds it takes, as `[4, 8, 12]`.
    #[serde(default)]
    pub seconds: Option<Vec<i64>>,
    /// The media item types it takes; by default those of its mode.
    #[serde(default)]
    pub media: Option<Vec<String>>,
    /// The resolutions it renders; by default all three.
    #[serde(default)]
    pub resolutions: Option<Vec<String>>,
    /// What a billed second costs; `[pricing] per_second` wins when it names the model too.
    #[serde(default)]
    pub price_per_second: Option<f64>,
    #[serde(default)]
    pub description: Option<String>,
}

/// Where an entry came from, shown by `reel models`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    Builtin,
    Config,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelEntry {
    pub id: String,
    pub mode: Mode,
    pub family: Option<Family>,
    pub duration: DurationRule,
    /// The media item types it takes.
    pub media: Vec<MediaKind>,
    /// The resolutions it renders; empty: any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub resolutions: Vec<Resolution>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price_per_second: Option<f64>,
    pub description: Option<String>,
    pub origin: Origin,
}

/// The media types a mode takes when its entry names none.
pub fn media_of_mode(mode: Mode) -> Vec<MediaKind> {
    match mode {
        Mode::TextToVideo => Vec::new(),
        Mode::ImageToVideo => vec![MediaKind::FirstFrame],
        Mode::ReferenceToVideo => vec![MediaKind::ReferenceImage, MediaKind::ReferenceVideo, MediaKind::ReferenceAudio],
    }
}

/// How the duration of a model was decided, for the warning on unknown models.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleSource {
    Catalog,
    FamilyFromVersion(Family),
    Widest,
}

#[derive(Debug, Clone, PartialEq, Error)]
pub enum CatalogError {
    #[error("model catalog: {0}")]
    Toml(String),
    #[error("model \"{id}\": {source}")]
    BadId { id: String, source: ModelNameError },
    #[error(
        "model \"{id}\": its id does not say its mode; add mode = \"text-to-video\", \"image-to-video\" or \
         \"reference-to-video-global\""
    )]
    NoMode { id: String },
    #[error(
        "model \"{id}\": unknown mode \"{value}\"; the modes are text-to-video, image-to-video and reference-to-video-global"
    )]
    BadMode { id: String, value: String },
    #[error("model \"{id}\": give a family (A, B or C), both min_seconds and max_seconds, or seconds = [4, 8, 12]")]
    NoDuration { id: String },
    #[error("model \"{id}\": min_seconds {min} is above max_seconds {max}")]
    EmptyRange { id: String, min: i64, max: i64 },
    #[error("model \"{id}\": seconds lists 1 to {MAX_STEPS} whole numbers above 0, such as [4, 8, 12]")]
    BadSteps { id: String },
    #[error("model \"{id}\": give seconds = [...] or min_seconds and max_seconds, not both")]
    StepsAndRange { id: String },
    #[error("model \"{id}\": media \"{value}\" is not a media type; use {}", MediaKind::choices())]
    BadMedia { id: String, value: String },
    #[error("model \"{id}\": {mode} needs {needs} among its media")]
    MediaForMode { id: String, mode: Mode, needs: &'static str },
    #[error("model \"{id}\": resolution \"{value}\" is not one; use {}", Resolution::choices())]
    BadResolution { id: String, value: String },
    #[error("model \"{id}\": price_per_second must be a number of 0 or more")]
    BadPrice { id: String },
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CatalogFile {
    #[serde(default)]
    models: Vec<ModelSpec>,
}

/// Parses a `[[models]]` TOML document.
pub fn parse_specs(text: &str) -> Result<Vec<ModelSpec>, CatalogError> {
    toml::from_str::<CatalogFile>(text).map(|f| f.models).map_err(|e| CatalogError::Toml(e.message().to_string()))
}

fn duration_of(spec: &ModelSpec, family: Option<Family>) -> Result<DurationRule, CatalogError> {
    let id = || spec.id.clone();
    if let Some(values) = &spec.seconds {
        if spec.min_seconds.is_some() || spec.max_seconds.is_some() {
            return Err(CatalogError::StepsAndRange { id: id() });
        }
        let steps = Steps::new(values).filter(|s| s.as_slice().iter().all(|v| *v > 0));
        let steps = steps.ok_or_else(|| CatalogError::BadSteps { id: id() })?;
        let (min, max) = (steps.as_slice()[0], steps.as_slice()[steps.len - 1]);
        return Ok(DurationRule { min, max, auto: spec.auto_seconds.unwrap_or(false), only: Some(steps) });
    }
    let duration = match (family.map(Family::duration), spec.min_seconds, spec.max_seconds) {
        (Some(b), min, max) => {
            DurationRule::range(min.unwrap_or(b.min), max.unwrap_or(b.max), spec.auto_seconds.unwrap_or(b.auto))
        }
        (None, Some(min), Some(max)) => DurationRule::range(min, max, spec.auto_seconds.unwrap_or(false)),
        (None, _, _) => return Err(CatalogError::NoDuration { id: id() }),
    };
    if duration.min > duration.max {
        return Err(CatalogError::EmptyRange { id: id(), min: duration.min, max: duration.max });
    }
    Ok(duration)
}

fn media_of(spec: &ModelSpec, mode: Mode) -> Result<Vec<MediaKind>, CatalogError> {
    let Some(given) = &spec.media else { return Ok(media_of_mode(mode)) };
    let mut kinds = Vec::new();
    for value in given {
        let kind = MediaKind::parse(value)
            .ok_or_else(|| CatalogError::BadMedia { id: spec.id.clone(), value: value.clone() })?;
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    let needs = match mode {
        Mode::ImageToVideo if !kinds.contains(&MediaKind::FirstFrame) => Some("first_frame"),
        Mode::ReferenceToVideo if !kinds.iter().any(|k| k.is_reference()) => Some("a reference type"),
        _ => None,
    };
    match needs {
        Some(needs) => Err(CatalogError::MediaForMode { id: spec.id.clone(), mode, needs }),
        None => Ok(kinds),
    }
}

fn entry(spec: ModelSpec, origin: Origin) -> Result<ModelEntry, CatalogError> {
    let name = ModelName::new(&spec.id).map_err(|source| CatalogError::BadId { id: spec.id.clone(), source })?;
    let mode = match &spec.mode {
        Some(text) => {
            Mode::parse(text).ok_or_else(|| CatalogError::BadMode { id: spec.id.clone(), value: text.clone() })?
        }
        None => name.mode().ok_or_else(|| CatalogError::NoMode { id: spec.id.clone() })?,
    };
    let spec_id = spec.id.parse::<ModelId>().ok();
    let family = spec.family.or_else(|| spec_id.and_then(|p| Family::from_series(&p.series())));
    let duration = duration_of(&spec, family)?;
    let media = media_of(&spec, mode)?;
    let mut resolutions = Vec::new();
    for value in spec.resolutions.iter().flatten() {
        let r = Resolution::parse(value)
            .ok_or_else(|| CatalogError::BadResolution { id: spec.id.clone(), value: value.clone() })?;
        if !resolutions.contains(&r) {
            resolutions.push(r);
        }
    }
    if spec.price_per_second.is_some_and(|p| !p.is_finite() || p < 0.0) {
        return Err(CatalogError::BadPrice { id: spec.id });
    }
    Ok(ModelEntry {
        id: spec.id,
        mode,
        family,
        duration,
        media,
        resolutions,
        price_per_second: spec.price_per_second,
        description: spec.description,
        origin,
    })
}

/// A `[[models]]` entry of the config file as written, before it is read as a [`ModelSpec`]:
/// one broken entry must not stop the others.
#[derive(Debug, Clone, PartialEq)]
pub struct Declared {
    /// Where it is written, for messages: `[[models]] entry 2`.
    pub place: String,
    pub value: toml::Value,
}

/// The `[[models]]` entries of a TOML document, each to be read on its own (the simulator's
/// catalog in tests, a file of models).
pub fn declare(text: &str) -> Result<Vec<Declared>, CatalogError> {
    let table: toml::Table = toml::from_str(text).map_err(|e| CatalogError::Toml(e.message().to_string()))?;
    let models = table.get("models").and_then(toml::Value::as_array).cloned().unwrap_or_default();
    Ok(models
        .into_iter()
        .enumerate()
        .map(|(i, value)| Declared { place: format!("[[models]] entry {}", i + 1), value })
        .collect())
}

/// A config entry reel cannot use, and why; the models that use it say so, others work.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BrokenModel {
    /// Its id, when it has a usable one.
    pub id: Option<String>,
    pub place: String,
    /// The config file it is in, once known.
    pub file: Option<std::path::PathBuf>,
    pub problem: String,
}

impl fmt::Display for BrokenModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "config file {}, ", file.display())?;
        }
        write!(f, "{}: {}", self.place, self.problem)
    }
}

fn read_declared(d: &Declared) -> Result<ModelEntry, BrokenModel> {
    let id = d.value.get("id").and_then(toml::Value::as_str).map(str::to_string);
    let broken = |problem: String| BrokenModel { id: id.clone(), place: d.place.clone(), file: None, problem };
    let spec: ModelSpec = d.value.clone().try_into().map_err(|e: toml::de::Error| {
        let what = id.as_deref().map_or(String::new(), |id| format!("model \"{id}\": "));
        broken(format!("{what}{}", e.message().trim()))
    })?;
    entry(spec, Origin::Config).map_err(|e| broken(e.to_string()))
}

/// What reel knows of a model to check a submission by.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Rules<'a> {
    Known(&'a ModelEntry),
    /// Declared in the config, but its entry is broken.
    Broken(&'a BrokenModel),
    /// Not in the catalog: the mode its id names, if any, and a duration by its version.
    Unknown {
        mode: Option<Mode>,
        duration: DurationRule,
        source: RuleSource,
    },
}

/// The known models, built-in first, then the config's (which replace a built-in of the same id);
/// and the bounds on a prompt's text, which every client validates against with the catalog.
#[derive(Debug, Clone, PartialEq)]
pub struct Catalog {
    entries: Vec<ModelEntry>,
    broken: Vec<BrokenModel>,
    text: TextBounds,
}

impl Catalog {
    /// The embedded catalog. Its validity is checked by a unit test, so this cannot fail at run time.
    #[allow(
        clippy::expect_used,
        reason = "the catalog is compiled in and checked by tests; a broken one must not ship"
    )]
    pub fn builtin() -> Catalog {
        let specs = parse_specs(BUILTIN_TOML).expect("assets/models.toml parses (checked by tests)");
        let entries = specs
            .into_iter()
            .map(|s| entry(s, Origin::Builtin))
            .collect::<Result<Vec<_>, _>>()
            .expect("assets/models.toml entries are valid (checked by tests)");
        Catalog { entries, broken: Vec::new(), text: TextBounds::DEFAULT }
    }

    /// The catalog with the config's bounds on a prompt's text.
    pub fn with_text_bounds(self, text: TextBounds) -> Catalog {
        Catalog { text, ..self }
    }

    /// The longest prompt and negative prompt `validate` accepts.
    pub fn text_bounds(&self) -> TextBounds {
        self.text
    }

    /// Adds models from the config; an entry with a known id replaces the built-in one. A broken
    /// entry is kept aside (see [`Catalog::broken`]), and its id, if it has one, is no longer
    /// offered: the user meant to change it.
    pub fn with_extra(mut self, declared: &[Declared]) -> Catalog {
        for d in declared {
            match read_declared(d) {
                Ok(new) => {
                    self.broken.retain(|b| b.id.as_deref() != Some(&new.id));
                    match self.entries.iter_mut().find(|e| e.id == new.id) {
                        Some(old) => *old = new,
                        None => self.entries.push(new),
                    }
                }
                Err(broken) => {
                    self.entries.retain(|e| Some(&e.id) != broken.id.as_ref());
                    self.broken.push(broken);
                }
            }
        }
        self
    }

    /// Names the config file the declared entries came from, for messages.
    pub fn in_file(mut self, path: &std::path::Path) -> Catalog {
        for b in &mut self.broken {
            b.file = Some(path.to_path_buf());
        }
        self
    }

    pub fn entries(&self) -> &[ModelEntry] {
        &self.entries
    }

    /// The config's entries reel cannot use.
    pub fn broken(&self) -> &[BrokenModel] {
        &self.broken
    }

    pub fn get(&self, id: &str) -> Option<&ModelEntry> {
        self.entries.iter().find(|e| e.id == id)
    }

    /// What reel knows of model `id`: its entry, its broken entry, or what its id says.
    pub fn rules(&self, id: &str) -> Rules<'_> {
        if let Some(e) = self.get(id) {
            return Rules::Known(e);
        }
        if let Some(b) = self.broken.iter().find(|b| b.id.as_deref() == Some(id)) {
            return Rules::Broken(b);
        }
        let family = id.parse::<ModelId>().ok().and_then(|p| Family::from_series(&p.series()));
        let (duration, source) = match family {
            Some(f) => (f.duration(), RuleSource::FamilyFromVersion(f)),
            None => (DurationRule::WIDEST, RuleSource::Widest),
        };
        Rules::Unknown { mode: mode_in(id), duration, source }
    }

    /// The duration rule for a model: its catalog entry, else the family its version names,
    /// else the widest range the spec allows.
    pub fn duration_rule(&self, id: &str) -> (DurationRule, RuleSource) {
        match self.rules(id) {
            Rules::Known(e) => (e.duration, RuleSource::Catalog),
            Rules::Broken(_) => (DurationRule::WIDEST, RuleSource::Widest),
            Rules::Unknown { duration, source, .. } => (duration, source),
        }
    }

    /// The mode of a model, where reel knows it.
    pub fn mode(&self, id: &str) -> Option<Mode> {
        match self.rules(id) {
            Rules::Known(e) => Some(e.mode),
            Rules::Broken(_) => None,
            Rules::Unknown { mode, .. } => mode,
        }
    }
}

#[cfg(test)]
#[path = "catalog_tests.rs"]
mod tests;
