//! Where a command reads the journal: this machine's file, or, when the engine runs on
//! another machine (`--engine ssh://…`), through that engine, with the same answers.

use std::sync::Arc;

use super::CliError;
use reel_engine::config::Settings;
use reel_engine::reader::Reader;
use reel_engine::session::{self, Attached, Reach, db_path};
use reel_store::TaskRecord;

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

/// Lends an attached engine to `read` as the journal's reader (through that very link when the
/// engine is on another machine: one SSH connection per command), then gives it back.
pub async fn lend<T>(
    attached: Attached,
    settings: &Settings,
    read: impl AsyncFnOnce(&Reader) -> Result<T, CliError>,
) -> Result<(Attached, T), CliError> {
    let Attached { engine, events, base_url, session, differs } = attached;
    let engine = Arc::new(engine);
    let reader = Reader::of(&engine, &db_path(settings));
    let result = read(&reader).await;
    drop(reader);
    let Ok(engine) = Arc::try_unwrap(engine) else {
        return Err(CliError::Usage("the engine was kept by a read that ended".into()));
    };
    Ok((Attached { engine, events, base_url, session, differs }, result?))
}

/// The engine attached, and the tasks `ids` name, read as [`resolve_all`] reads them.
pub async fn attach_for(
    settings: &Settings,
    reach: &Reach,
    ids: &[String],
) -> Result<(Attached, Vec<TaskRecord>), CliError> {
    match reach {
        // On this machine the ids are read first: a typo starts no engine.
        Reach::Service(_) | Reach::InProcess => {
            let tasks = resolve_all(&Reader::Store(db_path(settings)), ids).await?;
            Ok((session::attach(settings, reach).await?, tasks))
        }
        Reach::Ssh(_) => {
            lend(session::attach(settings, reach).await?, settings, async |r| resolve_all(r, ids).await).await
        }
    }
}
