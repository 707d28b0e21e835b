//! The service's HTTP API: wire types, the body forms services take, the client, downloads,
//! the model list, the doctor's probes and the error taxonomy.

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
