//! The spec's rules as pure functions, one module each: `model_id` (the spec's model ids),
//! `model_name` (any id a service uses), `model_choice` (a model as a user types it), `catalog`
//! (the models and their rules), `params` (resolutions, ratios, media types), `size` (frame sizes
//! in every spelling), `validate` (the one submission check), `billing` (billed seconds),
//! `pricing` (costs and the daily budget), `rendered` (what the service says it rendered against
//! what was asked), `prompt_text` and `media_text` (a prompt's text, a media item as typed),
//! `source` (a URL or a local file to upload), `redraft` (a checked submission as a draft again),
//! `received_body` (a submission body as a server receives it, read strictly, for the simulator;
//! the body reel sends is `reel_api::wire_form`).
//!
//! Beside the rules: `batch` (batch files and templates: rows from JSONL/CSV/text, expansion,
//! content keys; it reads the file it is given) and `text` (terminal-safe text: control
//! characters stripped, excerpts, sizes).

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
pub mod received_body;
mod redraft;
pub mod rendered;
pub mod size;
pub mod source;
pub mod text;
pub mod validate;

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
