//! Where a command reads the journal: this machine's file, or, when the engine runs on
//! another machine (`--engine ssh://…`), through that engine, with the same answers.

use std::sync::Arc;

use super::CliError;
use crate::config::Settings;
use crate::engine::reader::Reader;
use crate::session::{self, Reach, db_path};
use crate::store::TaskRecord;

/// The journal of `settings`' data folder, read where it is.
pub async fn reader(settings: &Settings, reach: &Reach) -> Result<Reader, CliError> {
    match reach {
        Reach::Ssh(_) => {
            let attached = session::attach(settings, reach).await?;
            Ok(Reader::Engine(Arc::new(attached.engine)))
        }
        Reach::Service(_) | Reach::InProcess => Ok(Reader::Store(db_path(settings))),
    }
}

/// Looks up the tasks a command names (local id, remote id, or a unique prefix of either).
pub async fn resolve_all(reader: &Reader, ids: &[String]) -> Result<Vec<TaskRecord>, CliError> {
    let mut tasks = Vec::with_capacity(ids.len());
    for text in ids {
        let id = reader.resolve(text).await?;
        tasks.push(reader.show(id).await?.0);
    }
    Ok(tasks)
}

/// [`resolve_all`] of one id, with the reader opened for it.
pub async fn resolve_one(settings: &Settings, reach: &Reach, id: &str) -> Result<TaskRecord, CliError> {
    let reader = reader(settings, reach).await?;
    let mut tasks = resolve_all(&reader, std::slice::from_ref(&id.to_string())).await?;
    tasks.pop().ok_or_else(|| CliError::Usage(format!("no task {id}")))
}
