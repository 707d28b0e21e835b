//! The model catalog: which models exist, their family and the duration each accepts.

use std::fmt;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::model_id::{ModelId, ModelIdError};
use super::prompt_text::TextBounds;

/// The catalog shipped in the binary.
pub const BUILTIN_TOML: &str = include_str!("../../assets/models.toml");

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
            Family::A => DurationRule { min: 4, max: 30, auto: true },
            Family::B => DurationRule { min: 4, max: 150, auto: false },
            Family::C => DurationRule { min: 4, max: 15, auto: false },
        }
    }
}

/// Seconds a model accepts: `min..=max`, and `-1` for automatic when `auto`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct DurationRule {
    pub min: i64,
    pub max: i64,
    pub auto: bool,
}

impl DurationRule {
    /// The value that selects automatic duration.
    pub const AUTO: i64 = -1;
    /// The widest range the spec allows any model: used for unknown models of unknown family.
    pub const WIDEST: DurationRule = DurationRule { min: 4, max: 150, auto: true };

    pub fn allows(self, seconds: i64) -> bool {
        (self.min..=self.max).contains(&seconds) || (self.auto && seconds == Self::AUTO)
    }
}

impl fmt::Display for DurationRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} to {} s", self.min, self.max)?;
        if self.auto {
            write!(f, ", or -1 for automatic")?;
        }
        Ok(())
    }
}

/// One catalog entry as written in TOML (assets/models.toml or the config file).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSpec {
    pub id: String,
    #[serde(default)]
    pub family: Option<Family>,
    #[serde(default)]
    pub min_seconds: Option<i64>,
    #[serde(default)]
    pub max_seconds: Option<i64>,
    #[serde(default)]
    pub auto_seconds: Option<bool>,
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

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModelEntry {
    pub id: String,
    #[serde(skip)]
    pub parsed: ModelId,
    pub mode: String,
    pub family: Option<Family>,
    pub duration: DurationRule,
    pub description: Option<String>,
    pub origin: Origin,
}

/// How the duration of a model was decided, for the warning on unknown models.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleSource {
    Catalog,
    FamilyFromVersion(Family),
    Widest,
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CatalogError {
    #[error("model catalog: {0}")]
    Toml(String),
    #[error("model \"{id}\" in the catalog: {source}")]
    BadId { id: String, source: ModelIdError },
    #[error("model \"{id}\" in the catalog: give a family (A, B or C) or both min_seconds and max_seconds")]
    NoDuration { id: String },
    #[error("model \"{id}\" in the catalog: min_seconds {min} is above max_seconds {max}")]
    EmptyRange { id: String, min: i64, max: i64 },
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

fn entry(spec: ModelSpec, origin: Origin) -> Result<ModelEntry, CatalogError> {
    let parsed: ModelId = spec.id.parse().map_err(|source| CatalogError::BadId { id: spec.id.clone(), source })?;
    let family = spec.family.or_else(|| Family::from_series(&parsed.series()));
    let base = family.map(Family::duration);
    let duration = match (base, spec.min_seconds, spec.max_seconds) {
        (Some(b), min, max) => DurationRule {
            min: min.unwrap_or(b.min),
            max: max.unwrap_or(b.max),
            auto: spec.auto_seconds.unwrap_or(b.auto),
        },
        (None, Some(min), Some(max)) => DurationRule { min, max, auto: spec.auto_seconds.unwrap_or(false) },
        (None, _, _) => return Err(CatalogError::NoDuration { id: spec.id }),
    };
    if duration.min > duration.max {
        return Err(CatalogError::EmptyRange { id: spec.id, min: duration.min, max: duration.max });
    }
    Ok(ModelEntry {
        mode: parsed.mode.to_string(),
        id: spec.id,
        parsed,
        family,
        duration,
        description: spec.description,
        origin,
    })
}

/// The known models, built-in first, then the config's (which replace a built-in of the same id);
/// and the bounds on a prompt's text, which every client validates against with the catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Catalog {
    entries: Vec<ModelEntry>,
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
        Catalog { entries, text: TextBounds::DEFAULT }
    }

    /// The catalog with the config's bounds on a prompt's text.
    pub fn with_text_bounds(self, text: TextBounds) -> Catalog {
        Catalog { text, ..self }
    }

    /// The longest prompt and negative prompt `validate` accepts.
    pub fn text_bounds(&self) -> TextBounds {
        self.text
    }

    /// Adds models from the config; an entry with a known id replaces the built-in one.
    pub fn with_extra(mut self, specs: Vec<ModelSpec>) -> Result<Catalog, CatalogError> {
        for spec in specs {
            let new = entry(spec, Origin::Config)?;
            match self.entries.iter_mut().find(|e| e.id == new.id) {
                Some(old) => *old = new,
                None => self.entries.push(new),
            }
        }
        Ok(self)
    }

    pub fn entries(&self) -> &[ModelEntry] {
        &self.entries
    }

    pub fn get(&self, id: &str) -> Option<&ModelEntry> {
        self.entries.iter().find(|e| e.id == id)
    }

    /// The duration rule for a model: its catalog entry, else the family its version names,
    /// else the widest range the spec allows.
    pub fn duration_rule(&self, id: &ModelId) -> (DurationRule, RuleSource) {
        let text = id.to_string();
        if let Some(e) = self.get(&text) {
            return (e.duration, RuleSource::Catalog);
        }
        match Family::from_series(&id.series()) {
            Some(f) => (f.duration(), RuleSource::FamilyFromVersion(f)),
            None => (DurationRule::WIDEST, RuleSource::Widest),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_catalog_is_valid_and_covers_every_family_and_mode() {
        let specs = parse_specs(BUILTIN_TOML).expect("parses");
        for s in &specs {
            entry(s.clone(), Origin::Builtin).expect("valid entry");
        }
        let cat = Catalog::builtin();
        for fam in [Family::A, Family::B, Family::C] {
            assert!(cat.entries().iter().any(|e| e.family == Some(fam)), "family {fam:?}");
        }
        for mode in super::super::model_id::Mode::ALL {
            assert!(cat.entries().iter().any(|e| e.parsed.mode == mode), "mode {mode}");
        }
    }

    #[test]
    fn duration_rules_by_family() {
        let cases = [
            (Family::A, 3, false),
            (Family::A, 4, true),
            (Family::A, 30, true),
            (Family::A, 31, false),
            (Family::A, -1, true),
            (Family::A, -2, false),
            (Family::A, 0, false),
            (Family::B, 3, false),
            (Family::B, 4, true),
            (Family::B, 150, true),
            (Family::B, 151, false),
            (Family::B, -1, false),
            (Family::C, 3, false),
            (Family::C, 4, true),
            (Family::C, 15, true),
            (Family::C, 16, false),
            (Family::C, -1, false),
        ];
        for (family, seconds, ok) in cases {
            assert_eq!(family.duration().allows(seconds), ok, "{family:?} {seconds}");
        }
        assert!(DurationRule::WIDEST.allows(150) && DurationRule::WIDEST.allows(-1));
        assert!(!DurationRule::WIDEST.allows(151) && !DurationRule::WIDEST.allows(3));
    }

    #[test]
    fn unknown_models_fall_back_by_version_then_widest() {
        let cat = Catalog::builtin();
        let rule = |id: &str| cat.duration_rule(&id.parse().expect("valid id"));
        assert_eq!(rule("acme/aurora-3.0/text-to-video").1, RuleSource::Catalog);
        assert_eq!(
            rule("other/x-3.0.1/text-to-video"),
            (Family::A.duration(), RuleSource::FamilyFromVersion(Family::A))
        );
        assert_eq!(
            rule("other/x-2.7/image-to-video"),
            (Family::B.duration(), RuleSource::FamilyFromVersion(Family::B))
        );
        assert_eq!(rule("other/x-9.1/text-to-video"), (DurationRule::WIDEST, RuleSource::Widest));
    }

    #[test]
    fn config_models_add_and_replace() {
        let extra = parse_specs(
            r#"
            [[models]]
            id = "acme/aurora-3.0/text-to-video"
            family = "A"
            max_seconds = 20
            [[models]]
            id = "mine/custom-1.0/text-to-video"
            min_seconds = 2
            max_seconds = 8
            "#,
        )
        .expect("parses");
        let cat = Catalog::builtin().with_extra(extra).expect("valid");
        let replaced = cat.get("acme/aurora-3.0/text-to-video").expect("present");
        assert_eq!((replaced.duration.max, replaced.origin), (20, Origin::Config));
        let custom = cat.get("mine/custom-1.0/text-to-video").expect("present");
        assert_eq!(custom.duration, DurationRule { min: 2, max: 8, auto: false });
    }

    #[test]
    fn bad_config_models_are_reported() {
        let bad = |toml: &str| {
            let specs = parse_specs(toml).expect("parses");
            Catalog::builtin().with_extra(specs).expect_err("rejected")
        };
        assert!(matches!(bad("[[models]]\nid = \"x/y/z\""), CatalogError::BadId { .. }));
        assert!(matches!(bad("[[models]]\nid = \"x/y-1/text-to-video\""), CatalogError::NoDuration { .. }));
        assert!(matches!(
            bad("[[models]]\nid = \"x/y-1/text-to-video\"\nmin_seconds = 9\nmax_seconds = 4"),
            CatalogError::EmptyRange { .. }
        ));
        assert!(parse_specs("[[models]]\nid = 3").is_err());
        assert!(parse_specs("[[models]]\nid = \"a/b-1/text-to-video\"\ncolour = 1").is_err());
    }
}
