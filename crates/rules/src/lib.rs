//! The spec's rules as pure functions: model ids, the catalog, submission validation, billing.
//!
//! Beside the rules: `batch` (batch files and templates: rows from JSONL/CSV/text, expansion,
//! content keys) and `text` (terminal-safe text: control characters stripped, excerpts, sizes).

pub mod batch;
pub mod billing;
pub mod catalog;
pub mod media_text;
pub mod model_choice;
pub mod model_id;
pub mod model_name;
pub mod params;
pub mod pricing;
pub mod prompt_text;
mod redraft;
pub mod rendered;
pub mod size;
pub mod source;
pub mod text;
pub mod validate;
pub mod wire;

pub use billing::{Billing, billing};
pub use catalog::{BrokenModel, Catalog, Declared, DurationRule, Family, ModelEntry, ModelSpec, Rules};
pub use media_text::{BadMedia, parse_media};
pub use model_choice::{ModelChoiceError, choose_model};
pub use model_id::{Mode, ModelId, ModelIdError};
pub use model_name::{MAX_MODEL_ID, ModelName, ModelNameError};
pub use params::{MediaKind, Ratio, Resolution};
pub use pricing::{Budget, OverBudget, Pricing, check_budget};
pub use prompt_text::TextBounds;
pub use source::{LocalOrigin, is_local};
pub use validate::{
    DEFAULT_SECONDS, Draft, Field, Invalid, Media, MediaDraft, UnknownModels, ValidSubmission, Violation, Warning,
    validate,
};
