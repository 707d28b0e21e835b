//! The service's HTTP API: `types` (the body we send, strict; the task we read back, tolerant),
//! `wire_form` (the body forms services take), `client` (submit, poll, the rules of every
//! request), `download` (a result file, resumable), `content` (the `/v1/videos/{id}/content`
//! file route), `models` (`GET /v1/models`), `probe` (what `reel doctor` asks), `upstream` (the
//! vendor's words inside a gateway's error), `key` (the API key, never printed) and `error`
//! (the error taxonomy).

pub mod client;
pub mod content;
pub mod download;
pub mod error;
pub mod key;
pub mod models;
pub mod probe;
pub mod types;
pub mod upstream;
pub mod wire_form;

pub use client::{Client, ClientOptions};
pub use content::Source;
pub use download::Download;
pub use error::{ApiError, ErrorBody};
pub use key::{ApiKey, KeyError};
pub use models::{ListedModel, ModelList};
pub use types::{Status, SubmitRequest, VideoTask};
pub use wire_form::{BodyForm, Wire};
